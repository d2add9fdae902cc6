import Foundation

/// What went wrong reading, writing or converting audio. Every case names the file or formats involved and
/// says, in `description`, what a person can do about it.
public enum AudioError: Error, Equatable, Sendable {
    /// There is no file at this path.
    case fileNotFound(URL)
    /// The path is a directory or special file, not an audio file.
    case notARegularFile(URL)
    /// The file holds no bytes.
    case emptyFile(URL)
    /// The bytes are not audio FFmpeg recognizes (text, random data, an unknown container).
    case unrecognizedFormat(URL, detail: String)
    /// The file has no audio stream.
    case noAudioStream(URL)
    /// The installed FFmpeg cannot decode the file's audio codec.
    case unsupportedCodec(URL, codec: String)
    /// The audio could not be decoded, or ended long before its header says.
    case corruptFile(URL, detail: String)
    /// A buffer's format is not the one the file or converter was set up for.
    case formatMismatch(expected: String, actual: String)
    /// The audio cannot be converted between these formats (both must be linear PCM, at most 64 channels).
    case unsupportedConversion(from: String, to: String)
    /// An audio settings dictionary asks for something this library cannot write or process.
    case invalidSettings(String)
    /// Writing the file failed, for example for lack of space or permission.
    case writeFailed(URL, detail: String)
    /// The file was already closed, so no more audio can be written to it.
    case closed(URL)
    /// No sound server answered (microphone capture on Linux goes through PulseAudio or PipeWire's PulseAudio server).
    case audioServerUnreachable(detail: String)
    /// The sound server has no input (source) of this name; `available` lists the names it has.
    case audioDeviceNotFound(name: String, available: [String])
    /// The sound server has no input at all.
    case noAudioInput
    /// Capture stopped while running: the input disappeared or the server went away.
    case captureFailed(detail: String)
    /// Microphone capture needs PulseAudio, which this build does not have (platforms other than Linux).
    case captureUnsupported
    /// FFmpeg's shared libraries, which read every format but plain WAV, could not be loaded.
    case ffmpegUnavailable(detail: String)
}

extension AudioError: CustomStringConvertible, LocalizedError {
    /// A sentence saying what went wrong, naming the file or formats, and what a person can do about it.
    public var description: String {
        switch self {
        case .fileNotFound(let url):
            "\(url.path): no such file. Check the path."
        case .notARegularFile(let url):
            "\(url.path) is a directory or special file, not an audio file. Give the path of an audio file."
        case .emptyFile(let url):
            "\(url.path) is empty (0 bytes); it holds no audio. Check that the file was fully written or copied."
        case .unrecognizedFormat(let url, let detail):
            "\(url.path) is not an audio or video file that can be read (\(detail)). Check that it is a wav, flac, mp3, m4a, ogg, opus, mp4, mkv or webm file."
        case .noAudioStream(let url):
            "\(url.path) contains no audio stream. Give a file with an audio track."
        case .unsupportedCodec(let url, let codec):
            "\(url.path) uses the audio codec \(codec), which the installed FFmpeg cannot decode. Convert it to wav or flac first."
        case .corruptFile(let url, let detail):
            "\(url.path) is damaged: \(detail). Re-copy or re-export the file."
        case .formatMismatch(let expected, let actual):
            "The buffer's format (\(actual)) does not match the expected format (\(expected)). Convert the audio with AVAudioConverter first."
        case .unsupportedConversion(let from, let to):
            "Cannot convert audio from \(from) to \(to): both formats must be linear PCM with at most 64 channels."
        case .invalidSettings(let detail):
            "Invalid audio settings: \(detail)."
        case .writeFailed(let url, let detail):
            "Could not write \(url.path): \(detail). Check free disk space and permissions."
        case .closed(let url):
            "\(url.path) was already closed; open the file again to write more audio."
        case .audioServerUnreachable(let detail):
            "No sound server is reachable for the microphone (\(detail)). Start PulseAudio (`pulseaudio --start`) or PipeWire's PulseAudio server (`systemctl --user start pipewire-pulse`), or set PULSE_SERVER to its address."
        case .audioDeviceNotFound(let name, let available):
            "No audio input named \(name). Available inputs: \(available.isEmpty ? "none" : available.joined(separator: ", ")) (`openspeech listen --list-devices` lists them)."
        case .noAudioInput:
            "The sound server has no audio input. Connect a microphone, or check it is not disabled (`pactl list short sources`)."
        case .captureFailed(let detail):
            "Audio capture stopped: \(detail). Check that the microphone is still connected and the sound server running, then start again."
        case .captureUnsupported:
            "Microphone capture is not available on this platform: it needs PulseAudio's client library (Linux)."
        case .ffmpegUnavailable(let detail):
            "Reading this audio needs FFmpeg's libraries, which could not be loaded (\(detail)). Install them (on Debian: apt-get install libavformat59 libswresample4), or give a 16 kHz mono WAV file, which is read without them."
        }
    }

    /// The same text as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
