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

/// Capture permission as macOS tools ask for it, AVFoundation's `AVCaptureDevice` class methods. Linux has no
/// per-app media permission: access is `.authorized` (whether a microphone exists shows when `AVAudioEngine`
/// starts). Devices are listed by `AVAudioSession.availableInputs`.
public final class AVCaptureDevice: NSObject, Sendable {
    /// Always `.authorized` on Linux.
    public static func authorizationStatus(for mediaType: AVMediaType) -> AVAuthorizationStatus { .authorized }

    /// Calls `handler` with true, on a background queue as Apple's does.
    public static func requestAccess(for mediaType: AVMediaType, completionHandler handler: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { handler(true) }
    }

    /// True: access is granted on Linux.
    public static func requestAccess(for mediaType: AVMediaType) async -> Bool { true }
}
