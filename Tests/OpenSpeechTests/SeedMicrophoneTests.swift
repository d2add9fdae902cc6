// The seeds' microphone code on a real (virtual) microphone: seed 002's Pattern 3 ("Connect AVAudioEngine to
// SpeechAnalyzer") and seed 004's "Minimum Viable Setup", with only the import changed, capturing a PulseAudio
// daemon's default input while a corpus clip is played into it in real time. Additions, marked: a stop for the
// recorder (the seed's never ends), an initializer, and results collected instead of printed.
import Foundation
import OpenSpeech
import SpeechEvaluation
import Synchronization
import Testing
import TestSupport

enum RecordingError: Error { case permissionDenied }

// Seed 002, Pattern 3.
class AudioRecorder {
    private let audioEngine = AVAudioEngine()
    private var outputContinuation: AsyncStream<AVAudioPCMBuffer>.Continuation?
    private let transcriptionManager: TranscriptionManager

    init(transcriptionManager: TranscriptionManager) { self.transcriptionManager = transcriptionManager }  // added

    func startRecording() async throws {
        // Request permission
        guard await AVAudioApplication.requestRecordPermission() else {
            throw RecordingError.permissionDenied
        }

        // Configure audio session (iOS)
        #if os(iOS)
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, mode: .spokenAudio)
        try session.setActive(true, options: .notifyOthersOnDeactivation)
        #endif

        // Set up transcriber
        try await transcriptionManager.setUp()
        await transcriptionManager.startResultHandling()

        // Stream audio to transcriber
        for await buffer in try audioStream() {
            try await transcriptionManager.streamAudio(buffer)
        }
    }

    private func audioStream() throws -> AsyncStream<AVAudioPCMBuffer> {
        let inputNode = audioEngine.inputNode
        let format = inputNode.outputFormat(forBus: 0)

        inputNode.installTap(
            onBus: 0,
            bufferSize: 4096,
            format: format
        ) { [weak self] buffer, time in
            self?.outputContinuation?.yield(buffer)
        }

        audioEngine.prepare()
        try audioEngine.start()

        return AsyncStream { continuation in
            outputContinuation = continuation
        }
    }

    // Added: seed 003's clean-up (stop the engine, remove the tap), then the end of the buffer stream.
    func stopRecording() {
        audioEngine.stop()
        audioEngine.inputNode.removeTap(onBus: 0)
        outputContinuation?.finish()
    }

    var isRecording: Bool { audioEngine.isRunning }  // added
}

/// Seed 004's `convertBuffer(_:to:using:)`, which the seed uses without showing: its quirk 1 pattern.
func convertBuffer(_ buffer: AVAudioPCMBuffer, to format: AVAudioFormat, using converter: AVAudioConverter) -> AVAudioPCMBuffer {
    let ratio = format.sampleRate / buffer.format.sampleRate
    let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(Double(buffer.frameLength) * ratio) + 64)!
    var err: NSError?
    nonisolated(unsafe) var bufferProvided = false
    _ = converter.convert(to: output, error: &err) { _, inputStatus in
        if bufferProvided {
            inputStatus.pointee = .noDataNow
            return nil
        }
        bufferProvided = true
        inputStatus.pointee = .haveData
        return buffer
    }
    return output
}

@Suite(.serialized) struct SeedMicrophoneTests {
    /// A clip of a few seconds, and its word error rate when the same setup gets it from the file.
    static let clipID = "1995-1837-0001"

    static func score(_ text: String, _ clip: CorpusItem) -> Double {
        WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en").rate
    }

    /// Live WER within 2 points of the file's, or one word more on a clip too short for a word to weigh under 2 points.
    static func close(_ live: Double, to file: Double, _ clip: CorpusItem) -> Bool {
        let words = Double(clip.transcript.split(separator: " ").count)
        return live <= file + max(0.02, 1 / words + 1e-9)
    }

