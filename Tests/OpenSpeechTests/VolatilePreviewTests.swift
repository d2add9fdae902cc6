import Foundation
@testable import OpenSpeech
import SpeechEngine
import SpeechEvaluation
import Testing
import TestSupport

/// Volatile-only previews decoded with the encoder over the window's own audio (`PreviewDecoding`), on real speech:
/// their text is close to what a full 30 s decoding of the same window says, at a fraction of its cost, and the
/// finals do not change.
@Suite(.serialized) struct VolatilePreviewTests {
    /// CPU time of the calling thread: the model below runs on it alone, so other suites running beside this one
    /// in the process do not count.
    static func cpuSeconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    @Test("a shortened preview of a growing window says nearly what the full decoding says, for much less CPU")
    func previewTextAndCost() async throws {
        try await TestEnvironment.ready()
        let model = try WhisperModel(directory: try await TestModels.directory(for: "whisper-tiny.en"), threads: 1)
        let session = WhisperSession(model: model, maxBeams: 1)
        var options = TranscriptionOptions()
        options.beamSize = 1
        options.bestOf = 1
        options.wordTimestamps = true
        options.temperatures = [0]
        var previewVersusFull = ErrorCounts(), previewWhole = ErrorCounts(), fullWhole = ErrorCounts()
        var previewCPU = 0.0, fullCPU = 0.0
        for clip in TestEnvironment.clips("ls-clean").prefix(4) {
            let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
            // Windows as volatile mode sees them: 3, 6, 9 s of the clip, and all of it.
            for length in [48_000, 96_000, 144_000, audio.count] where length <= audio.count {
                let window = Array(audio.prefix(length))
                var started = Self.cpuSeconds()
                let full = try session.decodeWindow(samples: window, previousTokens: [], timeOffset: 0, options: options)
                fullCPU += Self.cpuSeconds() - started
                // As `LocalAgreementStrategy` decodes a preview.
                let decoding = PreviewDecoding()
                var previewOptions = options
                previewOptions.maxNewTokens = decoding.maxNewTokens(forSamples: window.count)
                started = Self.cpuSeconds()
                let segments = try session.decodeWindow(
                    samples: window, previousTokens: [], timeOffset: 0, options: previewOptions,
                    encodedPositions: decoding.positions(forSamples: window.count))
                let preview = decoding.withoutLoops(segments.flatMap { $0.words ?? [] })
                previewCPU += Self.cpuSeconds() - started
                let fullText = full.map(\.text).joined(), previewText = preview.map(\.word).joined()
                previewVersusFull += WordErrorRate.score(reference: fullText, hypothesis: previewText, language: "en")
                if length == audio.count {
                    previewWhole += WordErrorRate.score(reference: clip.transcript, hypothesis: previewText, language: "en")
                    fullWhole += WordErrorRate.score(reference: clip.transcript, hypothesis: fullText, language: "en")
                }
                // Word times stay inside the window.
                for word in preview {
                    #expect(word.start >= 0 && word.end <= Double(length) / 16_000 + 0.5, "\(word)")
                }
            }
        }
        #expect(previewVersusFull.rate < 0.1, "previews differ from full decodings by \(previewVersusFull.rate)")
        #expect(previewWhole.rate <= fullWhole.rate + 0.03, "preview WER \(previewWhole.rate), full \(fullWhole.rate)")
        #expect(previewCPU < 0.7 * fullCPU, "previews took \(previewCPU) s of CPU, full decodings \(fullCPU) s")
    }

    @Test("fed at real-time pace, previews show the clip's words and the finals are those of the audio fed at once")
    func previewsOnALiveFeed() async throws {
        try await TestEnvironment.ready()
        let clip = Corpus.item("1221-135766-0001")! // 16.7 s
        let (live, _) = try await StreamingTests.stream(clip, realTime: true)
        let (file, _) = try await StreamingTests.stream(clip)
        func finals(_ run: StreamingTests.Run) -> [String] {
            run.results.filter(\.isFinal).map { "\($0.range.start.seconds)-\($0.range.end.seconds):\(String($0.text.characters))" }
        }
        #expect(finals(live) == finals(file))
        // Every reference word should have shown while the audio was coming: as volatile text (previews, pending
        // words), or final already (a word one decoding settles goes straight to final), not only at the end.
        func words(_ text: String) -> [String] {
            text.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init)
        }
        let fedThrough = try #require(live.fedThrough)
        let shown = Set(zip(live.results, live.arrivals).filter { !$0.0.isFinal || $0.1 <= fedThrough }
            .flatMap { words(String($0.0.text.characters)) })
        let reference = words(clip.transcript)
        let covered = reference.filter(shown.contains).count
        #expect(Double(covered) >= 0.85 * Double(reference.count),
                "\(covered) of \(reference.count) words shown while the audio came")
    }
}
