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
        var allowHapticsDuringRecording = false
    }

    private init() {}

    /// The session shared by the whole process.
    public static func sharedInstance() -> AVAudioSession { shared }

    /// An audio session category, as on iOS.
    public struct Category: RawRepresentable, Hashable, Sendable {
        /// The category's name, as iOS spells it.
        public let rawValue: String
        /// A category with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Audio that mixes with other apps' and is silenced by the ring switch.
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        /// The default category: playback that silences other apps.
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        /// Playback that continues when the screen locks and the ring switch is on.
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        /// Recording only.
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        /// Recording and playback, as for voice over IP or speech recognition with prompts.
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        /// Input and output routed to several devices at once.
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    /// An audio session mode, as on iOS.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        /// The mode's name, as iOS spells it.
        public let rawValue: String
        /// A mode with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The default mode, with no special signal processing.
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        /// Two-way voice communication, such as voice over IP.
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        /// Voice chat in games.
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        /// Recording video.
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        /// Measurement, with the least system signal processing of input and output.
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        /// Playing movies.
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        /// Video conferencing.
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        /// Spoken content such as podcasts and audiobooks.
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        /// Short spoken prompts, such as navigation instructions.
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    /// Options of a category, as on iOS.
    public struct CategoryOptions: OptionSet, Hashable, Sendable {
        /// The options' bits.
        public let rawValue: UInt
        /// Options with these bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Mix with other apps' audio.
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        /// Lower other apps' audio while this session plays.
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        /// Allow Bluetooth hands-free devices as inputs and outputs.
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        /// Play through the speaker rather than the receiver by default.
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        /// Pause spoken audio of other apps, and mix with the rest.
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        /// Allow Bluetooth A2DP devices as outputs.
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        /// Allow AirPlay devices as outputs.
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        /// Keep the session going when the microphone is muted in hardware.
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
    }

    /// Options of `setActive(_:options:)`, as on iOS.
    public struct SetActiveOptions: OptionSet, Hashable, Sendable {
        /// The options' bits.
        public let rawValue: UInt
        /// Options with these bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// When deactivating, tell other apps they may resume their audio.
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// Whether the app may record, as on iOS (deprecated there in favour of `AVAudioApplication`).
    public enum RecordPermission: UInt, Sendable {
        /// The user has not been asked yet. Never reported on Linux.
        case undetermined = 0x756e_6474  // 'undt'
        /// The user refused. Never reported on Linux.
        case denied = 0x6465_6e79  // 'deny'
        /// The app may record: always the permission on Linux.
        case granted = 0x6772_6e74  // 'grnt'
    }

    /// A kind of audio port, as on iOS.
    public struct Port: RawRepresentable, Hashable, Sendable {
        /// The port kind's name, as iOS spells it.
        public let rawValue: String
        /// A port kind with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A built-in microphone; ours for any source not on USB or Bluetooth that is not a monitor.
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        /// A microphone on a wired headset. OpenSpeech never reports it.
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        /// A line-level input. OpenSpeech never reports it.
        public static let lineIn = Port(rawValue: "LineIn")
        /// A USB audio device.
        public static let usbAudio = Port(rawValue: "USBAudio")
        /// A Bluetooth hands-free device.
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        /// A virtual device; ours for PulseAudio monitor sources, which record what an output plays.
        public static let virtual = Port(rawValue: "Virtual")
    }

    /// The category last set (recorded only on Linux).
    public var category: Category { state.withLock { $0.category } }
    /// The mode last set (recorded only on Linux).
    public var mode: Mode { state.withLock { $0.mode } }
    /// The category options last set (recorded only on Linux).
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
        let input = AudioInputs.opened(among: sources)
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
    /// The sample rate last asked for with `setPreferredSampleRate(_:)`; 0 until then.
    public var preferredSampleRate: Double { state.withLock { $0.preferredSampleRate } }

    /// Recorded only: taps receive buffers of the size they ask for.
    public func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        state.withLock { $0.preferredIOBufferDuration = duration }
    }
    /// The buffer duration last asked for with `setPreferredIOBufferDuration(_:)`; 0 until then.
    public var preferredIOBufferDuration: TimeInterval { state.withLock { $0.preferredIOBufferDuration } }

    /// Whether haptics and system sounds play while recording: recorded only on Linux, false until set.
    public var allowHapticsAndSystemSoundsDuringRecording: Bool { state.withLock { $0.allowHapticsDuringRecording } }

    /// Records whether haptics and system sounds play while recording (it changes nothing on Linux).
    public func setAllowHapticsAndSystemSoundsDuringRecording(_ inValue: Bool) throws {
        state.withLock { $0.allowHapticsDuringRecording = inValue }
    }
}

/// The ports of an audio route, as on iOS.
public final class AVAudioSessionRouteDescription: Sendable {
    /// The inputs of the route: at most the one input engines open.
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

    /// Whether two ports are the same source, by `uid`.
    public static func == (lhs: AVAudioSessionPortDescription, rhs: AVAudioSessionPortDescription) -> Bool {
        lhs.uid == rhs.uid
    }

    /// The source's name on the server, then its description in parentheses.
    public var description: String { "\(uid) (\(portName))" }
}
