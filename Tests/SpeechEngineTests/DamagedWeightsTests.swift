import Foundation
import Testing
@testable import SpeechEngine
import TestSupport

/// Damaged copies of the real VAD weights and tokenizer.json, and the minimized inputs the fuzz targets `onnx`,
/// `safetensors` and `tokenizer` (scripts/fuzz) stand for: each loads or is refused with the reader's typed error.
@Suite("Damaged weights and tokenizer files")
struct DamagedWeightsTests {
    /// Loads VAD weights from `bytes` written as `name`; nil when they load, else the error.
    private func loadVAD(_ bytes: Data, as name: String) throws -> (any Error)? {
        let directory = try makeTemporaryDirectory("damaged-vad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent(name)
        try bytes.write(to: url)
        do {
            _ = try SileroVAD(contentsOf: url)
            return nil
        } catch {
            return error
        }
    }

    /// Loads a tokenizer from `tokenizer` (and `vocabulary.json` when given); nil when it loads, else the error.
    private func loadTokenizer(_ tokenizer: Data, vocabularyJSON: Data? = nil) throws -> (any Error)? {
        let directory = try makeTemporaryDirectory("damaged-tokenizer")
        defer { try? FileManager.default.removeItem(at: directory) }
        try tokenizer.write(to: directory.appendingPathComponent("tokenizer.json"))
        try vocabularyJSON?.write(to: directory.appendingPathComponent("vocabulary.json"))
        do {
            let loaded = try WhisperTokenizer(modelDirectory: directory)
            _ = loaded.decode(loaded.encode(" Hello world"))
            return nil
        } catch {
            return error
        }
    }

    /// Truncated, zero-filled and bit-flipped copies of `bytes`, each with a label.
    private func damagedCopies(of bytes: Data, seed: UInt64) -> [(String, Data)] {
        let cuts = (1...7).map { $0 * bytes.count / 8 } + [0, 7, 8, 9, 100, bytes.count - 1]
        var copies: [(String, Data)] = cuts.map { ("truncated at \($0)", bytes.prefix($0)) }
        copies.append(("all zeros", Data(count: bytes.count)))
        var random = SeededGenerator(seed: seed)
        for _ in 0..<6 {
            let start = Int(random.next() % UInt64(bytes.count))
            var copy = bytes
            copy.resetBytes(in: start..<min(start + 64, copy.count))
            copies.append(("zeros at \(start)", copy))
        }
        for _ in 0..<12 {
            // Half the flips in the first KB, where the headers are.
            let range = copies.count % 2 == 0 ? min(1024, bytes.count) : bytes.count
            let position = Int(random.next() % UInt64(range))
            var copy = bytes
            copy[position] ^= UInt8(1 << (random.next() % 8))
            copies.append(("bit flip at \(position)", copy))
        }
        return copies
    }

    @Test("damaged copies of the real VAD weights load or are VADErrors", arguments: [SileroVAD.onnxFileName, SileroVAD.safetensorsFileName])
    func damagedVADWeights(file: String) async throws {
        let bytes = try Data(contentsOf: try await TestModels.directory(for: "silero-vad").appendingPathComponent(file))
        for (label, copy) in damagedCopies(of: bytes, seed: 18) {
            let error = try loadVAD(copy, as: file)
            #expect(error == nil || error is VADError, "\(file), \(label): \(String(describing: error))")
        }
    }

    @Test("damaged copies of a real tokenizer.json load or are WhisperTokenizerErrors")
    func damagedTokenizer() async throws {
        let bytes = try Data(contentsOf: try await TestModels.directory(for: "whisper-tiny.en").appendingPathComponent("tokenizer.json"))
        for (label, copy) in damagedCopies(of: bytes, seed: 19) {
            let error = try loadTokenizer(copy)
            #expect(error == nil || error is WhisperTokenizerError, "\(label): \(String(describing: error))")
        }
    }

    // MARK: Minimized inputs

    /// A protobuf length-delimited field.
    private func field(_ number: UInt64, _ payload: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(payload.count)) + payload }
    private func varint(_ value: UInt64) -> [UInt8] {
        var value = value, bytes: [UInt8] = []
        while value >= 0x80 { bytes.append(UInt8(value & 0x7F) | 0x80); value >>= 7 }
        return bytes + [UInt8(value)]
    }

    @Test("ONNX: a data type past Int.max is skipped (was: a conversion trap)")
    func onnxHugeDataType() throws {
        let tensor = varint(2 << 3) + varint(UInt64.max)
        let model = field(7, field(5, tensor))
        #expect(try loadVAD(Data(model), as: "w.onnx") as? VADError == .missingWeight("stft.forward_basis_buffer"))
    }

