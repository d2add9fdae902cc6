import Foundation
import Synchronization

/// Information that helps analysis, as in Apple's Speech: words and names likely to be spoken, and data for
/// your own use. Contextual strings are given to the transcriber's model as a prompt, which makes it likelier
/// to spell those names and words as written.
public final class AnalysisContext: Sendable {
    /// A category of contextual strings.
    public struct ContextualStringsTag: Hashable, Sendable, RawRepresentable {
        /// The tag's name.
        public let rawValue: String
        /// A tag with this name.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A tag with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Strings for any part of the audio.
        public static let general = ContextualStringsTag("general")
        /// The terms and phrases of custom language models (`SFSpeechLanguageModel`), added by OpenSpeech.
        static let customLanguageModel = ContextualStringsTag("customLanguageModel")
    }

    /// A key for data of your own.
    public struct UserDataTag: Hashable, Sendable, RawRepresentable {
        /// The tag's name.
        public let rawValue: String
        /// A tag with this name.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// A tag with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
    }

    private let state = Mutex<(strings: [ContextualStringsTag: [String]], data: [UserDataTag: any Sendable])>(([:], [:]))

    /// An empty context: no contextual strings, no user data.
    public init() {}

    /// Words and phrases likely to be spoken, by category.
    public var contextualStrings: [ContextualStringsTag: [String]] {
        get { state.withLock { $0.strings } }
        set { state.withLock { $0.strings = newValue } }
    }

    /// Data of your own, carried with the context.
    public var userData: [UserDataTag: any Sendable] {
        get { state.withLock { $0.data } }
        set { state.withLock { $0.data = newValue } }
    }

    /// Every contextual string, in tag order then given order, without duplicates.
    var allContextualStrings: [String] {
        var seen = Set<String>()
        return contextualStrings.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap(\.value)
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
