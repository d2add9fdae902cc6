import Foundation
import Synchronization

/// The index of a node's input or output bus, as in AVFoundation.
public typealias AVAudioNodeBus = Int

/// Called with each buffer a tap captures and the time of its first frame, as in AVFoundation: on a thread of the
/// engine's (never the main thread or Swift's cooperative pool), one call at a time. Not `@Sendable`, as Apple's is
/// not, so blocks that capture `self` compile in Swift 5 and Swift 6 language modes. As with Apple's engine, a block
/// formed in a main-actor context (a `@MainActor` type, or top-level code in Swift 6 mode) is checked at run time to
/// run on the main actor and traps when called: form it in a nonisolated function.
public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void

/// An audio processing node of an `AVAudioEngine`, as in AVFoundation.
///
/// On Linux only the engine's input node carries audio: taps on other nodes are accepted but never called.
/// `@unchecked Sendable` (not declared so by Apple, but used across threads the same way): all mutable state is in a
/// `Mutex`; the subclasses in this module add only constants and state behind a `Mutex` of their own.
public class AVAudioNode: @unchecked Sendable {
    private let taps = Mutex<[AVAudioNodeBus: AudioTap]>([:])
    private let owner = Mutex<WeakEngine>(WeakEngine())

    init() {}

    /// The engine the node belongs to, if any.
    public var engine: AVAudioEngine? { owner.withLock { $0.engine } }

    func attach(to engine: AVAudioEngine?) { owner.withLock { $0.engine = engine } }

    /// The number of input buses: 1 here.
    public var numberOfInputs: Int { 1 }
    /// The number of output buses: 1 here.
    public var numberOfOutputs: Int { 1 }

    /// The format of the node's output on `bus`.
    public func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { .noDevice }

    /// The format of the node's input on `bus`.
    public func inputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat { outputFormat(forBus: bus) }

    /// Installs `tapBlock` on the output `bus`: while the engine runs it receives the node's audio in buffers of about
    /// `bufferSize` frames (here exactly, except the last before a gap or a stop), in `format` (nil, or the node's
    /// output format, for the audio as captured; another PCM format is converted to — Apple's engine would raise an
    /// exception instead). A second tap on the same bus replaces the first (Apple's raises).
    public func installTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                           block tapBlock: @escaping AVAudioNodeTapBlock) {
        let tap = AudioTap(bufferSize: max(bufferSize, 16), format: format, block: tapBlock)
        taps.withLock { $0[bus] = tap }
    }

    /// Removes the tap on `bus`. Once this returns, its block is not called again (unless called from inside the
    /// block itself, which then finishes its current call).
    public func removeTap(onBus bus: AVAudioNodeBus) {
        _ = taps.withLock { $0.removeValue(forKey: bus) }
        engine?.waitForTapCallbacks()
    }

    /// Clears the node's internal state; nothing to clear here.
    public func reset() {}

    /// The taps installed now.
    var installedTaps: [AVAudioNodeBus: AudioTap] { taps.withLock { $0 } }

    struct WeakEngine: @unchecked Sendable {
        // Sendable: only read and written inside the node's Mutex; AVAudioEngine itself is Sendable.
        weak var engine: AVAudioEngine?
    }
}

/// A tap as installed: the client's block with its buffer size and format.
///
/// `@unchecked Sendable` because the block is not `@Sendable` (Apple's API): it is called only by the engine's
/// delivery thread, one call at a time, never concurrently with itself — the contract Apple's engine gives the same
/// blocks.
final class AudioTap: @unchecked Sendable {
    let bufferSize: AVAudioFrameCount
    let format: AVAudioFormat?
    let block: AVAudioNodeTapBlock

    init(bufferSize: AVAudioFrameCount, format: AVAudioFormat?, block: @escaping AVAudioNodeTapBlock) {
        self.bufferSize = bufferSize
        self.format = format
        self.block = block
    }
}

