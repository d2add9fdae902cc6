import Foundation
import SpeechAudio
import Testing
import TestSupport

@Suite struct AudioFileWritingTests {
    @Test(arguments: [(16, false), (24, false), (32, false), (32, true)])
    func writesWAVThatReadsBackExactly(bits: Int, float: Bool) throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("out.wav")
        let source = try AVAudioFile(forReading: AudioFixtures.stereo44k)
        let buffer = AVAudioPCMBuffer(pcmFormat: source.processingFormat, frameCapacity: 10_000)!
        var original: [Float] = []
        do {
            let output = try AVAudioFile(forWriting: url, settings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100.0, AVNumberOfChannelsKey: 2,
                AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: float,
            ])
            for _ in 0..<5 {
                try source.read(into: buffer)
                original += UnsafeBufferPointer(start: buffer.floatChannelData![1], count: Int(buffer.frameLength))
                try output.write(from: buffer)
            }
            #expect(output.length == 50_000)
            // Not visible under its name until closed: an interrupted write leaves nothing half-done.
            #expect(!FileManager.default.fileExists(atPath: url.path))
            output.close()
        }
        let back = try AVAudioFile(forReading: url)
        #expect(back.length == 50_000)
        #expect(back.fileFormat.channelCount == 2)
        #expect(back.sourceInfo?.bitsPerSample == bits)
        let read = AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: 50_000)!
        try back.read(into: read)
        let channel = Array(UnsafeBufferPointer(start: read.floatChannelData![1], count: 50_000))
        // The source is 24-bit: 24 bits and more keep it exactly; 16 bits within half a step.
        let tolerance: Float = bits == 16 ? 1.0 / 32_768 : 1e-7
        #expect(maxDifference(channel, original) <= tolerance)
    }

    @Test func replacingAFileKeepsTheOldOneUntilClosed() throws {
        let folder = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("keep.wav")
        try Data("old".utf8).write(to: url)
        let file = try AVAudioFile(forWriting: url, settings: [AVSampleRateKey: 16_000.0])
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 160)!
        buffer.frameLength = 160
        try file.write(from: buffer)
        #expect(try Data(contentsOf: url) == Data("old".utf8))
        file.close()
        #expect(try AVAudioFile(forReading: url).length == 160)
        #expect(throws: AudioError.self) { try file.write(from: buffer) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["keep.wav"])
    }
}
