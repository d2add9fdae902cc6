import Foundation

/// Whether the app may capture a kind of media, as AVFoundation's `AVAuthorizationStatus`.
public enum AVAuthorizationStatus: Int, Sendable {
    case notDetermined = 0
    case restricted = 1
    case denied = 2
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
