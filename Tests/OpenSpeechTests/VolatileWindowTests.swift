@testable import OpenSpeech
import Foundation
import SpeechEvaluation
import Testing
import TestSupport

/// Volatile transcription over minutes of speech, fed as fast as it is taken: the window each decoding hears stays
/// bounded (committed audio leaves it at finals), so a step costs the same after an hour as after a minute, and the
/// finals still hold the words.
@Suite(.serialized) struct VolatileWindowTests {
    @Test func theWindowStaysBoundedOverMinutesOfSpeech() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "silero-vad")
        // LibriSpeech-clean sentences, 1.5 s of silence after each, twice over (almost 2 minutes: a window that kept
        // committed audio would pass 19 s within the first pass).
        let clips = TestEnvironment.clips("ls-clean")
        var audio: [Float] = [], reference = ""
        while audio.count < 100 * 16_000 {
            for clip in clips {
                audio += try MonoAudio.load(contentsOf: clip.wav16kURL)
                audio += [Float](repeating: 0, count: 24_000)
                reference += " " + clip.transcript
            }
        }
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                                            reportingOptions: [.volatileResults], attributeOptions: [])
        let analyzer = SpeechAnalyzer(modules: [transcriber, SpeechDetector()])
        let collector = Task {
            try await transcriber.results.reduce(into: "") { text, result in
                if result.isFinal { text += String(result.text.characters) }
            }
        }
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        try await analyzer.start(inputSequence: stream)
        let format = AVAudioFormat(standardFormatWithSampleRate: 16_000, channels: 1)!
        for start in stride(from: 0, to: audio.count, by: 1_600) {
            let count = min(1_600, audio.count - start)
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(count))!
            buffer.frameLength = AVAudioFrameCount(count)
            audio.withUnsafeBufferPointer { source in
                buffer.floatChannelData![0].update(from: source.baseAddress! + start, count: count)
            }
            builder.yield(AnalyzerInput(buffer: buffer))
        }
        builder.finish()
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let text = try await collector.value
        let processor = try #require(transcriber.processor as? TranscriptionProcessor)
        let longest = await processor.longestWindowSeconds
        // Sentences here run up to about 16 s (one is 16.7 s): the window holds at most one and a step.
        #expect(longest > 5, "the transcriber decoded windows of speech (longest \(longest) s)")
        #expect(longest <= 19, "the longest window decoded was \(longest) s: committed audio should leave it")
        let score = WordErrorRate.score(reference: reference, hypothesis: text, language: "en")
        #expect(score.rate < 0.12, "WER \(score.rate) over \(audio.count / 16_000) s")
    }
}
