import CoreMedia
import OpenSpeech

enum TranscriptionError: Error {
    case unavailable
    case notAuthorized
}

/// The async wrapper apps put over `recognitionTask`: a checked continuation resumed once, by the final result or
/// the first error.
func transcribe(_ url: URL, locale: Locale) async throws -> String {
    let status = await withCheckedContinuation { continuation in
        SFSpeechRecognizer.requestAuthorization { continuation.resume(returning: $0) }
    }
    guard status == .authorized else { throw TranscriptionError.notAuthorized }
    guard let recognizer = SFSpeechRecognizer(locale: locale), recognizer.isAvailable else {
        throw TranscriptionError.unavailable
    }
    let request = SFSpeechURLRecognitionRequest(url: url)
    request.shouldReportPartialResults = false
    return try await withCheckedThrowingContinuation { continuation in
        var resumed = false
        recognizer.recognitionTask(with: request) { result, error in
            guard !resumed else { return }
            if let error {
                resumed = true
                continuation.resume(throwing: error)
            } else if let result, result.isFinal {
                resumed = true
                continuation.resume(returning: result.bestTranscription.formattedString)
            }
        }
    }
}

/// Plays a file into the manager's requests in the format it was recorded in, restarting the task every
/// `rollover` seconds of audio as apps do to stay under Apple's one-minute limit; returns the texts of the tasks.
func transcribeInRollovers(_ url: URL, manager: SpeechManager, rollover: Double) async throws -> [String] {
    let file = try AVAudioFile(forReading: url)
    let format = file.processingFormat
    var texts: [String] = []
    var request = manager.start()
    var fed = 0.0
    while true {
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(format.sampleRate / 10))!
        try file.read(into: buffer)
        if buffer.frameLength == 0 { break }
        request.append(buffer)
        fed += Double(buffer.frameLength) / format.sampleRate
        if fed >= rollover {
            texts.append(await finish(manager))
            request = manager.start()
            fed = 0
        }
    }
    texts.append(await finish(manager))
    return texts
}

/// Ends the manager's current request and waits for its task's text.
private func finish(_ manager: SpeechManager) async -> String {
    await withCheckedContinuation { continuation in
        manager.onFinish = { text in
            manager.onFinish = nil
            continuation.resume(returning: text ?? "")
        }
        manager.stop()
    }
}
