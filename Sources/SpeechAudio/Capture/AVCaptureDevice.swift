import Foundation

/// Whether the app may capture a kind of media, as AVFoundation's `AVAuthorizationStatus`.
public enum AVAuthorizationStatus: Int, Sendable {
    /// The user has not been asked yet. Never reported on Linux.
    case notDetermined = 0
    /// The device forbids access. Never reported on Linux.
    case restricted = 1
    /// The user refused. Never reported on Linux.
    case denied = 2
    /// Access is allowed: always the status on Linux.
    case authorized = 3
}

/// A capture device, as AVFoundation's `AVCaptureDevice`: on Linux a PulseAudio input (a microphone, or the monitor
/// of an output), found with `default(for:)`, `default(_:for:position:)`, `init(uniqueID:)` or a `DiscoverySession`,
/// and captured by an `AVCaptureSession`. Also the permission methods macOS tools call: Linux has no per-app media
/// permission, so access is `.authorized` (whether a microphone exists shows when capture starts).
public final class AVCaptureDevice: NSObject, Sendable {
    /// A kind of device, as AVFoundation's `AVCaptureDevice.DeviceType`.
    public struct DeviceType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// A microphone (every audio input on Linux is reported as one).
        public static let microphone = DeviceType(rawValue: "AVCaptureDeviceTypeMicrophone")
        /// The name Apple deprecated for `microphone`; the same devices here.
        public static let builtInMicrophone = DeviceType(rawValue: "AVCaptureDeviceTypeBuiltInMicrophone")
        /// An external device; the same devices as `microphone` here.
        public static let external = DeviceType(rawValue: "AVCaptureDeviceTypeExternal")
    }

    /// Where a device faces, as AVFoundation's `AVCaptureDevice.Position`: always `.unspecified` for audio.
    public enum Position: Int, Sendable {
        case unspecified = 0
        case back = 1
        case front = 2
    }

    /// The sound server's name for the input (`alsa_input.usb-...`): what `init(uniqueID:)` takes.
    public let uniqueID: String
    /// A person's name for the input ("Built-in Audio Analog Stereo").
    public let localizedName: String
    /// Always `.microphone`.
    public let deviceType: DeviceType = .microphone
    /// Always `.unspecified`.
    public let position: Position = .unspecified

    init(source: AudioSource) {
        uniqueID = source.name
        localizedName = source.description
    }

    /// The input named `uniqueID`, if the sound server has it.
    public convenience init?(uniqueID: String) {
        guard let source = (try? AudioInputs.all())?.first(where: { $0.name == uniqueID }) else { return nil }
        self.init(source: source)
    }

    /// The default audio input (the session's preferred input, else `PULSE_SOURCE`, else the server's default);
    /// nil for other media or when no sound server answers.
    public static func `default`(for mediaType: AVMediaType) -> AVCaptureDevice? {
        guard mediaType == .audio, let sources = try? AudioInputs.all(), !sources.isEmpty else { return nil }
        return AVCaptureDevice(source: AudioInputs.opened(among: sources) ?? sources[0])
    }

    /// The default device of `deviceType` for `mediaType`: the default audio input for any audio device type.
    public static func `default`(_ deviceType: DeviceType, for mediaType: AVMediaType?, position: Position) -> AVCaptureDevice? {
        guard mediaType == nil || mediaType == .audio else { return nil }
        return `default`(for: .audio)
    }

    /// Whether the device provides `mediaType`: only audio.
    public func hasMediaType(_ mediaType: AVMediaType) -> Bool { mediaType == .audio }

    /// Whether the sound server still has the input.
    public var isConnected: Bool { (try? AudioInputs.all())?.contains { $0.name == uniqueID } ?? false }

    override public func isEqual(_ object: Any?) -> Bool { (object as? AVCaptureDevice)?.uniqueID == uniqueID }
    override public var hash: Int { uniqueID.hashValue }

    /// A search for devices, as AVFoundation's `AVCaptureDevice.DiscoverySession`: every audio input, microphones
    /// first (for audio, whatever the device types and position).
    public final class DiscoverySession: NSObject, Sendable {
        /// The devices found when the session was made.
        public let devices: [AVCaptureDevice]

        public init(deviceTypes: [DeviceType], mediaType: AVMediaType?, position: Position) {
            devices = mediaType == nil || mediaType == .audio
                ? ((try? AudioInputs.all()) ?? []).map(AVCaptureDevice.init(source:)) : []
        }
    }

    /// Always `.authorized` on Linux.
    public static func authorizationStatus(for mediaType: AVMediaType) -> AVAuthorizationStatus { .authorized }

    /// Calls `handler` with true, on a background queue as Apple's does.
    public static func requestAccess(for mediaType: AVMediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { handler(true) }
    }

    /// True: access is granted on Linux.
    public static func requestAccess(for mediaType: AVMediaType) async -> Bool { true }
}
