import Foundation
import OpenSpeech
import Synchronization

/// What `transcribe` says on stderr as its inputs go through, each named as given (`-` for stdin): the stage and
/// progress (`ProgressLine`), the language detected, the model that transcribes and its compute type (once, and
/// again when another model takes over: a language detected in another file), each warning once; and a failure as
/// one line. Under `--quiet` only failures are said.
final class TranscriptionMessages: Sendable {
    private let quiet: Bool
    let progress: ProgressLine
    /// The files transcribed (for stdin, its temporary copy) and the inputs' names as given, in order.
    private let inputs: [(url: URL, name: String)]
    private let state = Mutex<(model: String?, warnings: Set<String>)>((nil, []))

    init(quiet: Bool, inputs: [(url: URL, name: String)]) {
        self.quiet = quiet
        self.inputs = inputs
        progress = ProgressLine(enabled: !quiet)
    }

    /// Says what `event` of the transcription of `url` tells the user.
    func report(_ event: FileTranscriber.Event, of url: URL) {
        let index = inputs.firstIndex { $0.url == url }
        let name = index.map { inputs[$0].name } ?? url.path
        switch event {
        case .installing(let fraction):
            progress.show("installing models", fraction)
        case .progress(let fraction):
            let position = inputs.count > 1 ? " (\((index ?? 0) + 1) of \(inputs.count))" : ""
            let file = name == "-" ? "stdin" : URL(fileURLWithPath: name).lastPathComponent
            progress.show("transcribing \(file)\(position)", fraction)
        case .warning(let message):
            let text = named(message)
            guard state.withLock({ $0.warnings.insert(text).inserted }) else { return }
            say("warning: \(text)")
        case .languageDetected(let detected):
            say("\(name): detected \(detected)")
        case .model(let id, let computeType):
            let model = computeType.map { "\(id), compute type \($0)" } ?? id
            guard state.withLock({ state in
                defer { state.model = model }
                return state.model != model
            }) else { return }
            say("model \(model)")
        case .finalText:
            break
        }
    }

    /// Says that `input` failed with `error`: one line naming the input (unless the message names it already).
    func failure(_ error: any Error, input: String) {
        progress.clear()
        FileHandle.standardError.write(Data("openspeech: \(sentence(error, input: input))\n".utf8))
    }

    /// `error` as one line naming `input` (unless the message names it already), as `failure` says it.
    func sentence(_ error: any Error, input: String) -> String {
        let message = named(String(describing: error))
        return message.contains(input) ? message : "\(input): \(message)"
    }

    /// A message on its own line, the progress line cleared first; nothing under `--quiet`.
    func say(_ message: String) {
        guard !quiet else { return }
        progress.clear()
        FileHandle.standardError.write(Data("openspeech: \(message)\n".utf8))
    }

    /// `message` on one line, with each transcribed file's path replaced by the input's name as given (stdin's
    /// temporary copy is `-`).
    private func named(_ message: String) -> String {
        inputs.reduce(message.replacingOccurrences(of: "\n", with: " ")) { text, input in
            input.url.path == input.name ? text : text.replacingOccurrences(of: input.url.path, with: input.name)
        }
    }
}
