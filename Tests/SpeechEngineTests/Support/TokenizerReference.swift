import Foundation
import TestSupport

/// Reference tokenizations from the Python `tokenizers` library (what faster-whisper uses), computed
/// at test time with the machine's `python3`.
enum TokenizerReference {
    private static let script = #"""
import json, sys
from tokenizers import Tokenizer
request = json.load(sys.stdin)
tok = Tokenizer.from_file(request["model"] + "/tokenizer.json")
out = {"encoded": [tok.encode(s, add_special_tokens=False).ids for s in request["texts"]],
       "decoded": [tok.decode(ids) for ids in request["ids"]]}
if request.get("nonSpeech"):
    from faster_whisper.tokenizer import Tokenizer as FWTokenizer
    out["nonSpeech"] = list(FWTokenizer(tok, True, "transcribe", "en").non_speech_tokens)
json.dump(out, sys.stdout)
"""#

    struct Answer {
        var encoded: [[Int]]
        var decoded: [String]
        var nonSpeech: [Int]
    }

    /// Encodes `texts` and decodes `ids` (special tokens skipped) with HF tokenizers.
    static func run(modelDirectory: URL, texts: [String], ids: [[Int]] = [], nonSpeech: Bool = false) throws -> Answer {
        let request: [String: Any] = ["model": modelDirectory.path, "texts": texts, "ids": ids, "nonSpeech": nonSpeech]
        let directory = try makeTemporaryDirectory("tokenizer-reference")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("request.json")
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        let result = try runCommand("sh", ["-c", "python3 -c \"$0\" < \"$1\"", script, input.path])
        let object = try JSONSerialization.jsonObject(with: result.stdout) as! [String: Any]
        return Answer(
            encoded: (object["encoded"] as! [[NSNumber]]).map { $0.map(\.intValue) },
            decoded: object["decoded"] as! [String],
            nonSpeech: (object["nonSpeech"] as? [NSNumber])?.map(\.intValue) ?? [])
    }

    static func nonSpeechTokens(modelDirectory: URL) throws -> [Int] {
        try run(modelDirectory: modelDirectory, texts: [], nonSpeech: true).nonSpeech
    }
}
