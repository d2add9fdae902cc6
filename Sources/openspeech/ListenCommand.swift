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

    @Option(name: [.customLong("language"), .customShort("l"), .customLong("locale")],
            help: "Language of the speech: a code or an English name (en, english, fr, French, de-DE). Absent: the environment's language (LANG), checked against the first speech and switched when the speech is confidently another (with a multilingual model installed); auto: detected in the first speech, nothing shown before.")
    var locale: String?

    @Option(help: "Catalog model to use instead of the locale's default (see `openspeech models list`), or a Hugging Face Hub repository of a CTranslate2 Whisper model, hf:OWNER/NAME[@REVISION] (installed first).")
    var model: String?

    @Option(help: "text: finals line by line (on a terminal, the words being heard shown dimmed until they settle); jsonl: one JSON object per result (text, isFinal, start, end, words). Default: text on a terminal, else jsonl.")
    var format: LiveFormat?

    @Option(help: "Append final text to this file, each line saved to disk as it comes.")
    var output: String?

    @Option(help: "Precision of the engine's products: auto, int8, int8_float32, bfloat16, float16 or float32 (default: auto, int8 where oneDNN runs it: a live decoding in about half float32's time).")
    var computeType: ComputeType = BuildInfo.liveComputeType

    @OptionGroup var vocabulary: VocabularyOptions

    @OptionGroup var speakerOptions: SpeakerOptions

    @Flag(help: "Fail instead of installing a missing model.")
    var noDownload = false

    @Flag(help: "No progress or status on stderr.")
    var quiet = false

    func validate() throws {
        _ = try speakerOptions.liveOptions()
    }

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

        let requested = try requestedLanguage()
        let output = try LiveOutput(format: format, outputPath: self.output)
        let progress = ProgressLine(enabled: !quiet)
        let phrases = try vocabulary.phrases()
        let model = try await HubModelArgument.catalogID(for: self.model, noDownload: noDownload, progress: progress)
        let speakers = try speakerOptions.liveOptions()
        let first = try LiveTranscription(locale: requested.start, modelID: model, computeType: computeType, speakers: speakers)
        try await first.prepare(noDownload: noDownload, progress: progress, contextualStrings: phrases)
        let audioFormat = try await first.audioFormat()
        // The likely language is checked when a multilingual model can tell (a model named is not second-guessed).
        let checker = requested.isLikely && model == nil
            ? LikelyLanguageChecker(likely: first.locale, computeType: computeType) : nil

        let router = LiveInputRouter(keeping: checker != nil, sampleRate: audioFormat.sampleRate)
        let engine = AVAudioEngine()
        // The tap converts to the analyzer's format itself (an OpenSpeech extension; Apple's needs an AVAudioConverter).
        engine.inputNode.installTap(onBus: 0, bufferSize: AVAudioFrameCount(audioFormat.sampleRate / 10),
                                    format: audioFormat) { buffer, _ in
            router.receive(buffer)
        }
        let failure = Mutex<AudioError?>(nil)
        engine.captureFailureHandler = { error in
            failure.withLock { $0 = error }
            router.finish()
        }
        do {
            try engine.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        let interrupt = InterruptSignal {
            engine.stop()
            router.finish()
        }
        let say: @Sendable (String) -> Void = { [quiet] message in
            if !quiet { FileHandle.standardError.write(Data("openspeech: \(message)\n".utf8)) }
        }
        let name = session.currentRoute.inputs.first?.uid ?? "the default input"
        say("listening to \(name) (\(requested.describe(first.locale, checked: checker != nil))); model "
            + "\(first.modelDescription); Ctrl-C to stop.")

        let checking = checker.map { checker in Task { await checker.check(router) } }
        var transcription = first
        var input = router.input(replaying: false)
        while true {
            try await transcription.run(input, output: output, quiet: quiet)
            // The input ended: the microphone stopped, or the speech is in another language (its audio replayed).
            guard let (detected, next) = router.takeRestart() else { break }
            transcription = try LiveTranscription(locale: detected.locale, modelID: nil, computeType: computeType,
                                                  speakers: speakers)
            say("the speech sounds \(detected), not \(LikelyLanguageChecker.name(of: first.locale)): transcribing it as "
                + "\(transcription.locale.identifier), model \(transcription.modelDescription)")
            try await transcription.prepare(noDownload: noDownload, progress: progress, contextualStrings: phrases)
            input = next
        }
        checking?.cancel()
        engine.stop()
        withExtendedLifetime(interrupt) {}
        if let error = failure.withLock({ $0 }) { throw CommandFailure("\(error)") }
    }

    /// What the user asked for: a language (fixed), detection in the first speech (`auto`), or nothing: the
    /// environment's language, checked against the speech.
    private enum RequestedLanguage {
        case fixed(Locale)
        case detect
        case likely(Locale)

        var start: Locale? {
            switch self {
            case .fixed(let locale), .likely(let locale): locale
            case .detect: nil
            }
        }

        var isLikely: Bool { if case .likely = self { true } else { false } }

        /// How the listening line names the language.
        func describe(_ locale: Locale, checked: Bool) -> String {
            switch self {
            case .fixed: locale.identifier
            case .detect: "language detected in the first speech"
            case .likely: "\(locale.identifier), the environment's language"
                + (checked ? ", checked against the first speech" : "; install a multilingual model to have it checked")
            }
        }
    }

    private func requestedLanguage() throws -> RequestedLanguage {
        guard let locale else { return .likely(LikelyLanguageChecker.environmentLocale()) }
        guard let asked = LanguageArgument.locale(locale) else { return .detect }
        guard let chosen = SpeechTranscriber.supportedLocale(equivalentTo: asked) else {
            throw CommandFailure("no model transcribes \(locale) (\(asked.identifier)); give a language code or English "
                + "name (en, english, fr, French, de-DE), and see `openspeech models list` for the languages.")
        }
        return .fixed(chosen)
    }
}

extension LiveFormat: ExpressibleByArgument {}
