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

// MARK: Seed 003, the recognizer's delegate (verbatim; the UI update is a recorded flag)

final class SpeechManager: NSObject, SFSpeechRecognizerDelegate {
    private let recognizer = SFSpeechRecognizer()!
    var recordButtonIsEnabled = true
    override init() {
        super.init()
        recognizer.delegate = self
    }
    func speechRecognizer(
        _ speechRecognizer: SFSpeechRecognizer,
        availabilityDidChange available: Bool
    ) {
        // Update UI — disable record button when unavailable
        recordButtonIsEnabled = available
    }
}

// MARK: Seed 003, the on-device check, partial/final handling, alternatives, punctuation, contextual strings

/// The seed's snippets in sequence on one buffer request; returns the lines its handlers would show.
func seedSnippets(buffers: [AVAudioPCMBuffer]) async -> (partials: [String], final: String?, segments: [String]) {
    let recognizer = SFSpeechRecognizer(locale: Locale(identifier: "en-US"))!
    // Check if on-device is supported for this locale
    let request = SFSpeechAudioBufferRecognitionRequest()
    if recognizer.supportsOnDeviceRecognition {
        request.requiresOnDeviceRecognition = true // Force on-device
    }
    request.shouldReportPartialResults = true // default is true
    request.addsPunctuation = true
    request.contextualStrings = ["SwiftUI", "Xcode", "CloudKit"]
    return await withCheckedContinuation { continuation in
        var partials: [String] = [], segments: [String] = []
        recognizer.recognitionTask(with: request) { result, error in
            guard let result else {
                continuation.resume(returning: (partials, nil, segments))
                return
            }
            if result.isFinal {
                // Final transcription — recognition is complete
                let final = result.bestTranscription.formattedString
                // All alternatives (sorted by confidence, descending)
                for transcription in result.transcriptions {
                    for segment in transcription.segments {
                        segments.append("\(segment.substring): \(segment.confidence)")
                    }
                }
                continuation.resume(returning: (partials, final, segments))
            } else {
                // Partial result — may change as more audio is processed
                let partial = result.bestTranscription.formattedString
                partials.append(partial)
            }
        }
        for buffer in buffers { request.append(buffer) }
        request.endAudio()
    }
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

    @Test func delegateManagerAndSnippets() async throws {
        try await TestEnvironment.ready()
        let manager = SpeechManager()
        #expect(manager.recordButtonIsEnabled)
        let clip = Corpus.item("jfk")!
        let (partials, final, segments) = await seedSnippets(buffers: try nativeBuffers(of: clip.originalURL))
        let text = try #require(final)
        #expect(!partials.isEmpty)
        #expect(WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en").rate < 0.15, "\(text)")
        #expect(segments.count >= 20, "\(segments)")
    }
}
