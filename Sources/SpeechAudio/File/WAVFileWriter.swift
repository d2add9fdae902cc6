import CFFmpeg
import Foundation

/// Writes linear PCM to a WAV file under a temporary name beside the target, renamed into place by `finish()`.
/// Not thread-safe: `AVAudioFile` serializes access.
final class WAVFileWriter {
    let url: URL
    private let temporaryURL: URL
    private let handle: FileHandle
    private let settings: LinearPCMSettings
    private let processingFormat: AVAudioFormat
    /// Converts processing-format buffers to the stored sample type, interleaved.
    private let converter: SampleRateConverter
    private let storedFormat: AVAudioFormat
    private var scratch: AVAudioPCMBuffer
    private(set) var framesWritten: AVAudioFramePosition = 0
    private var finished = false

    private static let headerSize = 44
    private var bytesPerFrame: Int { settings.bitDepth / 8 * Int(settings.channelCount) }

    init(url: URL, settings: LinearPCMSettings, processingFormat: AVAudioFormat) throws(AudioError) {
        self.url = url
        self.settings = settings
        self.processingFormat = processingFormat
        // 24-bit samples are produced as Int32 and packed to three bytes on write.
        let storedCommon: AVAudioCommonFormat = switch (settings.isFloat, settings.bitDepth) {
        case (true, 64): .pcmFormatFloat64
        case (true, _): .pcmFormatFloat32
        case (false, 16): .pcmFormatInt16
        default: .pcmFormatInt32
        }
        storedFormat = AVAudioFormat(commonFormat: storedCommon, sampleRate: settings.sampleRate,
                                     channels: settings.channelCount, interleaved: true)!
        let rate = Int32(settings.sampleRate.rounded())
        let channels = Int32(settings.channelCount)
        guard let converter = SampleRateConverter(
            input: .init(sampleFormat: ffmpegSampleFormat(processingFormat.commonFormat,
                                                          interleaved: processingFormat.isInterleaved)!,
                         sampleRate: rate, channels: channels),
            output: .init(sampleFormat: ffmpegSampleFormat(storedCommon, interleaved: true)!,
                          sampleRate: rate, channels: channels))
        else { throw .unsupportedConversion(from: processingFormat.description, to: storedFormat.description) }
        self.converter = converter
        scratch = AVAudioPCMBuffer(pcmFormat: storedFormat, frameCapacity: 4096)!

        let directory = url.deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw .writeFailed(url, detail: "the folder \(directory.path) does not exist") }
        temporaryURL = directory.appendingPathComponent(".\(url.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        guard FileManager.default.createFile(atPath: temporaryURL.path, contents: nil),
              let handle = FileHandle(forWritingAtPath: temporaryURL.path)
        else { throw .writeFailed(url, detail: "the folder is not writable") }
        self.handle = handle
        do {
            try handle.write(contentsOf: header(dataBytes: 0))
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporaryURL)
            throw .writeFailed(url, detail: error.localizedDescription)
        }
    }

    func write(_ buffer: AVAudioPCMBuffer) throws(AudioError) {
        guard !finished else { throw .closed(url) }
        guard buffer.format == processingFormat else {
            throw .formatMismatch(expected: processingFormat.description, actual: buffer.format.description)
        }
        let frames = Int(buffer.frameLength)
        let newTotal = (framesWritten + AVAudioFramePosition(frames)) * AVAudioFramePosition(bytesPerFrame)
        guard newTotal + AVAudioFramePosition(Self.headerSize) < AVAudioFramePosition(UInt32.max) else {
            throw .writeFailed(url, detail: "WAV files cannot hold more than 4 GiB of audio; split the recording")
        }
        var consumed = 0
        while consumed < frames {
            let chunk = min(frames - consumed, Int(scratch.frameCapacity))
            let converted = withPlanePointers(buffer, offset: consumed) { input in
                withPlanePointers(scratch, offset: 0) { output in
                    input.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) {
                        converter.convert($0, inputFrames: chunk, into: output, capacity: chunk)
                    }
                }
            }
            try append(frames: converted)
            consumed += chunk
        }
    }

    /// Completes the header and renames the file into place.
    func finish() throws(AudioError) {
        guard !finished else { return }
        finished = true
        do {
            let dataBytes = UInt32(framesWritten) * UInt32(bytesPerFrame)
            try handle.seek(toOffset: 0)
            try handle.write(contentsOf: header(dataBytes: dataBytes))
            try handle.synchronize()
            try handle.close()
            // rename(2) replaces an existing file atomically: readers see the old file or the new one.
            guard rename(temporaryURL.path, url.path) == 0 else {
                throw AudioError.writeFailed(url, detail: String(cString: strerror(errno)))
            }
        } catch {
            try? FileManager.default.removeItem(at: temporaryURL)
            throw .writeFailed(url, detail: error.localizedDescription)
        }
    }

    private func append(frames: Int) throws(AudioError) {
        guard frames > 0 else { return }
        let raw = UnsafeRawPointer(scratch.rawChannelPointers[0])
        let data: Data
        if !settings.isFloat && settings.bitDepth == 24 {
            // Keep the top three bytes of each little-endian Int32 sample.
            let samples = frames * Int(settings.channelCount)
            var packed = Data(count: samples * 3)
            packed.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) in
                let source = raw.assumingMemoryBound(to: UInt8.self)
                for index in 0..<samples {
                    out[index * 3] = source[index * 4 + 1]
                    out[index * 3 + 1] = source[index * 4 + 2]
                    out[index * 3 + 2] = source[index * 4 + 3]
                }
            }
            data = packed
        } else {
            data = Data(bytes: raw, count: frames * bytesPerFrame)
        }
        do {
            try handle.write(contentsOf: data)
        } catch {
            finished = true
            try? handle.close()
            try? FileManager.default.removeItem(at: temporaryURL)
            throw .writeFailed(url, detail: error.localizedDescription)
        }
        framesWritten += AVAudioFramePosition(frames)
    }

    private func header(dataBytes: UInt32) -> Data {
        var data = Data()
        func put32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        func put16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        put32(36 + dataBytes)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        put32(16)
        put16(settings.isFloat ? 3 : 1) // WAVE_FORMAT_IEEE_FLOAT or WAVE_FORMAT_PCM
        put16(UInt16(settings.channelCount))
        put32(UInt32(settings.sampleRate.rounded()))
        put32(UInt32(settings.sampleRate.rounded()) * UInt32(bytesPerFrame))
        put16(UInt16(bytesPerFrame))
        put16(UInt16(settings.bitDepth))
        data.append(contentsOf: Array("data".utf8))
        put32(dataBytes)
        return data
    }
}
