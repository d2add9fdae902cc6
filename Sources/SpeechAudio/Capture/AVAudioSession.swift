import Foundation
import Synchronization

/// The app's audio session, as on iOS, with Linux semantics: the category, mode and options are accepted and
/// recorded (a desktop sound server mixes every client, so they change nothing); `setActive(true)` succeeds when a
/// sound server is reachable; record permission is always granted (Linux has no per-app microphone permission);
/// `availableInputs` lists the server's sources, and `setPreferredInput(_:)` chooses the one `AVAudioEngine` opens.
public final class AVAudioSession: Sendable {
    private static let shared = AVAudioSession()
    private let state = Mutex(State())

    private struct State {
        var category = Category.soloAmbient
        var mode = Mode.default
        var options: CategoryOptions = []
        var active = false
        var preferredInput: AVAudioSessionPortDescription?
        var preferredSampleRate: Double = 0
        var preferredIOBufferDuration: TimeInterval = 0
    }

    private init() {}

    /// The session shared by the whole process.
    public static func sharedInstance() -> AVAudioSession { shared }

    /// An audio session category, as on iOS.
    public struct Category: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    /// An audio session mode, as on iOS.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    /// Options of a category, as on iOS.
    public struct CategoryOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
    }

    /// Options of `setActive(_:options:)`, as on iOS.
    public struct SetActiveOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Whether the app may record, as on iOS (deprecated there in favour of `AVAudioApplication`).
    public enum RecordPermission: UInt, Sendable {
        case undetermined = 0x756e_6474  // 'undt'
        case denied = 0x6465_6e79  // 'deny'
        case granted = 0x6772_6e74  // 'grnt'
    }

    /// A kind of audio port, as on iOS.
    public struct Port: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        public static let lineIn = Port(rawValue: "LineIn")
        public static let usbAudio = Port(rawValue: "USBAudio")
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        public static let virtual = Port(rawValue: "Virtual")
    }

    public var category: Category { state.withLock { $0.category } }
    public var mode: Mode { state.withLock { $0.mode } }
    public var categoryOptions: CategoryOptions { state.withLock { $0.options } }

    /// Records the category (it changes nothing on Linux).
    public func setCategory(_ category: Category) throws {
        state.withLock { $0.category = category }
    }

    /// Records the category and options (they change nothing on Linux).
    public func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        state.withLock { $0.category = category; $0.options = options }
    }

    /// Records the category, mode and options (they change nothing on Linux).
    public func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        state.withLock { $0.category = category; $0.mode = mode; $0.options = options }
    }

    /// Records the mode.
    public func setMode(_ mode: Mode) throws { state.withLock { $0.mode = mode } }

    /// Activates or deactivates the session. Activation throws `AudioError.audioServerUnreachable` when no sound
    /// server answers (as Apple's throws when the audio hardware is unavailable); deactivation always succeeds.
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        if active { _ = try AudioInputs.defaultName() }
        state.withLock { $0.active = active }
    }

    /// Always `.granted` on Linux, where the sound server does not ask per application.
    public var recordPermission: RecordPermission { .granted }

    /// Calls `response` with true, at once, on the calling thread (Linux has no per-application microphone
    /// permission). The block need not be `@Sendable`: it is called before this returns.
    public func requestRecordPermission(_ response: @escaping (Bool) -> Void) { response(true) }

    /// Whether the sound server offers any input.
    public var isInputAvailable: Bool { ((try? AudioInputs.all()) ?? []).isEmpty == false }

    /// The sound server's inputs (PulseAudio sources; monitors of outputs last, as `.virtual` ports); nil when no
    /// server is reachable.
    public var availableInputs: [AVAudioSessionPortDescription]? {
        guard let sources = try? AudioInputs.all() else { return nil }
        return sources.map(AVAudioSessionPortDescription.init(source:))
    }

    /// The route audio takes now, as on iOS: `inputs` holds the input engines open (the preferred input, else the
    /// server's default); no outputs are listed. Empty when no server is reachable.
    public var currentRoute: AVAudioSessionRouteDescription {
        guard let sources = try? AudioInputs.all() else { return AVAudioSessionRouteDescription(inputs: []) }
        let name = AudioInputs.selectedSourceName() ?? (try? AudioInputs.defaultName())
        let input = sources.first { $0.name == name }
        return AVAudioSessionRouteDescription(inputs: input.map { [AVAudioSessionPortDescription(source: $0)] } ?? [])
    }

    /// The input `AVAudioEngine` opens from its next `start()`; nil for the server's default.
    public var preferredInput: AVAudioSessionPortDescription? { state.withLock { $0.preferredInput } }

    /// Chooses the input engines open from their next `start()` (nil: the server's default). The port should come
    /// from `availableInputs`; an input that no longer exists at `start()` makes it throw `.audioDeviceNotFound`.
    public func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws {
        state.withLock { $0.preferredInput = inPort }
    }

    /// The rate of the input engines open: the preferred or default source's; 0 when none is reachable.
    public var sampleRate: Double { AudioInputs.format(ofSource: AudioInputs.selectedSourceName())?.sampleRate ?? 0 }

    /// The channel count of that input; 0 when none is reachable.
    public var inputNumberOfChannels: Int {
        Int(AudioInputs.format(ofSource: AudioInputs.selectedSourceName())?.channelCount ?? 0)
    }

    /// Recorded only: capture runs at the input's own rate (convert with `AVAudioConverter` or a tap format).
    public func setPreferredSampleRate(_ sampleRate: Double) throws { state.withLock { $0.preferredSampleRate = sampleRate } }
    public var preferredSampleRate: Double { state.withLock { $0.preferredSampleRate } }

    /// Recorded only: taps receive buffers of the size they ask for.
    public func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        state.withLock { $0.preferredIOBufferDuration = duration }
    }
    public var preferredIOBufferDuration: TimeInterval { state.withLock { $0.preferredIOBufferDuration } }
}

/// The ports of an audio route, as on iOS.
public final class AVAudioSessionRouteDescription: Sendable {
    public let inputs: [AVAudioSessionPortDescription]
    /// Always empty on Linux (nothing is played).
    public let outputs: [AVAudioSessionPortDescription]

    init(inputs: [AVAudioSessionPortDescription]) {
        self.inputs = inputs
        outputs = []
    }
}

/// An audio input or output port, as on iOS: here a PulseAudio source.
public final class AVAudioSessionPortDescription: Sendable, Equatable, CustomStringConvertible {
    /// `.usbAudio`, `.bluetoothHFP` or `.virtual` (a monitor of an output) by the source's bus; else `.builtInMic`.
    public let portType: AVAudioSession.Port
    /// The source's description, for people.
    public let portName: String
    /// The source's name on the server: what `setPreferredInput(_:)` selects and `--device` takes.
    public let uid: String
    /// The source's channel count (not in Apple's API, which lists channel descriptions).
    public let channelCount: Int

    init(source: AudioSource) {
        portType = source.isMonitor ? .virtual
            : source.bus == "usb" ? .usbAudio : source.bus == "bluetooth" ? .bluetoothHFP : .builtInMic
        portName = source.description.isEmpty ? source.name : source.description
        uid = source.name
        channelCount = source.channelCount
    }

    public static func == (lhs: AVAudioSessionPortDescription, rhs: AVAudioSessionPortDescription) -> Bool {
        lhs.uid == rhs.uid
    }

    public var description: String { "\(uid) (\(portName))" }
}
