import Foundation

/// An error from the speech framework, with Apple's `SFSpeechError.Code` cases.
///
/// Apple's `SFSpeechError` is an `NSError` wrapper; ours is a plain Swift error carrying the same codes and,
/// unlike Apple's, always a sentence a person can act on (`description` / `localizedDescription`).
/// Catch it as Apple code does: `catch let error as SFSpeechError where error.code == .noModel`.
public struct SFSpeechError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// Apple's error codes. The raw values are ours; compare cases, not numbers.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// Audio arrived out of order, overlapping or going back in time.
        case audioDisordered = 1
        /// A buffer's format differs from the one the analyzer was prepared for.
        case unexpectedAudioFormat = 2
        /// The model a module needs is not installed.
        case noModel = 3
        /// A module's locale is not reserved.
        case assetLocaleNotAllocated = 4
        /// More locales than `AssetInventory.maximumReservedLocales` would be reserved.
        case tooManyAssetLocalesAllocated = 5
        /// The modules need audio formats that no single format satisfies.
        case incompatibleAudioFormats = 6
        /// A module failed to produce output.
        case moduleOutputFailed = 7
        /// No model supports the locale.
        case cannotAllocateUnsupportedLocale = 8
        /// Not enough disk space or memory to continue.
        case insufficientResources = 9
        /// The audio system could not be set up for capture (macOS/iOS 27).
        case cannotConfigureAudioSystem = 18
        // The legacy `SFSpeechRecognizer` API's codes.
        /// Recognition failed inside the framework.
        case internalServiceError = 10
        /// The audio of a recognition request could not be read.
        case audioReadFailed = 11
        /// A custom language model template names an undefined class.
        case undefinedTemplateClassName = 12
        /// A custom language model file is malformed.
        case malformedSupplementalModel = 13
        /// Recognition did not finish in time.
        case timeout = 14
        /// A required parameter is missing.
        case missingParameter = 15
        /// The recognition task was cancelled. Apple reports this outside `SFSpeechError` (its assistant error
        /// domain, code 301 or 216); OpenSpeech gives it this code.
        case requestCanceled = 16
        /// The audio held no speech. Apple reports this outside `SFSpeechError` (its assistant error domain, code
        /// 1110); OpenSpeech gives it this code.
        case noSpeechDetected = 17
    }

    public static var errorDomain: String { "SFSpeechErrorDomain" }

    public let code: Code
    /// What happened and what to do about it.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}
