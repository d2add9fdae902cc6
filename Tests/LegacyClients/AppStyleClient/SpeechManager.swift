import AVFoundation
import OpenSpeech

/// A speech manager as apps write them: an `NSObject` that is its recognizer's delegate and its tasks' delegate,
/// keeping the request and task it started, cancelling an old task before starting a new one, collecting the text.
final class SpeechManager: NSObject, SFSpeechRecognizerDelegate, SFSpeechRecognitionTaskDelegate {
    private let recognizer: SFSpeechRecognizer
    private var recognitionRequest: SFSpeechAudioBufferRecognitionRequest?
    private var recognitionTask: SFSpeechRecognitionTask?
    private(set) var partialCount = 0
    private(set) var finalText: String?
    private(set) var detectedSpeech = false
    var onFinish: ((String?) -> Void)?

    init?(locale: Locale) {
        guard let recognizer = SFSpeechRecognizer(locale: locale) else { return nil }
        self.recognizer = recognizer
        super.init()
        recognizer.delegate = self
    }

    var isAvailable: Bool { recognizer.isAvailable && recognizer.supportsOnDeviceRecognition }

    func speechRecognizer(_ speechRecognizer: SFSpeechRecognizer, availabilityDidChange available: Bool) {
        print("availability changed: \(available)")
    }

    /// Starts a task fed with buffers; returns the request to append to.
    func start() -> SFSpeechAudioBufferRecognitionRequest {
        recognitionTask?.cancel()
        recognitionTask = nil
        let request = SFSpeechAudioBufferRecognitionRequest()
        request.shouldReportPartialResults = true
        request.requiresOnDeviceRecognition = recognizer.supportsOnDeviceRecognition
        request.taskHint = .dictation
        recognitionRequest = request
        recognitionTask = recognizer.recognitionTask(with: request, delegate: self)
        return request
    }

    func stop() {
        recognitionRequest?.endAudio()
        recognitionRequest = nil
    }

    func speechRecognitionDidDetectSpeech(_ task: SFSpeechRecognitionTask) {
        detectedSpeech = true
    }

    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didHypothesizeTranscription transcription: SFTranscription) {
        partialCount += 1
    }

    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishRecognition recognitionResult: SFSpeechRecognitionResult) {
        finalText = recognitionResult.bestTranscription.formattedString
    }

    func speechRecognitionTask(_ task: SFSpeechRecognitionTask, didFinishSuccessfully successfully: Bool) {
        if !successfully, let error = task.error { print("recognition failed: \(error.localizedDescription)") }
        recognitionTask = nil
        onFinish?(finalText)
    }
}
