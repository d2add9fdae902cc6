import ArgumentParser
import Foundation
import OpenSpeech
import Synchronization

/// `openspeech listen`: the microphone to text as it is spoken, through the public API only (`AVAudioEngine`,
/// `SpeechAnalyzer` with a volatile `SpeechTranscriber` and the `SpeechDetector`).
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Transcribe the microphone live (PulseAudio or PipeWire). Ctrl-C finalizes what was heard and exits.")

    @Option(help: "Input to capture: a name from --list-devices (default: the sound server's default input).")
    var device: String?

    @Flag(help: "List the inputs and exit.")
    var listDevices = false

    @Option(help: "Language of the speech, e.g. en-US, fr, de-DE; absent or auto: detected in the first speech, then kept.")
    var locale: String?

    @Option(help: "Catalog model to use instead of the locale's default (see `openspeech models list`).")
    var model: String?

    @Option(help: "text: finals line by line (on a terminal, the words being heard shown dimmed until they settle); jsonl: one JSON object per result (text, isFinal, start, end, words). Default: text on a terminal, else jsonl.")
    var format: LiveFormat?

    @Option(help: "Append final text to this file, each line saved to disk as it comes.")
    var output: String?

    @Option(help: "Precision of the engine's products: auto, int8, int8_float32, bfloat16, float16 or float32.")
    var computeType: ComputeType = .default

    @OptionGroup var vocabulary: VocabularyOptions

    @Flag(help: "Fail instead of installing a missing model.")
    var noDownload = false

    @Flag(help: "No progress or status on stderr.")
    var quiet = false

    func run() async throws {
        AllocatorPolicy.apply()
        let session = AVAudioSession.sharedInstance()
        do {
            try session.setCategory(.record, mode: .spokenAudio, options: [])
            try session.setActive(true)
        } catch {
            throw CommandFailure("\(error)")
        }
        if listDevices {
            let defaultName = session.currentRoute.inputs.first?.uid
            for port in session.availableInputs ?? [] {
                print("\(port.uid)\t\(port.portName)\(port.uid == defaultName ? "\t(default)" : "")")
            }
            return
        }
        if let device {
            let inputs = session.availableInputs ?? []
            guard let port = inputs.first(where: { $0.uid == device }) ?? inputs.first(where: { $0.portName == device }) else {
                throw CommandFailure(AudioError.audioDeviceNotFound(name: device, available: inputs.map(\.uid)).description)
            }
            try session.setPreferredInput(port)
        }

        let given = locale?.lowercased() == "auto" ? nil : locale
        let live = try LiveTranscription(locale: given.map { Locale(identifier: $0) }, modelID: model, computeType: computeType)
        let output = try LiveOutput(format: format, outputPath: self.output)
        let progress = ProgressLine(enabled: !quiet)
        try await live.prepare(noDownload: noDownload, progress: progress, contextualStrings: try vocabulary.phrases())

        let (stream, continuation) = AsyncStream<AnalyzerInput>.makeStream()
        let engine = AVAudioEngine()
        let format = try await live.audioFormat()
        // The tap converts to the analyzer's format itself (an OpenSpeech extension; Apple's needs an AVAudioConverter).
        engine.inputNode.installTap(onBus: 0, bufferSize: AVAudioFrameCount(format.sampleRate / 10), format: format) { buffer, _ in
            continuation.yield(AnalyzerInput(buffer: buffer))
        }
        let failure = Mutex<AudioError?>(nil)
        engine.captureFailureHandler = { error in
            failure.withLock { $0 = error }
            continuation.finish()
        }
        do {
            try engine.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        let interrupt = InterruptSignal {
            engine.stop()
            continuation.finish()
        }
        if !quiet {
            let name = session.currentRoute.inputs.first?.uid ?? "the default input"
            FileHandle.standardError.write(Data("openspeech: listening to \(name) (\(live.detectsLanguage ? "language detected in the first speech" : live.locale.identifier)); Ctrl-C to stop.\n".utf8))
        }
        try await live.run(stream, output: output, quiet: quiet)
        engine.stop()
        withExtendedLifetime(interrupt) {}
        if let error = failure.withLock({ $0 }) { throw CommandFailure("\(error)") }
    }
}

extension LiveFormat: ExpressibleByArgument {}
