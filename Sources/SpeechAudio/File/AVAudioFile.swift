import Foundation
import Synchronization

/// An audio file opened for reading or for writing, as in AVFoundation.
///
/// Reading goes through FFmpeg, so any container and codec it decodes opens: wav, flac, mp3, m4a/aac,
/// ogg/vorbis, opus, and the first audio stream of video files (mp4, mkv, webm). Samples are delivered in
/// `processingFormat` (Float32 deinterleaved at the file's own rate unless asked otherwise). `length` is the
/// exact frame count, found by decoding the stream once on first use.
///
/// Writing produces WAV (linear PCM, 16/24/32-bit integer or 32/64-bit float). Unlike Apple's, the file
/// appears under its name only when closed (`close()` or release): it is written beside it under a temporary
/// name and renamed into place, so an interrupted write never leaves a damaged file or replaces an old one.
///
/// Thread-safe: every operation holds the file's lock.
public final class AVAudioFile: Sendable {
    /// The file's location; when writing, the name the file gets once closed.
    public let url: URL
    /// The format of the samples as stored (for compressed codecs, `.otherFormat` is not representable, so the
    /// decoder's native sample type is given).
    public let fileFormat: AVAudioFormat
    /// The format `read(into:)` fills and `write(from:)` takes.
    public let processingFormat: AVAudioFormat
    /// Container and codec details of a file opened for reading; nil for files opened for writing.
    public let sourceInfo: AudioSourceInfo?
    private let state: Mutex<State>

    private enum Mode {
        case reading(DecodedAudioReader)
        case writing(WAVFileWriter)
        case closed
    }

    private struct State {
        var mode: Mode
        var position: AVAudioFramePosition = 0
        var length: AVAudioFramePosition?
        var truncation: AudioTruncation?
    }