/// A node that connects to the audio hardware, as in AVFoundation.
public class AVAudioIONode: AVAudioNode, @unchecked Sendable {
    private let voiceProcessing = Mutex(false)

    /// The latency the hardware adds, in seconds; not measured here (0).
    public var presentationLatency: TimeInterval { 0 }

    /// Whether voice processing (echo cancellation, noise suppression, gain control) is on. On Linux the setting is
    /// recorded but the audio is captured as the sound server gives it (PulseAudio's `module-echo-cancel` provides a
    /// processed source to choose with `AVAudioSession.setPreferredInput`).
    public var isVoiceProcessingEnabled: Bool { voiceProcessing.withLock { $0 } }

    /// Turns voice processing on or off (recorded only; see `isVoiceProcessingEnabled`). Never throws here.
    public func setVoiceProcessingEnabled(_ enabled: Bool) throws {
        voiceProcessing.withLock { $0 = enabled }
    }
}

/// The engine's connection to the audio input — on Linux, a PulseAudio source: the session's preferred input, else
/// `PULSE_SOURCE`, else the server's default source.
///
/// `outputFormat(forBus: 0)` is the source's own rate and channel count in Float32, deinterleaved; Float32 at 0 Hz
/// with 0 channels when no server or input is reachable (as Apple's reports with no input device).
public final class AVAudioInputNode: AVAudioIONode, @unchecked Sendable {
    private let knownFormat = Mutex<AVAudioFormat?>(nil)
    /// The source this node always captures (a capture session's device), if not the session's choice.
    private let fixedSource: String?

    init(source: String? = nil) {
        fixedSource = source
        super.init()
    }

    /// The source to open: the fixed one, else the session's preferred input or `PULSE_SOURCE` (nil: the default).
    var sourceName: String? { fixedSource ?? AudioInputs.selectedSourceName() }

    override public func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        if let format = knownFormat.withLock({ $0 }) { return format }
        let format = AudioInputs.format(ofSource: sourceName) ?? .noDevice
        if format != .noDevice { knownFormat.withLock { $0 = format } }
        return format
    }

    override public var numberOfInputs: Int { 0 }

    private let processingSettings = Mutex((bypassed: false, gainControl: true, muted: false))

    /// Whether voice processing is bypassed. Recorded only, as voice processing itself (`isVoiceProcessingEnabled`).
    public var isVoiceProcessingBypassed: Bool {
        get { processingSettings.withLock { $0.bypassed } }
        set { processingSettings.withLock { $0.bypassed = newValue } }
    }

    /// Whether voice processing's automatic gain control is on. Recorded only.
    public var isVoiceProcessingAGCEnabled: Bool {
        get { processingSettings.withLock { $0.gainControl } }
        set { processingSettings.withLock { $0.gainControl = newValue } }
    }

    /// Whether voice processing mutes the input. Recorded only: the captured audio is not silenced.
    public var isVoiceProcessingInputMuted: Bool {
        get { processingSettings.withLock { $0.muted } }
        set { processingSettings.withLock { $0.muted = newValue } }
    }

    /// Records the format of the source the engine opened.
    func remember(_ format: AVAudioFormat) { knownFormat.withLock { $0 = format } }
}

/// The engine's connection to the audio output. On Linux nothing is played: it exists for code that refers to it.
public final class AVAudioOutputNode: AVAudioIONode, @unchecked Sendable {
    override public func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    }

    override public var numberOfOutputs: Int { 0 }
}

/// A mixer node, as in AVFoundation. On Linux it exists for code that refers to `mainMixerNode`; it mixes nothing.
public final class AVAudioMixerNode: AVAudioNode, @unchecked Sendable {
    private let volumeValue = Mutex<Float>(1)

    override public func outputFormat(forBus bus: AVAudioNodeBus) -> AVAudioFormat {
        AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
    }

    /// The output volume, 0 to 1 (recorded only).
    public var outputVolume: Float {
        get { volumeValue.withLock { $0 } }
        set { volumeValue.withLock { $0 = min(max(newValue, 0), 1) } }
    }
}
