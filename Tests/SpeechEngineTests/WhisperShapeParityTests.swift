import Foundation
import Testing
@testable import SpeechEngine
import TestSupport
import SpeechAudio

/// Issue 43: every published Whisper shape runs as faster-whisper runs it. Each shape is made here with random weights
/// at its real width, heads, mel bins and vocabulary (`bench/whisper_shape.py`, written by CTranslate2's own model
/// writer), its layer counts reduced so that a shape takes seconds; faster-whisper (`Reference`) and the engine then
/// decode the same clips from the same directory at float32, and must agree token for token. Random weights decode
/// nonsense, which is the point: long, odd token sequences that take the timestamp rules, the seek after each window
/// and the vocabulary's special tokens down paths real speech rarely does.
@Suite("Whisper shapes against faster-whisper", .serialized)
struct WhisperShapeParityTests {
    struct Shape: Sendable, CustomStringConvertible {
        var name: String
        var encoderLayers: Int
        var decoderLayers: Int
        var multilingual: Bool { !name.hasSuffix(".en") }
        var description: String { "\(name) (\(encoderLayers)+\(decoderLayers) layers)" }
    }

    /// One of each published shape: widths 384 to 1280, 80 and 128 mel bins, 51,864 / 51,865 / 51,866 tokens, the
    /// decoders of distil-small.en (4 layers), turbo (4) and distil-large-v3 (2) at their full depth. large-v2 (1280
    /// wide, 80 mel bins, 51,865 tokens: each of its traits is another shape's here) passes too, left out for CI's time.
    static let shapes = [
        Shape(name: "tiny.en", encoderLayers: 1, decoderLayers: 2),
        Shape(name: "base", encoderLayers: 1, decoderLayers: 2),
        Shape(name: "small", encoderLayers: 1, decoderLayers: 1),
        Shape(name: "distil-small.en", encoderLayers: 1, decoderLayers: 4),
        Shape(name: "medium", encoderLayers: 1, decoderLayers: 1),
        Shape(name: "large-v3", encoderLayers: 1, decoderLayers: 1),
        Shape(name: "large-v3-turbo", encoderLayers: 1, decoderLayers: 4),
        Shape(name: "distil-large-v3", encoderLayers: 1, decoderLayers: 2),
    ]
    /// 35.5 s: two windows, so the seek after the first (to its last timestamp, past the audio's end or not).
    static let clips = ["osr-us-000-0034-8k"]

    static let script = Reference.repository.appendingPathComponent("bench/whisper_shape.py")

    /// The shape's directory, made once per machine (cached beside the references, keyed by the generator script).
    static func directory(_ shape: Shape) async throws -> URL {
        let source = try await TestModels.directory(for: shape.multilingual ? "whisper-base" : "whisper-tiny.en")
        let directory = Reference.cacheDirectory.appendingPathComponent(
            "shapes/\(shape.name)-e\(shape.encoderLayers)-d\(shape.decoderLayers)-\(Reference.digest(try Data(contentsOf: script)))")
        if !FileManager.default.fileExists(atPath: directory.path) {
            let python = ProcessInfo.processInfo.environment["OPENSPEECH_PYTHON"] ?? "python3"
            let arguments = [script.path, shape.name, "--vocabulary-from", source.path, "--output", directory.path,
                             "--encoder-layers", String(shape.encoderLayers), "--decoder-layers", String(shape.decoderLayers)]
            try await offCooperativePool { _ = try runCommand(python, arguments) }
        }
        return directory
    }

    /// faster-whisper's run on the shape in `directory` with `options`.
    static func reference(_ directory: URL, _ options: Reference.Options) async throws -> Reference.Run {
        try await Reference.run(directory: directory, name: "shape-\(directory.lastPathComponent)", options: options)
    }

    /// Decoding as faster-whisper's: none of the engine's own retries beside its temperature fallback.
    static func options(_ reference: Reference.Options, language: String?) -> TranscriptionOptions {
        var options = TranscriptionOptions(language: language, beamSize: reference.beamSize)
        options.temperatures = reference.temperatures
        options.repetitionLoopLength = nil
        options.promptCopyLength = .max
        return options
    }

    /// Greedy and beam 5; the 1280-wide shapes greedy only (a random decoder writes its 224 tokens a window, a
    /// minute of beam search at that width in each implementation; the beam's logic is the same at every width).
    static func settings(_ shape: Shape) -> [(name: String, options: Reference.Options)] {
        let greedy = ("greedy", Reference.Options(ids: clips)), beam = ("beam 5", Reference.Options(beamSize: 5, ids: clips))
        return shape.name.contains("large") ? [greedy] : [greedy, beam]
    }

    @Test("float32, greedy and beam 5, with timestamps: faster-whisper's tokens, for every shape", arguments: shapes)
    func tokens(_ shape: Shape) async throws {
        let directory = try await Self.directory(shape)
        let model = try WhisperModel(directory: directory, threads: 2, computeType: .float32)
        #expect(model.dimensions.isMultilingual == shape.multilingual)
        var audio: [String: [Float]] = [:]
        for id in Self.clips { audio[id] = try WAV.read(try #require(Corpus.item(id)).wav16kURL) }
        for (name, settings) in Self.settings(shape) {
            let reference = try await Self.reference(directory, settings)
            try #require(reference.clips.count == Self.clips.count)
            for clip in reference.clips {
                let samples = try #require(audio[clip.id])
                let options = Self.options(settings, language: shape.multilingual ? clip.language : nil)
                let ours = try await offCooperativePool { try model.transcribe(samples: samples, options: options) }
                let tokens = ours.flatMap(\.tokens)
                #expect(tokens == clip.tokens, """
                    \(shape), \(name), \(clip.id): first difference at token \(Self.firstDifference(tokens, clip.tokens))
                    ours:           \(ours.map { Self.describe(seek: $0.seek, start: $0.start, end: $0.end, tokens: $0.tokens) })
                    faster-whisper: \(clip.segments.map { Self.describe(seek: $0.seek, start: $0.start, end: $0.end, tokens: $0.tokens) })
                    """)
            }
        }
    }

    /// One shape of each multilingual vocabulary (51,865 and 51,866 tokens: `<|yue|>` shifts the later ids).
    @Test("multilingual shapes detect the language faster-whisper detects",
          arguments: shapes.filter { ["base", "large-v3"].contains($0.name) })
    func languageDetection(_ shape: Shape) async throws {
        let directory = try await Self.directory(shape)
        var settings = Reference.Options(ids: Self.clips)
        settings.detectLanguage = true
        let reference = try await Self.reference(directory, settings)
        let model = try WhisperModel(directory: directory, threads: 2, computeType: .float32)
        for clip in reference.clips {
            let samples = try WAV.read(try #require(Corpus.item(clip.id)).wav16kURL)
            let ranked = try await offCooperativePool { try model.detectLanguage(samples: samples) }
            #expect(ranked.first?.language == clip.detectedLanguage, "\(shape), \(clip.id): \(ranked.prefix(3))")
        }
    }

    static func describe(seek: Int, start: Double, end: Double, tokens: [Int]) -> String {
        "@\(seek) \(String(format: "%.2f-%.2f", start, end)) \(tokens.prefix(3))…\(tokens.suffix(2)) (\(tokens.count))"
    }

    static func firstDifference(_ a: [Int], _ b: [Int]) -> Int {
        zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
    }
}
