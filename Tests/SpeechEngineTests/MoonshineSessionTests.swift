import Foundation
import Testing
@testable import SpeechEngine
import SpeechEvaluation
import TestSupport

/// Moonshine as a model family (issue 44, item 3): its session decodes windows and long recordings as Whisper's does
/// for the transcriber, with word times from its cross-attention.
@Suite struct MoonshineSessionTests {
    static func session(maxBeams: Int? = nil) async throws -> any WindowDecoder & LongFormDecoder {
        let model = try SpeechModelFamily.moonshine.load(directory: try await TestModels.directory(for: "moonshine-base-en"),
                                                         threads: 2, computeType: .default)
        return model.makeSession(maxBeams: maxBeams)
    }

    @Test("word times agree with Whisper's alignment: the same words within a tenth of a second on average, in order, within the clip")
    func wordTimesAgreeWithWhisper() async throws {
        let moonshine = try await Self.session()
        // whisper-base's times, not tiny.en's: tiny.en's run about 0.17 s later than base's on these clips.
        let whisper = WhisperSession(model: try WhisperModel(directory: try await TestModels.directory(for: "whisper-base"),
                                                             threads: 2))
        var options = TranscriptionOptions(language: "en")
        options.wordTimestamps = true
        var differences: [Double] = []
        for id in ["jfk", "1221-135766-0001", "7018-75788-0012"] {
            let item = try #require(Corpus.item(id))
            let samples = try WAV.read(item.wav16kURL)
            let duration = Double(samples.count) / 16_000
            let segments = try moonshine.decodeWindow(samples: samples, previousTokens: [], timeOffset: 0, options: options,
                                                      encodedPositions: nil)
            let words = segments.flatMap { try! #require($0.words) }
            #expect(!words.isEmpty, "\(id): no words")
            #expect(words.map(\.word).joined() == segments.map(\.text).joined(), "\(id): the words spell the text")
            for (word, next) in zip(words, words.dropFirst()) {
                #expect(word.start <= word.end && word.end <= next.start + 0.001, "\(id): \(word) then \(next)")
            }
            #expect(words.allSatisfy { $0.start >= 0 && $0.end <= duration + 0.05 && $0.probability > 0 }, "\(id)")
            let reference = try whisper.transcribe(samples: samples, options: options).flatMap { $0.words ?? [] }
            let pairs = CommonWords.pairs(words.map(\.word), reference.map(\.word))
            #expect(pairs.count >= reference.count * 3 / 4, "\(id): \(pairs.count) of \(reference.count) words in common")
            differences += pairs.map { abs(words[$0.0].start - reference[$0.1].start) }
        }
        let mean = differences.reduce(0, +) / Double(differences.count)
        print("Moonshine word starts against whisper-base's: mean \(mean) s over \(differences.count) words")
        // Measured on two thirds of the English corpus: 53 ms at the start, 68 ms at the end; here 0.03–0.1 s a clip.
        #expect(mean < 0.1, "mean difference \(mean) s")
    }

    @Test("a clip opening on silence or low noise is decoded from its first sound: the same words, timed after the silence")
    func silenceBeforeSpeech() async throws {
        let session = try await Self.session()
        let item = try #require(Corpus.item("2830-3980-0043"))   // "Experience proves this.", 2.3 s
        let speech = try WAV.read(item.wav16kURL)
        var options = TranscriptionOptions()
        options.wordTimestamps = true
        func text(_ segments: [Segment]) -> String { segments.map(\.text).joined() }
        let alone = try session.decodeWindow(samples: speech, previousTokens: [], timeOffset: 0, options: options,
                                             encodedPositions: nil)
        #expect(WordErrorRate.score(reference: item.transcript, hypothesis: text(alone), language: "en").errors == 0,
                "\(text(alone))")
        // Moonshine (and ONNX Runtime on the same files) writes nothing for this clip after 0.75 s of silence, or
        // 0.5 s of noise at −60 dBFS, before it.
        var seed: UInt32 = 1
        let noise = (0..<16_000).map { _ -> Float in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.002
        }
        for (name, lead) in [("1.5 s of silence", [Float](repeating: 0, count: 24_000)), ("1 s of noise", noise)] {
            let segments = try session.decodeWindow(samples: lead + speech, previousTokens: [], timeOffset: 2,
                                                    options: options, encodedPositions: nil)
            #expect(text(segments) == text(alone), "\(name): \(text(segments))")
            let leadSeconds = Double(lead.count) / 16_000
            #expect(segments.first.map { $0.start >= 2 + leadSeconds - 0.25 } ?? false, "\(name): \(segments.map(\.start))")
            #expect(segments.first?.words?.first.map { $0.start >= 2 + leadSeconds - 0.25 } ?? false, "\(name)")
        }
        #expect(try session.decodeWindow(samples: [Float](repeating: 0, count: 32_000), previousTokens: [], timeOffset: 0,
                                         options: options, encodedPositions: nil).isEmpty)
    }

    @Test("a clip the model ends at once is read past the end when what follows is sure; noise and a tone stay silent")
    func openingEnd() async throws {
        let directory = try await TestModels.directory(for: "moonshine-base-en")
        let model = try MoonshineModel(directory: directory, threads: 2)
        let session = MoonshineSession(model: model)
        // The window a live run decoded at JFK's end: from 4.32 s, muted by the detector's gate over the pause before
        // "what" and after the last word. Moonshine's own greedy decoding (and ONNX Runtime's) is the end token at once.
        let jfk = try WAV.read(try #require(Corpus.item("jfk")).wav16kURL)
        var window = Array(jfk[69_120...])
        for range in [6_304..<12_128, 105_632..<window.count] { window.replaceSubrange(range, with: repeatElement(0, count: range.count)) }
        #expect(try model.tokens(samples: window).isEmpty, "the model no longer ends this window at once")
        let text = try session.segments(clip: window, timeOffset: 0, seek: 0, options: .init(), wordTimes: false)
            .map(\.text).joined()
        let reference = "What your country can do for you, ask what you can do for your country."
        #expect(WordErrorRate.score(reference: reference, hypothesis: text, language: "en").errors == 0, "\(text)")
        // Over sound that is not speech the first step's end stands: what Moonshine writes past it is unsure.
        var seed: UInt32 = 7
        let noise = (0..<32_000).map { _ -> Float in
            seed = seed &* 1_664_525 &+ 1_013_904_223
            return (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.035
        }
        let tone = (0..<32_000).map { Float(0.2 * sin(2 * Double.pi * 440 * Double($0) / 16_000)) }
        for (name, clip) in [("noise", noise), ("a tone", tone)] {
            let segments = try session.segments(clip: clip, timeOffset: 0, seek: 0, options: .init(), wordTimes: true)
            #expect(segments.isEmpty, "\(name): \(segments.map(\.text))")
        }
    }

    @Test("a long recording goes through clips cut at pauses: the same segments whatever the pieces it arrives in, words recognized")
    func longFormStream() async throws {
        let item = try #require(Corpus.item("osr-us-000-0034-8k"))   // 35.5 s: two clips
        let samples = try WAV.read(item.wav16kURL)
        let session = try await Self.session()
        var results: [[Segment]] = []
        for piece in [samples.count, 16_000, 7_331] {
            let stream = session.longFormStream(options: TranscriptionOptions())
            var segments: [Segment] = []
            var offset = 0
            while offset < samples.count {
                try stream.append(Array(samples[offset..<min(offset + piece, samples.count)]))
                offset += piece
                segments += try stream.decodeAvailable()
                #expect(stream.decodedThrough <= offset)
            }
            #expect(stream.finish(at: samples.count).isEmpty)
            segments += try stream.decodeAvailable()
            #expect(stream.decodedThrough == samples.count)
            #expect(throws: EngineError.streamFinished) { try stream.append([0]) }
            results.append(segments)
        }
        #expect(results[1] == results[0] && results[2] == results[0], "the pieces changed the transcript")
        let segments = results[0]
        #expect(segments.count == 2, "clips: \(segments.map(\.text))")
        #expect(segments.allSatisfy {
            $0.end - $0.start <= Double(ClipCuts.moonshine.longest) / 16_000 + 0.001 && $0.language == "en"
        })
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.end <= $1.start })
        let errors = WordErrorRate.score(reference: item.transcript, hypothesis: segments.map(\.text).joined(), language: "en")
        // Measured: 1 error in 82 words (greedy, the cut at the pause before 28 s).
        #expect(errors.rate < 0.06, "WER \(errors.rate): \(segments.map(\.text).joined())")
    }

    @Test("word times asked for a stretch of the stream give sentences with words; a window ignores the prompt, keeps to its token limit; English is the language")
    func sentencesPromptAndLanguage() async throws {
        let session = try await Self.session()
        let item = try #require(Corpus.item("osr-us-000-0034-8k"))
        let samples = Array(try WAV.read(item.wav16kURL).prefix(20 * 16_000))
        let stream = session.longFormStream(options: TranscriptionOptions())
        stream.wordTimestampsWhere = { _ in true }
        try stream.append(samples)
        _ = stream.finish(at: samples.count)
        let sentences = try stream.decodeAvailable()
        #expect(sentences.count >= 5, "\(sentences.map(\.text))")
        #expect(sentences.allSatisfy { ($0.words?.count ?? 0) > 2 })
        #expect(sentences.dropLast().allSatisfy { $0.text.hasSuffix(".") })
        let window = try session.decodeWindow(samples: samples, previousTokens: [], timeOffset: 3, options: .init(),
                                              encodedPositions: nil)
        let prompted = try session.decodeWindow(samples: samples, previousTokens: session.encode("Something else entirely"),
                                                timeOffset: 3, options: .init(), encodedPositions: 100)
        #expect(window == prompted)
        // The clip's segment spans it from its first sound (`ClipOnset`) to its end.
        #expect(window.count == 1 && window[0].start >= 3 && window[0].start < 5 && abs(window[0].end - 23) < 0.001,
                "\(window.map { ($0.start, $0.end) })")
        #expect(window[0].text == sentences.map(\.text).joined())
        var capped = TranscriptionOptions()
        capped.maxNewTokens = 5
        capped.wordTimestamps = true
        let short = try session.decodeWindow(samples: samples, previousTokens: [], timeOffset: 0, options: capped,
                                             encodedPositions: nil)
        #expect(short.flatMap(\.tokens).count == 5 && window[0].text.hasPrefix(short.map(\.text).joined()),
                "\(short.map(\.text))")
        #expect(try session.detectLanguage(samples: samples, encodedPositions: nil).first?.language == "en")
        #expect(!session.isMultilingual && session.defaultBeamSize == 1)
        #expect(throws: EngineError.windowTooLong(seconds: 31)) {
            try session.decodeWindow(samples: [Float](repeating: 0, count: 31 * 16_000), previousTokens: [], timeOffset: 0,
                                     options: .init(), encodedPositions: nil)
        }
    }
}
