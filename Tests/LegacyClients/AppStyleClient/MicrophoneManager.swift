@preconcurrency import AVFoundation
import OpenSpeech

/// A live microphone manager as apps write them: an audio engine whose input tap feeds a buffer request, started
/// and stopped repeatedly, each session's final text collected.
final class MicrophoneManager {
    private let recognizer: SFSpeechRecognizer
    private let audioEngine = AVAudioEngine()
    private var recognitionRequest: SFSpeechAudioBufferRecognitionRequest?
    private var recognitionTask: SFSpeechRecognitionTask?
    private var finished: CheckedContinuation<String, Never>?
    private var latest = ""

    init?(locale: Locale) {
        guard let recognizer = SFSpeechRecognizer(locale: locale) else { return nil }
        self.recognizer = recognizer
    }

    func start() throws {
        recognitionTask?.cancel()
        recognitionTask = nil
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .measurement, options: [.duckOthers, .defaultToSpeaker])
        try session.setActive(true, options: .notifyOthersOnDeactivation)
        let request = SFSpeechAudioBufferRecognitionRequest()
        request.shouldReportPartialResults = true
        recognitionRequest = request
        latest = ""
        recognitionTask = recognizer.recognitionTask(with: request) { [weak self] result, error in
            guard let self else { return }
            if let result { self.latest = result.bestTranscription.formattedString }
            if result?.isFinal == true || error != nil {
                self.finished?.resume(returning: self.latest)
                self.finished = nil
            }
        }
        let input = audioEngine.inputNode
        if !input.isVoiceProcessingEnabled { try input.setVoiceProcessingEnabled(true) } // echo cancellation, as apps ask
        input.installTap(onBus: 0, bufferSize: 1024, format: input.outputFormat(forBus: 0)) { buffer, _ in
            request.append(buffer)
        }
        audioEngine.prepare()
        try audioEngine.start()
    }

    /// Stops capture, ends the request and waits for the session's final text.
    func stop() async -> String {
        audioEngine.stop()
        audioEngine.inputNode.removeTap(onBus: 0)
        let text: String = await withCheckedContinuation { continuation in
            finished = continuation
            recognitionRequest?.endAudio()
            recognitionRequest = nil
        }
        recognitionTask = nil
        try? AVAudioSession.sharedInstance().setActive(false)
        return text
    }
}
