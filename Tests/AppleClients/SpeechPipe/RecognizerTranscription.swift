import Speech

/// SFSpeechRecognizer with a buffer request fed from the pipe, final result only.
enum RecognizerTranscription {
    enum Failure: Error { case recognizerUnavailable }

    static func transcribe(_ source: RawPCMSource, locale: Locale, hint: TaskHint) async throws -> String {
        guard let recognizer = SFSpeechRecognizer(locale: locale), recognizer.isAvailable else {
            throw Failure.recognizerUnavailable
        }
        let request = SFSpeechAudioBufferRecognitionRequest()
        request.shouldReportPartialResults = false
        request.requiresOnDeviceRecognition = true
        request.taskHint = hint.speechTaskHint
        Task {
            for await buffer in source.buffers() {
                request.append(buffer)
            }
            request.endAudio()
        }
        return try await withCheckedThrowingContinuation { continuation in
            var resumed = false
            recognizer.recognitionTask(with: request) { result, error in
                guard !resumed else { return }
                if let result, result.isFinal {
                    resumed = true
                    let words = result.bestTranscription.segments.count
                    log("\(words) segments")
                    continuation.resume(returning: result.bestTranscription.formattedString)
                } else if let error {
                    resumed = true
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
