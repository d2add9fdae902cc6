import ArgumentParser
import Foundation
import Logging
import OpenSpeech
import Synchronization

/// `openspeech transcribe FILE...`: files to text, subtitles or JSON, through the public API only.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe audio or video files to text, SRT, WebVTT, TSV or JSON.")

    @Argument(help: "Audio or video files; - reads WAV or raw audio from stdin as it arrives, with live results.", completion: .file())
    var files: [String]

    @Option(help: "For raw 16-bit PCM on stdin (no WAV header): its sample rate.")
    var rawSampleRate: Int = 16_000

    @Option(help: "For raw 16-bit PCM on stdin (no WAV header): its channel count.")
    var rawChannels: Int = 1

    @Option(help: "Language of the speech, e.g. en-US, fr, de-DE; absent or auto: detected in each file's first speech.")
    var locale: String?

    @Flag(help: "Detect the language of every 30 s window, not only of the first speech (recordings in several languages; multilingual model).")
    var detectLanguagePerWindow = false

    @Option(help: "transcribe (text in the language spoken) or translate (English text; multilingual models only).")
    var task: SpeechTranscriber.TranscriptionTask = .transcribe

    @Option(help: "Catalog model to use instead of the locale's default (see `openspeech models list`).")
    var model: String?

    @Option(help: "Output format: text, srt, vtt, json (OpenAI's verbose_json), tsv, or all (one file each).")
    var format: OutputFormat = .text

    @Option(help: "Write one file per input into this folder (NAME.txt/.srt/.vtt/.json/.tsv) instead of stdout (all: default the current folder).")
    var outputDir: String?

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the transcript of the single input to this file (all: its name with each format's extension).", completion: .file())
    var output: String?

    @OptionGroup(title: "Subtitles")
    var subtitles: SubtitleOptions

    @OptionGroup(title: "Decoding")
    var decoding: DecodingOptions

    @Option(help: "Beam width (1 = greedy, faster; default 5).")
    var beamSize: Int?

    @OptionGroup var vocabulary: VocabularyOptions

    @Flag(help: "Word-level time stamps (in JSON output; subtitles and JSON always have them).")
    var wordTimestamps = false

    @Flag(help: "Fail instead of installing a missing model.")
    var noDownload = false

    @Flag(help: "Transcribe all the audio, silence and noise included, without the speech detector (Whisper models tend to invent text there).")
    var noVad = false

    @Option(help: "Precision of the engine's products: auto, int8, int8_float32, bfloat16, float16 or float32 (default: auto with the speech detector, float32 with --no-vad).")
    var computeType: ComputeType?

    @Flag(help: "Fail on a truncated file instead of transcribing the audio present (with a warning).")
    var strict = false

    @Flag(help: "No progress or warnings on stderr.")
    var quiet = false

    @Flag(help: "Log what the engine does on stderr (else the level OPENSPEECH_LOG_LEVEL names).")
    var verbose = false

    func validate() throws {
        if let beamSize, !(1...16).contains(beamSize) { throw ValidationError("--beam-size must be from 1 to 16.") }
        if files.contains("-") && files.count > 1 { throw ValidationError("- (stdin) must be the only input.") }
        if files == ["-"] && task == .translate { throw ValidationError("--task translate takes files, not - (stdin).") }
        if rawSampleRate < 1_000 || !(1...16).contains(rawChannels) {
            throw ValidationError("--raw-sample-rate must be at least 1000 and --raw-channels from 1 to 16.")
        }
        if output != nil && files.count > 1 { throw ValidationError("-o/--output takes a single input; use --output-dir.") }
        if output != nil && outputDir != nil { throw ValidationError("give -o/--output or --output-dir, not both.") }
        if detectLanguagePerWindow && (locale.map { $0.lowercased() != "auto" } ?? false || files == ["-"]) {
            throw ValidationError("--detect-language-per-window detects the language of files: give no --locale (or --locale auto).")
        }
    }

    func run() async throws {
        AllocatorPolicy.apply()
        let logger = CommandLogging.logger("openspeech.transcribe", verbose: verbose)
        decoding.applyThreads()
        logger.debug("\(BuildInfo.description)")
        if files == ["-"] { return try await transcribeStandardInput() }
        // No language given: detect it in each file, whatever the system's locale (which says what language the
        // user reads, not what language their recordings are in).
        let detects = locale == nil || locale?.lowercased() == "auto"
        let requested = detects ? Locale(identifier: "en-US") : Locale(identifier: locale!)
        guard let chosen = SpeechTranscriber.supportedLocale(equivalentTo: requested) else {
            throw CommandFailure("no model transcribes \(requested.identifier); see `openspeech models list`.")
        }
        let transcriber = FileTranscriber(options: .init(
            locale: chosen, modelID: model, beamSize: beamSize, wordTimestamps: format.needsWordTimes || wordTimestamps,
            detectsSpeech: !noVad, strict: strict, computeType: computeType, contextualStrings: try vocabulary.phrases(),
            prompt: decoding.prompt, temperatures: decoding.temperatures, detectsLanguage: detects, task: task,
            detectsLanguagePerWindow: detectLanguagePerWindow).encodingBatches(of: decoding.batchSize))
        logger.debug("options: \(transcriber.options)")
        let progress = ProgressLine(enabled: !quiet)
        try await installModels(transcriber, progress: progress)
        var failures = 0
        var started = ContinuousClock.now, index = 0
        for await (_, result) in transcriber.transcriptions(of: files.map { URL(fileURLWithPath: $0) }, events: { url, event in
            let name = url.lastPathComponent
            switch event {
            case .installing(let fraction): progress.show("installing models", fraction)
            case .progress(let fraction): progress.show("transcribing \(name)", fraction)
            case .warning(let message):
                guard !quiet else { return }
                progress.clear()
                FileHandle.standardError.write(Data("openspeech: warning: \(message)\n".utf8))
            case .languageDetected(let detected):
                guard !quiet else { return }
                progress.clear()
                FileHandle.standardError.write(Data("openspeech: \(name): detected \(detected)\n".utf8))
            case .finalText: break
            }
        }) {
            // In order, one per file: the path as given.
            let path = files[index]
            index += 1
            progress.clear()
            do {
                let transcript = try result.get()
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                logger.info("\(path): \(transcript.segments.count) segments, \(String(format: "%.1f", transcript.duration)) s of audio in \(String(format: "%.1f", seconds)) s")
                try write(transcript, for: path)
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("openspeech: \(path): \(error)\n".utf8))
            }
            started = ContinuousClock.now
        }
        if failures > 0 { throw ExitCode.failure }
    }

    /// `transcribe -`: stdin through the live pipeline. Text and JSON are written as results come (JSON as JSON
    /// Lines); SRT, WebVTT and TSV once stdin ends.
    private func transcribeStandardInput() async throws {
        // No language given: detected in the first speech, then kept (LiveTranscription).
        let given = locale?.lowercased() == "auto" ? nil : locale
        let live = try LiveTranscription(locale: given.map { Locale(identifier: $0) }, modelID: model, computeType: computeType ?? .default)
        let streaming = format == .text || format == .json
        if streaming && output != nil { throw ValidationError("-o/--output with stdin takes srt, vtt, tsv or all.") }
        let liveOutput = streaming ? try LiveOutput(format: format == .json ? .jsonl : .text, outputPath: nil) : nil
        try await live.prepare(noDownload: noDownload, progress: ProgressLine(enabled: !quiet),
                               contextualStrings: try vocabulary.phrases())
        let failure = Mutex<String?>(nil)
        let input = StandardInputAudio.stream(
            raw: .init(sample: .int16, sampleRate: Double(rawSampleRate), channels: rawChannels),
            to: try await live.audioFormat()) { message in failure.withLock { $0 = message } }
        let finals = try await live.run(input, output: liveOutput, quiet: quiet)
        if let message = failure.withLock({ $0 }) { throw CommandFailure(message) }
        if !streaming {
            let end = finals.last.map { $0.range.end.seconds } ?? 0
            let transcript = Transcript(
                results: finals,
                language: finals.lazy.flatMap(\.text.runs).compactMap(\.detectedLanguage).first
                    ?? live.locale.language.languageCode?.identifier ?? "", duration: end)
            try write(transcript, for: "stdin")
        }
    }

    /// Installs the models the transcription needs, or fails under `--no-download` when the transcriber's is missing
    /// (without the detector's model, the detector runs its energy fallback).
    private func installModels(_ transcriber: FileTranscriber, progress: ProgressLine) async throws {
        let missing = try transcriber.missingModelIDs()
        guard !missing.isEmpty else { return }
        if noDownload {
            let needed = try transcriber.requiredModelIDs()[0]
            guard !missing.contains(needed) else {
                if transcriber.options.detectsLanguage && transcriber.options.modelID == nil {
                    throw CommandFailure("language detection (no --locale, or --locale auto) needs the multilingual "
                        + "model \(needed), which is not installed, and --no-download was given; install it with "
                        + "`openspeech models install \(needed)`, or give the language with --locale.")
                }
                throw CommandFailure("\(needed) is not installed and --no-download was given; install it with `openspeech models install \(needed)`.")
            }
            return
        }
        try await transcriber.installModels { event in
            if case .installing(let fraction) = event { progress.show("installing models", fraction) }
        }
        progress.clear()
    }

    private func write(_ transcript: Transcript, for path: String) throws {
        let documents = try format.formats.map { format in
            (format, try transcript.formatted(as: format, layout: subtitles.layout, highlightWords: subtitles.highlightWords))
        }
        if let output {
            let file = URL(fileURLWithPath: output)
            for (format, text) in documents {
                let url = self.format == .all ? file.deletingPathExtension().appendingPathExtension(format.fileExtension) : file
                try Data(text.utf8).write(to: url, options: .atomic)
            }
            return
        }
        guard outputDir != nil || format == .all else {
            FileHandle.standardOutput.write(Data(documents[0].1.utf8))
            return
        }
        let folder = URL(fileURLWithPath: outputDir ?? ".", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        for (format, text) in documents {
            try Data(text.utf8).write(to: folder.appendingPathComponent("\(name).\(format.fileExtension)"), options: .atomic)
        }
    }
}

extension Transcript.Format: ExpressibleByArgument {}
extension ComputeType: ExpressibleByArgument {}
extension SpeechTranscriber.TranscriptionTask: ExpressibleByArgument {}
