// Seed 002's live transcription setup (Pattern 2, steps 1 and 3, "Stream Audio with Format Conversion" and
// Pattern 4) with seed 004's converter rules, fed from a file instead of a microphone. Adapted only where the
// seed cannot compile in Swift 6 on any platform: `@MainActor` instead of `ObservableObject`/`@Published`
// (SwiftUI), the analyzer format stored as the `AVAudioFormat` that `bestAvailableAudioFormat` returns, and no
// AVAudioEngine (the buffers come from the test).
import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

enum TranscriptionError: Error { case setupFailed, notSetUp, conversionFailed }

@MainActor
final class TranscriptionManager {
    private var transcriber: SpeechTranscriber?
    private var analyzer: SpeechAnalyzer?
    private var analyzerFormat: AVAudioFormat?
    private var inputBuilder: AsyncStream<AnalyzerInput>.Continuation?
    private var converter: AVAudioConverter?
    private var recognizerTask: Task<Void, Never>?

    var finalizedTranscript = AttributedString()
    var volatileTranscript = AttributedString()
    var volatileUpdates = 0

    func setUp() async throws {
        // Create transcriber with options
        transcriber = SpeechTranscriber(
            locale: Locale(identifier: "en-US"),
            transcriptionOptions: [],
            reportingOptions: [.volatileResults],  // Enable real-time updates
            attributeOptions: [.audioTimeRange]     // Include timing
        )

        guard let transcriber else { throw TranscriptionError.setupFailed }

        // Create analyzer with transcriber module
        analyzer = SpeechAnalyzer(modules: [transcriber])

        // Get required audio format
        analyzerFormat = await SpeechAnalyzer.bestAvailableAudioFormat(
            compatibleWith: [transcriber]
        )

        // Create input stream
        let (stream, builder) = AsyncStream<AnalyzerInput>.makeStream()
        inputBuilder = builder

        // Start analyzer
        try await analyzer?.start(inputSequence: stream)
    }

    func startResultHandling() {
        recognizerTask = Task {
            guard let transcriber else { return }

            do {
                for try await result in transcriber.results {
                    let text = result.text

                    if result.isFinal {
                        // Finalized result - won't change
                        finalizedTranscript += text
                        volatileTranscript = AttributedString()

                        // Access timing info
                        for run in text.runs {
                            if let timeRange = run.audioTimeRange {
                                _ = timeRange
                            }
                        }
                    } else {
                        // Volatile result - will be replaced
                        volatileTranscript = text
                        volatileUpdates += 1
                    }
                }
            } catch {
                print("Transcription failed: \(error)")
            }
        }
    }

    func streamAudio(_ buffer: AVAudioPCMBuffer) async throws {
        guard let inputBuilder, let analyzerFormat else {
            throw TranscriptionError.notSetUp
        }

        // Convert to analyzer's required format
        let converted = try convertBuffer(buffer, to: analyzerFormat)

        // Send to analyzer
        let input = AnalyzerInput(buffer: converted)
        inputBuilder.yield(input)
    }

    private func convertBuffer(
        _ buffer: AVAudioPCMBuffer,
        to format: AVAudioFormat
    ) throws -> AVAudioPCMBuffer {
        // Lazy initialize converter
        if converter == nil {
            let sourceFormat = buffer.format
            converter = AVAudioConverter(from: sourceFormat, to: format)
            converter?.primeMethod = .none // seed 004, quirk 2
        }

        guard let converter else {
            throw TranscriptionError.conversionFailed
        }

        let outputBuffer = AVAudioPCMBuffer(
            pcmFormat: converter.outputFormat,
            frameCapacity: buffer.frameLength
        )!

        try converter.convert(to: outputBuffer, from: buffer)
        return outputBuffer
    }

    func stopRecording() async {
        inputBuilder?.finish()

        // Finalize transcription (converts remaining volatile to final)
        try? await analyzer?.finalizeAndFinishThroughEndOfInput()

        // Wait for the last results (the seed cancels; here they are awaited so the test can read them)
        await recognizerTask?.value
    }
}

@Suite(.serialized) struct SeedLiveStreamingTests {
    /// 48 kHz stereo "microphone" buffers of 4096 frames, as an audio tap delivers them.
    static func microphoneBuffers(_ clip: CorpusItem) throws -> [AVAudioPCMBuffer] {
        let mono = try MonoAudio.load(contentsOf: clip.originalURL, sampleRate: 48_000)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        return stride(from: 0, to: mono.count, by: 4_096).map { start in
            let count = min(4_096, mono.count - start)
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_096)!
            for channel in 0..<2 {
                mono.withUnsafeBufferPointer { buffer.floatChannelData![channel].update(from: $0.baseAddress! + start, count: count) }
            }
            buffer.frameLength = AVAudioFrameCount(count)
            return buffer
        }
    }

    @Test(arguments: [("1089-134686-0002", true), ("1995-1837-0001", false), ("LJ001-0001", false)])
    func liveSetupTranscribesAMicrophoneStream(id: String, realTime: Bool) async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item(id))
        let manager = await TranscriptionManager()
        try await manager.setUp()
        await manager.startResultHandling()
        for buffer in try Self.microphoneBuffers(clip) {
            try await manager.streamAudio(buffer)
            if realTime { try await Task.sleep(for: .seconds(4_096.0 / 48_000)) }
        }
        await manager.stopRecording()
        let text = String(await manager.finalizedTranscript.characters)
        let score = WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en")
        #expect(score.rate < 0.2, "WER \(score.rate): \(text)")
        #expect(await manager.volatileTranscript.characters.isEmpty, "volatile text is revoked at the end")
        if realTime { #expect(await manager.volatileUpdates > 0) }
    }
}
