import Foundation
import SpeechAudio
import Testing
import TestSupport

/// Reading every container and codec users have, against ffmpeg's own decode of the same file.
@Suite struct AudioFileReadingTests {
    @Test(arguments: AudioFixtures.all)
    func decodesLikeFFmpeg(_ fixture: AudioFixtures.Fixture) throws {
        let file = try AVAudioFile(forReading: fixture.url)
        let reference = try AudioFixtures.ffmpegDecode(fixture.url)
        #expect(Int(file.processingFormat.channelCount) == reference.count)
        #expect(file.processingFormat.isStandard)

        // Length: exact, the same as ffprobe's count of decoded frames.
        let probed = try AudioFixtures.probeFrameCount(fixture.url)
        #expect(file.length == AVAudioFramePosition(probed), "\(fixture): length \(file.length) vs ffprobe \(probed)")

        // Samples: read in odd-sized pieces; ffmpeg's command line decodes with the same libraries.
        var decoded = [[Float]](repeating: [], count: reference.count)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 7_919)!
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            for channel in decoded.indices {
                decoded[channel] += UnsafeBufferPointer(start: buffer.floatChannelData![channel],
                                                        count: Int(buffer.frameLength))
            }
        }
        #expect(AVAudioFramePosition(decoded[0].count) == file.length)
        #expect(file.framePosition == file.length)
        // ffmpeg's command line decodes with the same libavcodec and trims codec priming the same way, so
        // lossy files must match it as closely as lossless ones.
        for channel in decoded.indices {
            #expect(decoded[channel].count == reference[channel].count, "\(fixture) channel \(channel)")
            #expect(maxDifference(decoded[channel], reference[channel]) < 1e-4, "\(fixture) channel \(channel)")
        }
    }

    @Test func seeksToExactFrames() throws {
        for url in [AudioFixtures.stereo44k, AudioFixtures.all.first { $0.name.hasSuffix(".mp3") }!.url] {
            let file = try AVAudioFile(forReading: url)
            let whole = try AudioFixtures.ffmpegDecode(url)[0]
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1_000)!
            for position in [AVAudioFramePosition(123_457), 5, 200_000, 0] {
                file.framePosition = position
                try file.read(into: buffer)
                #expect(buffer.frameLength == 1_000)
                #expect(file.framePosition == position + 1_000)
                let ours = Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: 1_000))
                #expect(maxDifference(ours, Array(whole[Int(position)..<Int(position) + 1_000])) < 1e-4,
                        "\(url.lastPathComponent) at \(position)")
            }
            file.framePosition = file.length + 10
            try file.read(into: buffer)
            #expect(buffer.frameLength == 0)
        }
    }

    @Test func readsIntegerProcessingFormats() throws {
        let url = AudioFixtures.all.first { $0.name == "s16-44k-stereo.wav" }!.url
        let file = try AVAudioFile(forReading: url, commonFormat: .pcmFormatInt16, interleaved: true)
        #expect(file.processingFormat.commonFormat == .pcmFormatInt16)
        #expect(file.fileFormat.commonFormat == .pcmFormatInt16)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4_096)!
        try file.read(into: buffer)
        let reference = try AudioFixtures.ffmpegDecode(url)
        let samples = buffer.int16ChannelData![0]
        for frame in 0..<4_096 {
            for channel in 0..<2 {
                #expect(Float(samples[frame * 2 + channel]) / 32_768 == reference[channel][frame])
            }
        }
    }

    @Test func describesTheSource() throws {
        let flac = try AVAudioFile(forReading: AudioFixtures.stereo44k)
        #expect(flac.sourceInfo?.codec == "flac")
        #expect(flac.sourceInfo?.sampleRate == 44_100)
        #expect(flac.fileFormat.channelCount == 2)
        #expect(flac.sourceInfo?.bitsPerSample == 24)
        let video = try AVAudioFile(forReading: AudioFixtures.all.first { $0.name.hasSuffix(".webm") }!.url)
        #expect(video.sourceInfo?.codec == "vorbis")
        #expect(video.sourceInfo?.container == "webm")
        let m4a = try AVAudioFile(forReading: AudioFixtures.all.first { $0.name.hasSuffix(".m4a") }!.url)
        #expect(m4a.sourceInfo?.container == "m4a")
        #expect(m4a.sourceInfo?.codec == "aac")
        #expect(m4a.sourceInfo?.bitsPerSample == nil)
    }
}

func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
}
