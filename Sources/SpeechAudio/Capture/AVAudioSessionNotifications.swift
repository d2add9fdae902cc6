import Foundation

/// The session's notifications and their keys, as on iOS, so that apps observing them compile. On Linux nothing
/// interrupts a capture the way a phone call does on iOS (the sound server mixes every client), so OpenSpeech posts
/// none of them: a source that disappears ends `AVAudioEngine`'s capture with an error instead.
extension AVAudioSession {
    /// Posted on iOS when another app or the system interrupts the session. Never posted on Linux.
    public static let interruptionNotification =
        Notification.Name("AVAudioSessionInterruptionNotification")
    /// Posted on iOS when the audio route changes (a headset plugged in). Never posted on Linux.
    public static let routeChangeNotification =
        Notification.Name("AVAudioSessionRouteChangeNotification")
    /// Posted on iOS when the media server stops. Never posted on Linux.
    public static let mediaServicesWereLostNotification =
        Notification.Name("AVAudioSessionMediaServicesWereLostNotification")
    /// Posted on iOS when the media server restarts. Never posted on Linux.
    public static let mediaServicesWereResetNotification =
        Notification.Name("AVAudioSessionMediaServicesWereResetNotification")
    /// Posted on iOS when another app's primary audio starts or stops. Never posted on Linux.
    public static let silenceSecondaryAudioHintNotification =
        Notification.Name("AVAudioSessionSilenceSecondaryAudioHintNotification")

    /// Whether an interruption began or ended (`AVAudioSessionInterruptionTypeKey`), as on iOS.
    public enum InterruptionType: UInt, Sendable {
        /// The session was interrupted.
        case began = 1
        /// The interruption ended.
        case ended = 0
    }

    /// What an ended interruption allows (`AVAudioSessionInterruptionOptionKey`), as on iOS.
    public struct InterruptionOptions: OptionSet, Hashable, Sendable {
        /// The options' bits.
        public let rawValue: UInt
        /// Options with these bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The app may resume its audio.
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    /// Why an interruption began (`AVAudioSessionInterruptionReasonKey`), as on iOS.
    public enum InterruptionReason: UInt, Sendable {
        /// Another session took the audio hardware.
        case `default` = 0
        /// The app was suspended (deprecated on iOS).
        case appWasSuspended = 1
        /// The built-in microphone was muted.
        case builtInMicMuted = 2
        /// The route the session used was disconnected.
        case routeDisconnected = 4
    }

    /// Why the route changed (`AVAudioSessionRouteChangeReasonKey`), as on iOS.
    public enum RouteChangeReason: UInt, Sendable {
        /// The reason is unknown.
        case unknown = 0
        /// A device became available (a headset plugged in).
        case newDeviceAvailable = 1
        /// The device in use went away.
        case oldDeviceUnavailable = 2
        /// The category changed.
        case categoryChange = 3
        /// The route was overridden.
        case override = 4
        /// The device woke from sleep.
        case wakeFromSleep = 6
        /// No route suits the category.
        case noSuitableRouteForCategory = 7
        /// The configuration of the route changed.
        case routeConfigurationChange = 8
    }
}

extension AVAudioSession.CategoryOptions {
    /// Allow Bluetooth hands-free devices as inputs and outputs: iOS 26's name for `allowBluetooth`.
    public static let allowBluetoothHFP = AVAudioSession.CategoryOptions.allowBluetooth
}

/// The `userInfo` key of an interruption's `AVAudioSession.InterruptionType` raw value.
public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
/// The `userInfo` key of an ended interruption's `AVAudioSession.InterruptionOptions` raw value.
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
/// The `userInfo` key of an interruption's `AVAudioSession.InterruptionReason` raw value.
public let AVAudioSessionInterruptionReasonKey = "AVAudioSessionInterruptionReasonKey"
/// The `userInfo` key of a route change's `AVAudioSession.RouteChangeReason` raw value.
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
/// The `userInfo` key of the `AVAudioSessionRouteDescription` a route change left.
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