    /// Opens a file for reading with Float32 deinterleaved processing at the file's own rate and channels.
    public convenience init(forReading fileURL: URL) throws {
        try self.init(forReading: fileURL, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Opens a file for reading, processing in the given sample type and layout.
    public init(forReading fileURL: URL, commonFormat format: AVAudioCommonFormat, interleaved: Bool) throws {
        let probe = try DecodedAudioReader(url: fileURL)
        let source = probe.source
        guard let processing = AVAudioFormat(commonFormat: format, sampleRate: source.sampleRate,
                                             channels: source.channelCount, interleaved: interleaved)
        else {
            throw AudioError.unsupportedConversion(from: "\(source.codec) audio", to: "the sample format .otherFormat")
        }
        let reader = format == .pcmFormatFloat32 && !interleaved
            ? probe : try DecodedAudioReader(url: fileURL, outputFormat: processing)
        url = fileURL
        sourceInfo = source
        let stored = source.sampleFormat == .otherFormat ? AVAudioCommonFormat.pcmFormatFloat32 : source.sampleFormat
        fileFormat = AVAudioFormat(commonFormat: stored, sampleRate: source.sampleRate,
                                   channels: source.channelCount, interleaved: source.isPCM)!
        processingFormat = processing
        state = Mutex(State(mode: .reading(reader)))
    }

    /// Creates a WAV file for writing with Float32 deinterleaved processing.
    public convenience init(forWriting fileURL: URL, settings: [String: Any]) throws {
        try self.init(forWriting: fileURL, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
    }

    /// Creates a WAV file for writing; `settings` give the stored format, `format`/`interleaved` the buffers'.
    public init(forWriting fileURL: URL, settings: [String: Any], commonFormat format: AVAudioCommonFormat,
                interleaved: Bool) throws {
        let stored = try LinearPCMSettings(settings)
        guard let processing = AVAudioFormat(commonFormat: format, sampleRate: stored.sampleRate,
                                             channels: stored.channelCount, interleaved: interleaved)
        else { throw AudioError.invalidSettings("the processing format cannot be .otherFormat") }
        let writer = try WAVFileWriter(url: fileURL, settings: stored, processingFormat: processing)
        url = fileURL
        sourceInfo = nil
        fileFormat = AVAudioFormat(commonFormat: stored.processingCommonFormat, sampleRate: stored.sampleRate,
                                   channels: stored.channelCount, interleaved: !stored.isNonInterleaved)!
        processingFormat = processing
        state = Mutex(State(mode: .writing(writer)))
    }

    deinit {
        state.withLock { state in
            if case .writing(let writer) = state.mode { try? writer.finish() }
        }
    }

    /// The number of sample frames in the file (for writing: written so far). For a file cut short, the frames
    /// present; for one that cannot be decoded, 0 (reading it reports why; `measuredLength()` throws it).
    public var length: AVAudioFramePosition {
        (try? measuredLength().frames) ?? 0
    }

    /// Not in Apple's API: the exact number of frames (counted by decoding the file once, on first use) and, for a
    /// file whose data ends before the length its header declares, how it was cut short. Throws `AudioError` for a
    /// file that cannot be decoded.
    public func measuredLength() throws -> (frames: AVAudioFramePosition, truncation: AudioTruncation?) {
        try state.withLock { state throws in
            switch state.mode {
            case .writing(let writer): return (writer.framesWritten, nil)
            case .closed: return (state.length ?? 0, state.truncation)
            case .reading:
                if let length = state.length { return (length, state.truncation) }
                // Count with a reader of its own so the current read position is untouched.
                let reader = try DecodedAudioReader(url: url, outputFormat: processingFormat, toleratingTruncation: true)
                let counted = try reader.skipToEnd()
                state.length = counted
                state.truncation = reader.truncation
                return (counted, reader.truncation)
            }
        }
    }

    /// The frame the next read or write starts at. Setting it seeks; positions past the end read nothing.
    public var framePosition: AVAudioFramePosition {
        get { state.withLock { $0.position } }
        set {
            state.withLock { state in
                guard case .reading(let reader) = state.mode else { return }
                let target = max(newValue, 0)
                do {
                    var current = reader
                    var position = state.position
                    if target < position {
                        current = try DecodedAudioReader(url: url, outputFormat: processingFormat)
                        position = 0
                        state.mode = .reading(current)
                    }
                    position += try Self.skip(current, frames: target - position, format: processingFormat)
                    state.position = position
                } catch {
                    state.position = target // a later read reports the error
                }
            }
        }
    }

    /// Whether the file is open (not yet closed).
    public var isOpen: Bool { state.withLock { if case .closed = $0.mode { false } else { true } } }

    /// Reads up to the buffer's capacity from `framePosition`; `frameLength` tells how many frames came.
    public func read(into buffer: AVAudioPCMBuffer) throws {
        try read(into: buffer, frameCount: buffer.frameCapacity)
    }

    /// Reads up to `frames` frames from `framePosition`; `frameLength` tells how many came (0 at the end).
    public func read(into buffer: AVAudioPCMBuffer, frameCount frames: AVAudioFrameCount) throws {
        try state.withLock { state throws in
            guard case .reading(let reader) = state.mode else {
                throw AudioError.closed(url)
            }
            let count = try reader.read(into: buffer, at: 0, frameCount: Int(min(frames, buffer.frameCapacity)))
            buffer.frameLength = AVAudioFrameCount(count)
            state.position += AVAudioFramePosition(count)
        }
    }

    /// Appends the buffer's `frameLength` frames; the buffer must be in `processingFormat`.
    public func write(from buffer: AVAudioPCMBuffer) throws {
        try state.withLock { state throws in
            guard case .writing(let writer) = state.mode else {
                throw AudioError.closed(url)
            }
            try writer.write(buffer)
            state.position = writer.framesWritten
        }
    }

    /// Finishes the file: for writing, completes the header and moves it into place. Later reads and writes
    /// throw; closing twice does nothing.
    public func close() {
        state.withLock { state in
            if case .writing(let writer) = state.mode {
                try? writer.finish()
                state.length = writer.framesWritten
            }
            state.mode = .closed
        }
    }

    /// Like `close()`, but reports a failure to complete the file.
    public func closeThrowing() throws {
        try state.withLock { state throws in
            if case .writing(let writer) = state.mode {
                state.length = writer.framesWritten
                state.mode = .closed
                try writer.finish()
            }
            state.mode = .closed
        }
    }

    private static func skip(_ reader: DecodedAudioReader, frames: AVAudioFramePosition,
                             format: AVAudioFormat) throws -> AVAudioFramePosition {
        guard frames > 0 else { return 0 }
        let chunk = AVAudioFrameCount(min(frames, 65_536))
        let scratch = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: chunk)!
        var skipped: AVAudioFramePosition = 0
        while skipped < frames {
            let want = Int(min(AVAudioFramePosition(chunk), frames - skipped))
            let got = try reader.read(into: scratch, at: 0, frameCount: want)
            skipped += AVAudioFramePosition(got)
            if got < want { break }
        }
        return skipped
    }
}
