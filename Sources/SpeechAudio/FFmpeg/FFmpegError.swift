import CFFmpeg

/// FFmpeg's error codes that Swift cannot import (they are macros), and a readable message for any code.
enum FFmpegError {
    /// `AVERROR_EOF`: end of file / decoder fully drained.
    static let endOfFile: Int32 = -0x2046_4F45 // -MKTAG('E','O','F',' ')
    /// `AVERROR(EAGAIN)`: feed more input, or drain output, first.
    static let tryAgain: Int32 = -11
    /// `AVERROR_INVALIDDATA`.
    static let invalidData: Int32 = -0x4144_4E49 // -MKTAG('I','N','D','A')

    static func message(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        if av_strerror(code, &buffer, buffer.count) < 0 { return "FFmpeg error \(code)" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// FFmpeg set up once per process: its own logging off (problems reach the caller as `AudioError`s instead of
    /// stderr noise), and no single allocation above 64 MB. Decoding audio never needs one that large, but sizes read
    /// from a damaged file do: a 154-byte WAV whose INFO tag declares 1.8 GB made the demuxer zero 1.8 GB before
    /// noticing the file's end (found by the `audio-file` fuzz target: 5 s and 1.6 GB, now 0.2 s, the same error).
    /// Loads FFmpeg's libraries (on first use: see `CFFmpeg`) and sets them up; throws `.ffmpegUnavailable` when they
    /// cannot be loaded. Every entry point that opens a file through FFmpeg calls it first.
    static func prepare() throws(AudioError) {
        _ = processSettings
        if let error = openspeech_ffmpeg_load_error() { throw .ffmpegUnavailable(detail: String(cString: error)) }
    }

    private static let processSettings: Void = {
        av_log_set_level(-8) // AV_LOG_QUIET
        av_max_alloc(64 << 20)
    }()
}
