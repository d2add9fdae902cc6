import Foundation

/// App-wide audio settings, as in AVFoundation (iOS 17, macOS 14). On Linux, record permission is always granted:
/// the sound server does not ask per application, so there is nothing to request.
public final class AVAudioApplication: Sendable {
    /// The application's instance.
    public static let shared = AVAudioApplication()

    private init() {}

    /// Whether the app may record (Apple's type has this lowercase name).
    public enum recordPermission: Int, Sendable {
        /// The user has not been asked yet. Never reported on Linux.
        case undetermined = 0x756e_6474  // 'undt'
        /// The user refused. Never reported on Linux.
        case denied = 0x6465_6e79  // 'deny'
        /// The app may record: always the permission on Linux.
        case granted = 0x6772_6e74  // 'grnt'
    }

    /// Always `.granted` on Linux.
    public var recordPermission: recordPermission { .granted }

    /// Asks for permission to record: true at once on Linux.
    public static func requestRecordPermission() async -> Bool { true }

    /// Asks for permission to record, answering through `response`: with true, at once, on Linux.
    public static func requestRecordPermission(completionHandler response: @escaping (Bool) -> Void) {
        response(true)
    }
}
