import ArgumentParser
import Foundation

/// `--vocabulary FILE` and `--context "a, b, c"`: words and phrases to favour, given to the analyzer as its context's
/// contextual strings (the model's prompt and the decoder's boost). Shared by `transcribe` and `listen`.
struct VocabularyOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "A file of words and phrases to favour (names, jargon), one per line; blank lines and lines starting with # are skipped.",
        valueName: "file"), completion: .file())
    var vocabulary: String?

    @Option(help: ArgumentHelp("Words and phrases to favour, separated by commas, e.g. \"Kubernetes, Nguyen, ETL\".",
                               valueName: "phrases"))
    var context: String?

    /// The phrases of both options, file first, each once, in the order given. Throws `CommandFailure` when the file
    /// cannot be read or is not UTF-8 text.
    func phrases() throws -> [String] {
        var phrases: [String] = []
        if let vocabulary {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: vocabulary))
            } catch {
                throw CommandFailure("cannot read the vocabulary file \(vocabulary): \(error.localizedDescription)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw CommandFailure("the vocabulary file \(vocabulary) is not UTF-8 text; give one phrase per line.")
            }
            phrases += text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        }
        if let context {
            phrases += context.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        var seen = Set<String>()
        return phrases.filter { seen.insert($0).inserted }
    }
}
