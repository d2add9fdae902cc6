import Foundation
import SpeechAssets
import Synchronization

/// Whether the app may use speech recognition, as Apple's `SFSpeechRecognizerAuthorizationStatus`.
public enum SFSpeechRecognizerAuthorizationStatus: Int, Sendable {
    /// The user has not been asked yet. OpenSpeech never reports it.
    case notDetermined = 0
    /// The user refused. OpenSpeech never reports it.
    case denied = 1
    /// The device forbids recognition. OpenSpeech never reports it.
    case restricted = 2
    /// Recognition is allowed: always the status on Linux.
    case authorized = 3
}

/// Told when a recognizer's availability changes, as Apple's `SFSpeechRecognizerDelegate`. Its method is optional,
/// as Apple's. In OpenSpeech availability does not change while the process runs (recognition needs no network),
/// so the method is not called.
public protocol SFSpeechRecognizerDelegate: AnyObject {
    /// Tells the delegate the recognizer became available or unavailable; never called in OpenSpeech.
    func speechRecognizer(_ speechRecognizer: SFSpeechRecognizer, availabilityDidChange available: Bool)
}

extension SFSpeechRecognizerDelegate {
    /// Does nothing, making the method optional as in Apple's protocol.
    public func speechRecognizer(_ speechRecognizer: SFSpeechRecognizer, availabilityDidChange available: Bool) {}
}

/// Recognizes speech in one language, as Apple's `SFSpeechRecognizer` (iOS 10+): a layer over `SpeechAnalyzer` and
/// `SpeechTranscriber` with the same models, files and buffers in, results through a handler or a delegate.
///
/// Differs from Apple's: recognition always runs on the device, with no network, no one-minute limit and no Siri
/// setting; authorization is always granted; the locale's model must be installed (`openspeech models install`,
/// or `AssetInventory`), else the task fails with `SFSpeechError.Code.noModel` naming the command. Not an
/// `NSObject` (Swift on Linux cannot make `NSObject`'s `init()` failable, as Apple's `init?()` is). Sendable: its
/// settings are behind a lock, so a recognizer may be shared between tasks and actors.
open class SFSpeechRecognizer: @unchecked Sendable {
    /// The language recognized.
    public let locale: Locale
    /// Where models are looked for.
    let store: ModelStore
    /// The supported locale `locale` is transcribed as (the same, or the same language in another region).
    let transcriptionLocale: Locale

    /// The settings a client may change. `@unchecked Sendable` (the delegate and queue are not Sendable): they are
    /// only read and written under `settings`' lock, and the delegate is only held (weakly), never called.
    private struct Settings: @unchecked Sendable {
        weak var delegate: (any SFSpeechRecognizerDelegate)?
        var queue = OperationQueue.main
        var defaultTaskHint = SFSpeechRecognitionTaskHint.unspecified
        var supportsOnDeviceRecognition = true
    }
    private let settings = Mutex(Settings())

    /// Told when availability changes.
    open var delegate: (any SFSpeechRecognizerDelegate)? {
        get { settings.withLock { $0.delegate } }
        set { settings.withLock { $0.delegate = newValue } }
    }
    /// The queue results and delegate calls are delivered on (default: the main operation queue, as Apple's). A
    /// command-line tool that waits on its main thread without running it (a semaphore) sets another queue.
    open var queue: OperationQueue {
        get { settings.withLock { $0.queue } }
        set { settings.withLock { $0.queue = newValue } }
    }
    /// The hint requests get when theirs is `.unspecified`.
    open var defaultTaskHint: SFSpeechRecognitionTaskHint {
        get { settings.withLock { $0.defaultTaskHint } }
        set { settings.withLock { $0.defaultTaskHint = newValue } }
    }
    /// Whether recognition can run on the device: true in OpenSpeech.
    open var supportsOnDeviceRecognition: Bool {
        get { settings.withLock { $0.supportsOnDeviceRecognition } }
        set { settings.withLock { $0.supportsOnDeviceRecognition = newValue } }
    }

    /// A recognizer for the user's current locale; nil when no model transcribes its language. A locale without a
    /// language (the POSIX locale of a bare Linux environment) counts as US English.
    public convenience init?() {
        let current = Locale.current
        self.init(locale: current.language.languageCode == nil ? Locale(identifier: "en-US") : current)
    }

    /// A recognizer for `locale`; nil when no model transcribes its language.
    public convenience init?(locale: Locale) {
        self.init(locale: locale, store: ModelStore())
    }

    init?(locale: Locale, store: ModelStore) {
        guard let supported = LocaleModelResolver(catalog: store.catalog).supportedLocale(equivalentTo: locale) else {
            return nil
        }
        self.locale = locale
        self.store = store
        transcriptionLocale = supported
    }

    /// Whether recognition can run now: true (it needs no network or service).
    open var isAvailable: Bool { true }

    /// Every locale a catalog model transcribes.
    open class func supportedLocales() -> Set<Locale> {
        Set(LocaleModelResolver(catalog: ModelStore().catalog).supportedLocales)
    }

    /// Always `.authorized`: recognition runs on the device and no data leaves it.
    open class func authorizationStatus() -> SFSpeechRecognizerAuthorizationStatus { .authorized }

    /// Calls `handler` with `.authorized`, on a background queue as Apple's does.
    open class func requestAuthorization(_ handler: @escaping (SFSpeechRecognizerAuthorizationStatus) -> Void) {
        let callback = LegacyCallback(handler)
        DispatchQueue.global().async { callback.value(.authorized) }
    }

    /// Starts recognizing `request`'s audio; `resultHandler` gets partial results (if the request asks for them),
    /// then the final result, or an error (with a nil result), on `queue`.
    @discardableResult
    open func recognitionTask(with request: SFSpeechRecognitionRequest,
                              resultHandler: @escaping (SFSpeechRecognitionResult?, (any Error)?) -> Void)
        -> SFSpeechRecognitionTask {
        SFSpeechRecognitionTask(recognition: recognition(of: request), queue: queue,
                                receiver: .handler(LegacyCallback(resultHandler)))
    }

    /// Starts recognizing `request`'s audio, telling `delegate` (held until the task ends) on `queue`.
    @discardableResult
    open func recognitionTask(with request: SFSpeechRecognitionRequest, delegate: any SFSpeechRecognitionTaskDelegate)
        -> SFSpeechRecognitionTask {
        SFSpeechRecognitionTask(recognition: recognition(of: request), queue: queue,
                                receiver: .delegate(LegacyCallback(delegate)))
    }

    /// The request's settings, read now as Apple reads them when the task starts.
    private func recognition(of request: SFSpeechRecognitionRequest) -> LegacyRecognition {
        LegacyRecognition(
            locale: transcriptionLocale, source: request.audioSource,
            partialResults: request.shouldReportPartialResults, punctuation: request.addsPunctuation,
            contextualStrings: request.contextualStrings, customLanguageModel: request.customizedLanguageModel,
            store: store)
    }
}
