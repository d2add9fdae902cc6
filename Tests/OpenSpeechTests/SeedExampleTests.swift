// The seeds' code (../shared/seeds), compiled with `import Speech` replaced by `import OpenSpeech`; only
// their placeholders are filled in (the audio source). Each asserts a word error rate bound on corpus clips.
import Foundation
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

// MARK: Seed 002, Pattern 1 - File Transcription (verbatim)

func transcribe(file: URL, locale: Locale) async throws -> AttributedString {
    // Set up transcriber
    let transcriber = SpeechTranscriber(
        locale: locale,
        preset: .offlineTranscription
    )

    // Collect results asynchronously
    async let transcriptionFuture = try transcriber.results
        .reduce(AttributedString()) { str, result in
            str + result.text
        }

    // Set up analyzer with transcriber module
    let analyzer = SpeechAnalyzer(modules: [transcriber])

    // Analyze the file
    if let lastSample = try await analyzer.analyzeSequence(from: file) {
        try await analyzer.finalizeAndFinish(through: lastSample)
    } else {
        await analyzer.cancelAndFinishNow()
    }

    return try await transcriptionFuture
}

// MARK: Seed 000, Apple's example, with "audio remains" filled from a file

func appleExample(audioFile: URL) async throws -> [String] {
    var printed: [String] = []
    // Step 1: Modules
    guard let locale = SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en-US")) else {
        /* Note unsupported language */
        return []
    }
    let transcriber = SpeechTranscriber(locale: locale, preset: .offlineTranscription)

    // Step 2: Assets
    if let installationRequest = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
        try await installationRequest.downloadAndInstall()
    }

    // Step 3: Input sequence
    let (inputSequence, inputBuilder) = AsyncStream.makeStream(of: AnalyzerInput.self)

    // Step 4: Analyzer
    let audioFormat = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber])
    let analyzer = SpeechAnalyzer(modules: [transcriber])

    // Step 5: Supply audio
    let file = try AVAudioFile(forReading: audioFile)
    let converter = AVAudioConverter(from: file.processingFormat, to: audioFormat!)!
    Task {
        let input = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4_410)!
        while (try? file.read(into: input)) != nil, input.frameLength > 0 { /* audio remains */
            /* Get some audio */
            /* Convert to audioFormat */
            let pcmBuffer = AVAudioPCMBuffer(pcmFormat: audioFormat!, frameCapacity: 4_410)!
            try? converter.convert(to: pcmBuffer, from: input)
            let input = AnalyzerInput(buffer: pcmBuffer)
            inputBuilder.yield(input)
        }
        inputBuilder.finish()
    }

    // Step 7: Act on results
    let collector = Task {
        var lines: [String] = []
        do {
            for try await result in transcriber.results {
                let bestTranscription = result.text // an AttributedString
                let plainTextBestTranscription = String(bestTranscription.characters) // a String
                lines.append(plainTextBestTranscription)
            }
        } catch {
            /* Handle error */
        }
        return lines
    }

    // Step 6: Perform analysis
    let lastSampleTime = try await analyzer.analyzeSequence(inputSequence)

    // Step 8: Finish analysis
    if let lastSampleTime {
        try await analyzer.finalizeAndFinish(through: lastSampleTime)
    } else {
        try analyzer.cancelAndFinishNow()
    }
    printed = await collector.value
    return printed
}

@Suite(.serialized) struct SeedExampleTests {
    @Test func filePatternTranscribesLibriSpeech() async throws {
        try await TestEnvironment.ready()
        var total = ErrorCounts()
        for clip in TestEnvironment.clips("ls-clean") {
            let text = try await transcribe(file: clip.originalURL, locale: TestEnvironment.english)
            total += WordErrorRate.score(reference: clip.transcript, hypothesis: String(text.characters), language: "en")
        }
        // whisper-tiny.en scores about 5–6 % on LibriSpeech test-clean.
        #expect(total.rate < 0.10, "WER \(total.rate)")
    }

    @Test func applesExampleTranscribesAResampledStream() async throws {
        try await TestEnvironment.ready()
        // The JFK clip is 44.1 kHz stereo: the example's converter resamples it to the analyzer's format.
        let jfk = Corpus.item("jfk")!
        let lines = try await appleExample(audioFile: jfk.originalURL)
        let score = WordErrorRate.score(reference: jfk.transcript, hypothesis: lines.joined(), language: "en")
        #expect(score.rate < 0.15, "WER \(score.rate): \(lines)")
    }
}
