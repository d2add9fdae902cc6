import Foundation
import Testing
@testable import SpeechEngine
import TestSupport
import SpeechAudio

/// The detection-only load of whisper-base (`LanguageDetectionModel`: the encoder, one decoder step in half
/// precision, the language tokens' rows): the whole model's answers, and the same typed errors for damaged files.
@Suite("Detection-only model load (whisper-base)", .serialized)
struct LanguageDetectionModelTests {
    /// Every language's probability on `samples` by the whole model and by the detection-only one.
    /// `tolerance`: the largest difference allowed in any language's probability.
    private static func compare(_ whole: WhisperModel, _ detector: LanguageDetectionModel, computeType: ComputeType,
                                tolerance: Double) async throws {
        let items = Corpus.items.filter { $0.subset == "multilingual" }
        try #require(items.count >= 10)
        let rows = try await offCooperativePool { () -> [(String, String, [(language: String, probability: Double)], [(language: String, probability: Double)])] in
            let full = WhisperSession(model: whole, maxBeams: 1), light = LanguageDetectionSession(model: detector)
            return try items.flatMap { item in
                let samples = try WAV.read(item.wav16kURL)
                // The shortened encoding detection uses (the clip's audio and 1 s), and the padded 30 s window.
                return try [(samples.count + 319) / 320 + 50, nil].map { positions -> (String, String, [(language: String, probability: Double)], [(language: String, probability: Double)]) in
                    (item.id, item.language, try full.detectLanguage(samples: samples, encodedPositions: positions),
                     try light.detectLanguage(samples: samples, encodedPositions: positions))
                }
            }
        }
        var largest = 0.0
        for (id, language, expected, got) in rows {
            #expect(got.first?.language == expected.first?.language, "\(id) (\(computeType)): \(got.prefix(3)) against \(expected.prefix(3))")
            #expect(got.count == expected.count && expected.count >= 99)
            let probabilities = Dictionary(got.map { ($0.language, $0.probability) }, uniquingKeysWith: max)
            for (code, probability) in expected {
                let difference = abs((probabilities[code] ?? -1) - probability)
                largest = max(largest, difference)
                #expect(difference < tolerance, "\(id) (\(computeType)) \(code): \(probabilities[code] ?? -1) against \(probability)")
            }
            if id != "pv-cheetah-es" { #expect(got.first?.language == language, "\(id): \(got.prefix(3))") }
        }
        print("detection-only load at \(computeType): largest probability difference from the whole model \(largest)")
    }

    @Test("the detection-only load names the whole model's language with its probabilities (within 1e-3) on every multilingual clip, float32")
    func sameAsWholeModel() async throws {
        let whole = try await SharedModels.base()
        let detector = try LanguageDetectionModel(directory: whole.directory)
        try await Self.compare(whole, detector, computeType: .float32, tolerance: 1e-3)
    }

    /// At int8 the whole model's decoder step runs int8 weights (VNNI) where the detection-only one streams the file's
    /// fp16: the same language on every clip, probabilities within 0.1 (measured: at most 0.086, on unsure clips).
    @Test("at int8: the same language on every clip, probabilities within 0.1 (the whole model's step is int8, this one fp16)")
    func sameAsWholeModelInt8() async throws {
        let whole = try await SharedModels.shared.model("whisper-base", computeType: .int8)
        let detector = try LanguageDetectionModel(directory: whole.directory, computeType: .int8)
        try await Self.compare(whole, detector, computeType: .int8, tolerance: 0.1)
    }

    /// The whole model's tokenizer loads beside its weights (`BackgroundLoad`), so its wall time no longer adds the
    /// tokenizer's: detection-only loads take about 0.6 of it (Zen 3), not under half as before.
    @Test("it loads in less than the whole model's time")
    func loadsFaster() async throws {
        let directory = try await TestModels.directory(for: "whisper-base")
        let clock = ContinuousClock()
        var whole = Duration.zero, light = Duration.zero
        for _ in 0..<2 {
            whole += try clock.measure { _ = try WhisperModel(directory: directory, computeType: .int8) }
            light += try clock.measure { _ = try LanguageDetectionModel(directory: directory, computeType: .int8) }
        }
        print("whisper-base int8 loads (2 each): whole \(whole), detection-only \(light)")
        #expect(light < whole, "detection-only \(light) against whole \(whole)")
    }

    /// A copy of whisper-base's directory (model.bin linked) with `change` applied; the detection-only load's error.
    private func loadDamaged(_ change: (URL) throws -> Void) async throws -> (any Error)? {
        let source = try await TestModels.directory(for: "whisper-base")
        let directory = try makeTemporaryDirectory("damaged-detector")
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["config.json", "tokenizer.json", "vocabulary.txt"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("model.bin"),
                                                   withDestinationURL: source.appendingPathComponent("model.bin"))
        try change(directory)
        do {
            _ = try LanguageDetectionModel(directory: directory, computeType: .int8)
            return nil
        } catch {
            return error
        }
    }

    @Test("damaged or missing files on the detection-only path are the whole model's typed errors")
    func damagedFiles() async throws {
        // The undamaged copy loads.
        #expect(try await loadDamaged { _ in } == nil)

        var error = try await loadDamaged { try FileManager.default.removeItem(at: $0.appendingPathComponent("tokenizer.json")) }
        #expect((error as? WhisperTokenizerError).map { "\($0)" } == "\(WhisperTokenizerError.missingFile("tokenizer.json"))")

        for cut in [0, 1, 1000, 1_100_000, 2_203_000] {
            error = try await loadDamaged { directory in
                let url = directory.appendingPathComponent("tokenizer.json")
                try Data(contentsOf: url).prefix(cut).write(to: url)
            }
            guard case .invalidFile("tokenizer.json", _)? = error as? WhisperTokenizerError else {
                Issue.record("tokenizer.json cut at \(cut): \(String(describing: error))")
                continue
            }
        }

        // Valid JSON without the BPE model, and an added token past the vocabulary.
        for (label, edit) in [("no model.vocab", { (json: inout [String: Any]) in json["model"] = ["merges": []] }),
                              ("an added token past the vocabulary", { (json: inout [String: Any]) in
                                  var added = json["added_tokens"] as! [[String: Any]]
                                  added[0]["id"] = 99_999
                                  json["added_tokens"] = added
                              })] {
            error = try await loadDamaged { directory in
                let url = directory.appendingPathComponent("tokenizer.json")
                var json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
                edit(&json)
                try JSONSerialization.data(withJSONObject: json).write(to: url)
            }
            guard case .invalidFile("tokenizer.json", _)? = error as? WhisperTokenizerError else {
                Issue.record("\(label): \(String(describing: error))")
                continue
            }
        }

        // A language id outside the vocabulary; a truncated model.bin.
        error = try await loadDamaged { directory in
            let url = directory.appendingPathComponent("config.json")
            var json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
            json["lang_ids"] = [50259, 60000]
            try JSONSerialization.data(withJSONObject: json).write(to: url)
        }
        if case .inconsistentModel("model.bin", "decoder/embeddings/weight", _)? = error as? ModelError {
        } else if case .inconsistentModel("config.json", "lang_ids", _)? = error as? ModelError {
        } else {
            Issue.record("lang_ids past the vocabulary: \(String(describing: error))")
        }
        error = try await loadDamaged { directory in
            let url = directory.appendingPathComponent("model.bin")
            let bytes = try Data(contentsOf: url, options: .alwaysMapped).prefix(50_000_000)
            try FileManager.default.removeItem(at: url)
            try bytes.write(to: url)
        }
        #expect(error is ModelError, "model.bin truncated: \(String(describing: error))")
    }
}
