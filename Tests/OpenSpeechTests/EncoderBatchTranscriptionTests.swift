import Foundation
@testable import OpenSpeech
import Testing
import TestSupport

/// File transcription with batched encoding (`FileTranscriber.Options.encoderBatchSize`) gives the transcript of
/// one-at-a-time encoding, segment for segment (text, times, tokens, statistics), with the speech detector on: a
/// recording of clips and pauses (the detector's chunks, batched), and a short clip (one chunk). The engine's own
/// test (`EncoderBatchTests`) compares long-form windows of continuous speech.
@Suite(.serialized) struct EncoderBatchTranscriptionTests {
    @Test("batched encoding: transcripts identical to sequential, detector on")
    func identicalTranscripts() async throws {
        try await GatingAudio.ready()
        // Clips after pauses of 0.3 to 8 s (silences the detector leaves out, and short ones it keeps).
        let clips = Corpus.items.filter { $0.language == "en" && $0.subset != "longform" }.prefix(16)
        var pauses: [Float] = []
        for (index, clip) in clips.enumerated() {
            pauses += [Float](repeating: 0, count: [4_800, 32_000, 128_000, 9_600, 64_000][index % 5])
            pauses += try MonoAudio.load(contentsOf: clip.wav16kURL)
        }
        let inputs: [(name: String, samples: [Float])] = [
            ("clips and pauses", pauses),
            ("a short clip", try MonoAudio.load(contentsOf: clips[clips.startIndex].wav16kURL)),
        ]
        for input in inputs {
            var transcripts: [Transcript] = []
            for size in [1, 4] {
                let transcriber = FileTranscriber(options: FileTranscriber.Options(locale: TestEnvironment.english)
                    .encodingBatches(of: size), store: TestModels.store)
                transcripts.append(try await transcriber.transcribe(samples: input.samples))
            }
            #expect(!transcripts[0].segments.isEmpty, "\(input.name)")
            #expect(transcripts[1] == transcripts[0], "\(input.name): batch 4 differs from batch 1")
        }
    }

    @Test("a batch size below 1 is 1")
    func optionBounds() {
        #expect(FileTranscriber.Options(locale: TestEnvironment.english).encodingBatches(of: 0).encoderBatchSize == 1)
    }
}
