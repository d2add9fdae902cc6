import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// `TokenizerJSONReader`, the tokenizer's reader of `tokenizer.json` (untrusted bytes): what Foundation's JSON parser
/// reads from the real files, and strict JSON otherwise.
@Suite struct TokenizerJSONReaderTests {
    @Test("the development models' files: the vocabulary, merges and added tokens Foundation's parser reads",
          arguments: ["whisper-tiny.en", "whisper-base"])
    func realFiles(model: String) async throws {
        let data = try Data(contentsOf: try await TestModels.directory(for: model).appendingPathComponent("tokenizer.json"))
        let contents = try TokenizerJSONReader.read(data)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let bpe = try #require(json["model"] as? [String: Any])
        let vocab = try #require(bpe["vocab"] as? [String: Int])
        #expect(contents.vocab == vocab)
        let merges = try #require(bpe["merges"] as? [String])
        #expect(contents.merges?.map { "\($0.0) \($0.1)" } == merges)
        let added = try #require(json["added_tokens"] as? [[String: Any]])
        #expect(contents.addedTokens?.map(\.content) == added.map { $0["content"] as? String })
        #expect(contents.addedTokens?.map(\.id) == added.map { $0["id"] as? Int })

        let addedOnly = try TokenizerJSONReader.read(data, buildingBPE: false)
        #expect(addedOnly.vocab == nil && addedOnly.merges == nil)
        #expect(addedOnly.addedTokens?.map(\.id) == contents.addedTokens?.map(\.id))
    }

    static func read(_ text: String) throws -> TokenizerJSONReader.Contents { try TokenizerJSONReader.read(Data(text.utf8)) }

    @Test("escapes, both merge spellings, members it does not need, added_tokens null")
    func wellFormed() throws {
        let contents = try Self.read(#"""
            { "version": "1.0", "normalizer": null, "pre_tokenizer": {"type": "ByteLevel", "x": [1, -2.5e-3, true, false]},
              "model": {"type": "BPE", "vocab": {"a\u00e9\ud83d\ude00\n\/\"": 1, "b": 0}, "merges": ["a b", ["c", "d e"]]},
              "added_tokens": [{"id": 2, "special": true, "content": "<|endoftext|>", "lstrip": false}] }
            """#)
        #expect(contents.vocab == ["aé😀\n/\"": 1, "b": 0])
        #expect(contents.merges?.map { [$0.0, $0.1] } == [["a", "b"], ["c", "d e"]])
        #expect(contents.addedTokens?.map(\.content) == ["<|endoftext|>"])
        #expect(contents.addedTokens?.map(\.id) == [2])
        let none = try Self.read(#"{"added_tokens": null, "model": {"merges": [], "vocab": {}}}"#)
        #expect(none.addedTokens == nil && none.vocab == [:] && none.merges?.isEmpty == true)
    }

    @Test("damaged or foreign JSON: an error saying what, never a crash", arguments: [
        ("", "ends early"),
        (#"{"model": {"vocab": {"a": 1}, "merges": []}"#, "ends early"),
        (#"{"model": {"vocab": {"a": 1}, "merges": []}} {}"#, "content after"),
        (#"{"model": {"vocab": {"a": 1}}}"#, "no merges at model"),
        (#"{"model": {"merges": []}}"#, "no vocab at model"),
        (#"{"vocab": {}}"#, "no model"),
        (#"{"model": {"vocab": {"a": 1.5}, "merges": []}}"#, "not an integer"),
        (#"{"model": {"vocab": {"a": 99999999999999999999}, "merges": []}}"#, "not an integer"),
        (#"{"model": {"vocab": {"a": 01}, "merges": []}}"#, "leading zero"),
        (#"{"model": {"vocab": {"a": "1"}, "merges": []}}"#, "expected a value"),
        (#"{"model": {"vocab": {"\ud800": 1}, "merges": []}}"#, "lone surrogate"),
        (#"{"model": {"vocab": {"\q": 1}, "merges": []}}"#, "unknown escape"),
        ("{\"model\": {\"vocab\": {\"a\u{1}\": 1}, \"merges\": []}}", "control character"),
        (#"{"model": {"vocab": {}, "merges": ["ab"]}}"#, "has no space"),
        (#"{"model": {"vocab": {}, "merges": [["a"]]}}"#, "a merge of 1 tokens"),
        (#"{"model": {"vocab": {}, "merges": []}, "added_tokens": [{"content": "x"}]}"#, "no id"),
        (#"{"model": {"vocab": {}, "merges": []}, "x": tru}"#, "expected a value"),
        ("{\"x\": " + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}", "nesting deeper"),
    ])
    func damaged(text: String, expected: String) {
        #expect(throws: TokenizerJSONReader.Failure.self) { try Self.read(text) }
        do {
            _ = try Self.read(text)
        } catch {
            #expect("\(error)".contains(expected), "\(error)")
        }
    }

    @Test("invalid UTF-8 in a string the tokenizer keeps is refused")
    func invalidUTF8() {
        var data = Data(#"{"model": {"vocab": {"a"#.utf8)
        data.append(0xFF)
        data.append(contentsOf: Data(#"": 1}, "merges": []}}"#.utf8))
        #expect(throws: TokenizerJSONReader.Failure.self) { try TokenizerJSONReader.read(data) }
    }
}
