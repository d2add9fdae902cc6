import Foundation

/// A custom language model, as Apple's `SFSpeechLanguageModel`: `prepareCustomLanguageModel` turns training data
/// exported by `SFCustomLanguageModelData.export(to:)` into the language model and vocabulary files a
/// `Configuration` names; give that configuration to `SFSpeechRecognitionRequest.customizedLanguageModel` or
/// `DictationTranscriber.ContentHint.customizedLanguage(modelConfiguration:)`.
///
/// Differs from Apple's: Whisper models are not retrained. Preparing compiles the data into its distinct phrases
/// with their counts and its terms (JSON files of ours); recognition gives the terms, then the most frequent
/// phrases, to the model as contextual strings. Pronunciations are kept but unused. The client identifier is
/// recorded in the model file.
public final class SFSpeechLanguageModel: NSObject, Sendable {
    /// An instance; the class's work is done by its static methods.
    public override init() {}

    // MARK: async

    /// Prepares the language model (and vocabulary) `configuration` names from the training data at `asset`.
    /// Does nothing if they were already prepared from the same data for the same client.
    public static func prepareCustomLanguageModel(for asset: URL, clientIdentifier: String,
                                                  configuration: Configuration) async throws {
        try CustomLanguageModelCompiler.prepare(asset: asset, clientIdentifier: clientIdentifier,
                                                configuration: configuration, ignoresCache: false)
    }

    /// Prepares the language model (and vocabulary) from the training data at `asset`; with `ignoresCache`,
    /// prepares them again even if they are up to date.
    public static func prepareCustomLanguageModel(for asset: URL, clientIdentifier: String,
                                                  configuration: Configuration, ignoresCache: Bool) async throws {
        try CustomLanguageModelCompiler.prepare(asset: asset, clientIdentifier: clientIdentifier,
                                                configuration: configuration, ignoresCache: ignoresCache)
    }

    /// Prepares the language model (and vocabulary) from the training data at `asset`, for this program.
    public static func prepareCustomLanguageModel(for asset: URL, configuration: Configuration) async throws {
        try CustomLanguageModelCompiler.prepare(asset: asset, clientIdentifier: defaultClientIdentifier,
                                                configuration: configuration, ignoresCache: false)
    }

    /// Prepares the language model (and vocabulary) from the training data at `asset`, for this program; with
    /// `ignoresCache`, prepares them again even if they are up to date.
    public static func prepareCustomLanguageModel(for asset: URL, configuration: Configuration,
                                                  ignoresCache: Bool) async throws {
        try CustomLanguageModelCompiler.prepare(asset: asset, clientIdentifier: defaultClientIdentifier,
                                                configuration: configuration, ignoresCache: ignoresCache)
    }

    // MARK: Completion handlers

    /// As the `async` form; `completion` gets nil or the error, on a background thread.
    public static func prepareCustomLanguageModel(for asset: URL, clientIdentifier: String,
                                                  configuration: Configuration,
                                                  completion: @escaping ((any Error)?) -> Void) {
        complete(completion) {
            try await prepareCustomLanguageModel(for: asset, clientIdentifier: clientIdentifier,
                                                 configuration: configuration)
        }
    }

    /// As the `async` form; `completion` gets nil or the error, on a background thread.
    public static func prepareCustomLanguageModel(for asset: URL, clientIdentifier: String,
                                                  configuration: Configuration, ignoresCache: Bool,
                                                  completion: @escaping ((any Error)?) -> Void) {
        complete(completion) {
            try await prepareCustomLanguageModel(for: asset, clientIdentifier: clientIdentifier,
                                                 configuration: configuration, ignoresCache: ignoresCache)
        }
    }

    /// As the `async` form; `completion` gets nil or the error, on a background thread.
    public static func prepareCustomLanguageModel(for asset: URL, configuration: Configuration,
                                                  completion: @escaping ((any Error)?) -> Void) {
        complete(completion) {
            try await prepareCustomLanguageModel(for: asset, configuration: configuration)
        }
    }

    /// As the `async` form; `completion` gets nil or the error, on a background thread.
    public static func prepareCustomLanguageModel(for asset: URL, configuration: Configuration, ignoresCache: Bool,
                                                  completion: @escaping ((any Error)?) -> Void) {
        complete(completion) {
            try await prepareCustomLanguageModel(for: asset, configuration: configuration, ignoresCache: ignoresCache)
        }
    }

    /// The client identifier of the forms without one: the program's bundle identifier, else its name.
    static var defaultClientIdentifier: String {
        Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    }

    /// Runs `work` in a task and calls `completion` with its error (nil on success).
    private static func complete(_ completion: @escaping ((any Error)?) -> Void,
                                 _ work: @escaping @Sendable () async throws -> Void) {
        // Apple's handlers are not `@Sendable`; the handler is called once, from the task.
        nonisolated(unsafe) let completion = completion
        Task.detached {
            do {
                try await work()
                completion(nil)
            } catch {
                completion(error)
            }
        }
    }
}
