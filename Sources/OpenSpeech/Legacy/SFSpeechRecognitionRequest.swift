import Foundation
import SpeechAudio
import Synchronization

/// The kind of speech a request holds, as Apple's `SFSpeechRecognitionTaskHint`. Accepted and recorded; the model
/// transcribes every kind the same way.
public enum SFSpeechRecognitionTaskHint: Int, Sendable {
    /// No particular kind of speech.
    case unspecified = 0
    /// Free-form dictation, as into a text field.
    case dictation = 1
    /// Short search queries.
    case search = 2
    /// Short answers and commands, such as "yes", "no" or "cancel".
    case confirmation = 3
}

/// What to recognize and how, as Apple's `SFSpeechRecognitionRequest`: the base of the URL and audio-buffer
/// requests. Its settings are read when the task starts (`SFSpeechRecognizer.recognitionTask(with:...)`). Sendable:
/// the settings are behind a lock, so a request may be set up on one thread and appended to from another.
open class SFSpeechRecognitionRequest: NSObject, @unchecked Sendable {
    private struct Settings {
        var taskHint = SFSpeechRecognitionTaskHint.unspecified
        var shouldReportPartialResults = true
        var contextualStrings: [String] = []
        var interactionIdentifier: String?
        var requiresOnDeviceRecognition = false
        var addsPunctuation = false
        var customizedLanguageModel: SFSpeechLanguageModel.Configuration?
    }
    private let settings = Mutex(Settings())

    /// The kind of speech (default: the recognizer's `defaultTaskHint`).
    open var taskHint: SFSpeechRecognitionTaskHint {
        get { settings.withLock { $0.taskHint } }
        set { settings.withLock { $0.taskHint = newValue } }
    }
    /// Whether partial results are delivered as the audio is recognized (default true), or only the final one.
    open var shouldReportPartialResults: Bool {
        get { settings.withLock { $0.shouldReportPartialResults } }
        set { settings.withLock { $0.shouldReportPartialResults = newValue } }
    }
    /// Words and phrases likely to be spoken (names, terms): they become the analysis context's contextual strings.
    open var contextualStrings: [String] {
        get { settings.withLock { $0.contextualStrings } }
        set { settings.withLock { $0.contextualStrings = newValue } }
    }
    /// An identifier for the interaction (deprecated by Apple); recorded, unused.
    open var interactionIdentifier: String? {
        get { settings.withLock { $0.interactionIdentifier } }
        set { settings.withLock { $0.interactionIdentifier = newValue } }
    }
    /// Whether recognition must stay on the device: it always does in OpenSpeech.
    open var requiresOnDeviceRecognition: Bool {
        get { settings.withLock { $0.requiresOnDeviceRecognition } }
        set { settings.withLock { $0.requiresOnDeviceRecognition = newValue } }
    }
    /// Whether results are punctuated (default false, as Apple's): without it the model's punctuation is removed.
    open var addsPunctuation: Bool {
        get { settings.withLock { $0.addsPunctuation } }
        set { settings.withLock { $0.addsPunctuation = newValue } }
    }
    /// A custom language model prepared with `SFSpeechLanguageModel.prepareCustomLanguageModel`: its phrases and
    /// terms join the contextual strings (the Whisper models are not retrained).
    open var customizedLanguageModel: SFSpeechLanguageModel.Configuration? {
        get { settings.withLock { $0.customizedLanguageModel } }
        set { settings.withLock { $0.customizedLanguageModel = newValue } }
    }

    /// A request with the default settings; use a subclass, since this base has no audio source.
    public override init() {}

    /// Where the task reads its audio.
    var audioSource: LegacyAudioSource {
        fatalError("SFSpeechRecognitionRequest is abstract: use SFSpeechURLRecognitionRequest or SFSpeechAudioBufferRecognitionRequest")
    }
}

/// A request to recognize the speech of a recorded audio file, as Apple's `SFSpeechURLRecognitionRequest`. Any
/// container and codec FFmpeg reads, of any length (no one-minute limit). Sendable as its base; `url` is immutable.
open class SFSpeechURLRecognitionRequest: SFSpeechRecognitionRequest, @unchecked Sendable {
    /// The file.
    public let url: URL

    /// A request to recognize the speech in the file at `URL`.
    public init(url URL: URL) {
        url = URL
    }

    override var audioSource: LegacyAudioSource { .file(url) }
}

/// A request to recognize live audio or audio you have in buffers, as Apple's
/// `SFSpeechAudioBufferRecognitionRequest`: `append(_:)` buffers as they come (from an `AVAudioEngine` tap, a file,
/// a network stream), then `endAudio()`. Sendable as its base; appending is thread-safe (`LegacyAudioChannel`).
open class SFSpeechAudioBufferRecognitionRequest: SFSpeechRecognitionRequest, @unchecked Sendable {
    let channel = LegacyAudioChannel()

    /// An empty request: append buffers, then call `endAudio()`.
    public override init() {}

    /// The format recognition works in (16 kHz mono Float32). Buffers in any PCM format are accepted and converted.
    public var nativeAudioFormat: AVAudioFormat { MonoAudio.format() }

    /// Adds audio to recognize, in any PCM format (converted as it comes; a change of format mid-stream is
    /// allowed). Audio appended after `endAudio()` is ignored, as Apple's.
    public func append(_ audioPCMBuffer: AVAudioPCMBuffer) {
        channel.append(audioPCMBuffer)
    }

    /// Marks the end of the audio: the task finishes recognizing what was appended and delivers its final result.
    public func endAudio() {
        channel.end()
    }

    override var audioSource: LegacyAudioSource { .buffers(channel) }
}
