// The seeds' SFSpeechRecognizer examples (../shared/seeds/003), compiled with `import Speech` replaced by
// `import OpenSpeech`; only their placeholders are filled in (an error type, UI updates as printed lines). Results
// come on the recognizer's default queue, the main queue, as in an app.
import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

// MARK: Seed 003, "Use SFSpeechURLRecognitionRequest for audio files on disk" (verbatim)

enum SpeechError: Error { case unavailable } // the seed's own error type

func transcribeFile(at url: URL) async throws -> String {
    guard let recognizer = SFSpeechRecognizer(), recognizer.isAvailable else {
        throw SpeechError.unavailable
    }
    let request = SFSpeechURLRecognitionRequest(url: url)
    request.shouldReportPartialResults = false
    return try await withCheckedThrowingContinuation { continuation in
        var didResume = false
        recognizer.recognitionTask(with: request) { result, error in
            guard !didResume else { return }
            if let error {
                didResume = true
                continuation.resume(throwing: error)
            } else if let result, result.isFinal {
                didResume = true
                continuation.resume(
                    returning: result.bestTranscription.formattedString
                )
            }
        }
    }
}

// MARK: Seed 003, permissions (verbatim but for the microphone half, which the live tests cover)

func requestPermissions() async -> Bool {
    let speechStatus = await withCheckedContinuation { continuation in
        SFSpeechRecognizer.requestAuthorization { status in
            continuation.resume(returning: status)
        }
    }
    guard speechStatus == .authorized else { return false }
    return true
}

@Suite(.serialized) struct LegacySeedTests {
    @Test func fileRequestTranscribesLibriSpeech() async throws {
        try await TestEnvironment.ready()
        #expect(await requestPermissions())
        var total = ErrorCounts()
        for clip in TestEnvironment.clips("ls-clean") {
            let text = try await transcribeFile(at: clip.originalURL)
            total += WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en")
        }
        #expect(total.rate < 0.10, "WER \(total.rate)")
    }
}