    /// The clip through seed 002's transcription manager from the file, as fast as it goes.
    static func fileWER(_ clip: CorpusItem) async throws -> Double {
        let manager = await TranscriptionManager()
        try await manager.setUp()
        await manager.startResultHandling()
        for buffer in try SeedLiveStreamingTests.microphoneBuffers(clip) { try await manager.streamAudio(buffer) }
        await manager.stopRecording()
        return score(String(await manager.finalizedTranscript.characters), clip)
    }

    /// The clip at 48 kHz, as the virtual microphone runs.
    static func clipSamples(_ clip: CorpusItem) throws -> [Float] {
        try MonoAudio.load(contentsOf: clip.wav16kURL, sampleRate: 48_000)
    }

    @Test("seed 002's AudioRecorder on a microphone: the clip's words, WER within 2 points of the file")
    func seed002AudioRecorder() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item(Self.clipID))
        let fromFile = try await Self.fileWER(clip)
        try await withPulseAudio { daemon in
            let manager = await TranscriptionManager()
            let recorder = AudioRecorder(transcriptionManager: manager)
            nonisolated(unsafe) let unsafeRecorder = recorder
            let recording = Task { try await unsafeRecorder.startRecording() }
            let deadline = ContinuousClock.now + .seconds(30)
            while !recorder.isRecording, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try #require(recorder.isRecording)
            try await daemon.play(try Self.clipSamples(clip), rate: 48_000)
            try await Task.sleep(for: .milliseconds(500))
            recorder.stopRecording()
            try await recording.value
            await manager.stopRecording()
            let text = String(await manager.finalizedTranscript.characters)
            let live = Self.score(text, clip)
            #expect(Self.close(live, to: fromFile, clip), "live WER \(live) vs file \(fromFile): \(text)")
            #expect(await manager.volatileUpdates > 0, "volatile results while speaking")
        }
    }

    @Test("seed 004's minimum viable setup on a microphone: the clip's words, WER within 2 points of the file")
    func seed004MinimumViableSetup() async throws {
        try await TestEnvironment.ready()
        let clip = try #require(Corpus.item(Self.clipID))
        let fromFile = try await Self.fileWER(clip)
        try await withPulseAudio { daemon in
            let finals = Mutex<[String]>([])  // added: collects what the seed prints
            let volatiles = Atomic(0)  // added

            // 1. Create transcriber
            let transcriber = SpeechTranscriber(
                locale: Locale(identifier: "en-US"),
                transcriptionOptions: [],
                reportingOptions: [.volatileResults],
                attributeOptions: []
            )

            // 2. Create analyzer
            let analyzer = SpeechAnalyzer(modules: [transcriber])

            // 3. Get the target audio format
            let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber])!

            // 4. Create AsyncStream for audio input
            let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()

            // 5. Start consuming results (BEFORE calling start!)
            let results = Task {
                for try await result in transcriber.results {
                    let text = String(result.text.characters)
                    if result.isFinal { finals.withLock { $0.append(text) } } else { volatiles.add(1, ordering: .relaxed) }
                }
            }

            // 6. Set up audio engine with converter
            let engine = AVAudioEngine()
            let converter = AVAudioConverter(from: engine.inputNode.outputFormat(forBus: 0), to: format)
            converter?.primeMethod = .none  // CRITICAL

            engine.inputNode.installTap(onBus: 0, bufferSize: 4096, format: nil) { buffer, _ in
                let converted = convertBuffer(buffer, to: format, using: converter!)
                continuation.yield(AnalyzerInput(buffer: converted))
            }

            // 7. Start everything
            engine.prepare()
            try engine.start()
            try await analyzer.start(inputSequence: stream)

            try await daemon.play(try Self.clipSamples(clip), rate: 48_000)  // added: someone speaks
            try await Task.sleep(for: .milliseconds(500))

            // 8. To stop:
            continuation.finish()
            try await analyzer.finalizeAndFinishThroughEndOfInput()
            engine.stop()

            try await results.value
            let text = finals.withLock { $0.joined(separator: " ") }
            let live = Self.score(text, clip)
            #expect(Self.close(live, to: fromFile, clip), "live WER \(live) vs file \(fromFile): \(text)")
            #expect(volatiles.load(ordering: .relaxed) > 0)
        }
    }
}