    @Test("ONNX: dimensions whose product overflows are a damaged file (was: an overflow trap)")
    func onnxOverflowingDims() throws {
        let tensor = [varint(1 << 3), varint(1 << 40), varint(1 << 3), varint(1 << 40), varint(2 << 3), varint(1),
                      field(8, Array("w".utf8))].flatMap { $0 }
        let error = try loadVAD(Data(field(7, field(5, tensor))), as: "w.onnx")
        guard case VADError.corruptFile(_, let reason)? = error as? VADError else {
            Issue.record("expected corruptFile, got \(String(describing: error))"); return
        }
        #expect(reason.contains("impossible shape"))
    }

    @Test("ONNX: subgraphs nested past any real model's depth are a damaged file (unbounded, they could exhaust the stack)")
    func onnxDeepNesting() throws {
        var graph: [UInt8] = []
        for _ in 0..<200 { graph = field(1, field(5, field(6, graph))) }  // node → attribute → graph, 200 deep
        let error = try loadVAD(Data(field(7, graph)), as: "w.onnx")
        guard case VADError.corruptFile(_, let reason)? = error as? VADError else {
            Issue.record("expected corruptFile, got \(String(describing: error))"); return
        }
        #expect(reason.contains("nested"))
    }

    /// A safetensors file with `header` and `payload`.
    private func safetensors(_ header: String, payload: Data = Data()) -> Data {
        var bytes = Data()
        withUnsafeBytes(of: UInt64(header.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
        return bytes + Data(header.utf8) + payload
    }

    @Test("safetensors: an end offset near Int.max is a damaged file (was: an overflow trap)")
    func safetensorsHugeOffset() throws {
        let error = try loadVAD(safetensors(#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,9223372036854775807]}}"#),
                                as: "w.safetensors")
        guard case VADError.corruptFile(_, let reason)? = error as? VADError else { Issue.record("\(String(describing: error))"); return }
        #expect(reason == "bad header entry for a")
    }

    @Test("safetensors: a shape whose product overflows is a damaged file (was: an overflow trap)")
    func safetensorsOverflowingShape() throws {
        let error = try loadVAD(safetensors(#"{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}"#,
                                            payload: Data(count: 4)), as: "w.safetensors")
        guard case VADError.corruptFile(_, let reason)? = error as? VADError else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("impossible shape"))
    }

    /// The smallest tokenizer.json the tokenizer accepts, with `added` as its added tokens.
    private func tokenizerJSON(added: [(String, Int)]) -> Data {
        let printable = Set(Array(33...126) + Array(161...172) + Array(174...255))
        var next = 256
        var vocab: [String: Int] = [:]
        for byte in 0..<256 {
            let spelling = printable.contains(byte) ? String(UnicodeScalar(UInt8(byte))) : String(UnicodeScalar(UInt32(next))!)
            if !printable.contains(byte) { next += 1 }
            vocab[spelling] = byte
        }
        let root: [String: Any] = ["model": ["vocab": vocab, "merges": [String]()],
                                   "added_tokens": added.map { ["content": $0.0, "id": $0.1] as [String: Any] }]
        return try! JSONSerialization.data(withJSONObject: root)
    }

    private let specials = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|translate|>", "<|transcribe|>",
                            "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]

    @Test("tokenizer.json: the minimal file loads")
    func minimalTokenizerLoads() throws {
        #expect(try loadTokenizer(tokenizerJSON(added: specials.enumerated().map { ($1, 256 + $0) })) == nil)
    }

    @Test("tokenizer.json: a negative or huge added-token id is an invalid file (was: an index trap, a huge allocation)",
          arguments: [-1, 1 << 50])
    func addedTokenIDOutOfRange(id: Int) throws {
        let added = specials.enumerated().map { ($1, 256 + $0) } + [("<|bad|>", id)]
        let error = try loadTokenizer(tokenizerJSON(added: added))
        guard case WhisperTokenizerError.invalidFile("tokenizer.json", let reason)? = error as? WhisperTokenizerError else {
            Issue.record("\(String(describing: error))"); return
        }
        #expect(reason.contains("\(id)"))
    }

    @Test("vocabulary.json: special tokens out of order load without languages (was: a range trap)")
    func specialsOutOfOrder() throws {
        // <|translate|> and <|transcribe|> before <|startoftranscript|>.
        let order = ["<|endoftext|>", "<|translate|>", "<|transcribe|>", "<|startoftranscript|>", "<|en|>",
                     "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>", "<|notimestamps|>"]
        let vocabulary = (0..<256).map { "t\($0)" } + order
        let error = try loadTokenizer(tokenizerJSON(added: []), vocabularyJSON: try JSONEncoder().encode(vocabulary))
        #expect(error == nil)
    }

    @Test("tokenizer.json: an unpaired surrogate escape is read or refused, never a trap (was: an overflow in MinimalJSON)")
    func unpairedSurrogate() throws {
        var json = String(decoding: tokenizerJSON(added: specials.enumerated().map { ($1, 256 + $0) }), as: UTF8.self)
        json = json.replacingOccurrences(of: #""added_tokens":["#, with: #""added_tokens":[{"content":"\ud800\u0000","id":265},"#)
        let error = try loadTokenizer(Data(json.utf8))
        #expect(error == nil || error is WhisperTokenizerError)
    }
}
