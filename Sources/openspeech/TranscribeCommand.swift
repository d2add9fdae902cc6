import ArgumentParser
import Foundation
import Logging
import OpenSpeech
import SpeechAssets
import Synchronization

/// `openspeech transcribe FILE|DIR...`: files to text, subtitles or JSON, through the public API only. Folders are
/// walked (`FolderWalk`), their outputs mirror the tree; a batch can be shared between processes (`--shard`), resumed
/// (`--skip-existing`) and logged (`--manifest`), and a file that fails is reported while the others go on.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe audio or video files to text, SRT, WebVTT, TSV or JSON.")

    @Argument(help: "Audio or video files, or folders (every audio or video file in them, recursively; with --output-dir the outputs mirror the tree). - reads stdin: a stream in a container (WAV, FLAC, MP3...) is read to its end and transcribed as a file; raw PCM, or any stream with --live, as it arrives.", completion: .file())
    var files: [String]

    @Flag(help: "With - (stdin): transcribe the audio as it arrives, with live results (a recorder's stream), instead of reading it to its end first.")
    var live = false

    @Option(parsing: .unconditional, help: "Raw 16-bit PCM on stdin (no header, as capture tools write it; transcribed live): its sample rate (default 16000).")
    var rawSampleRate: Int?

    @Option(parsing: .unconditional, help: "Raw 16-bit PCM on stdin: its channel count (default 1).")
    var rawChannels: Int?

    @Option(name: [.customLong("language"), .customShort("l"), .customLong("locale")],
            help: "Language of the speech: a code or an English name (en, english, fr, French, de-DE); absent or auto: detected in each file's first speech.")
    var locale: String?

    @Flag(help: "Detect the language of every 30 s window, not only of the first speech (recordings in several languages; multilingual model).")
    var detectLanguagePerWindow = false

    @Option(help: "transcribe (text in the language spoken) or translate (English text; multilingual models only).")
    var task: SpeechTranscriber.TranscriptionTask = .transcribe

    @Option(help: "Catalog model to use instead of the language's default (see `openspeech models list`), or a Hugging Face Hub repository of a CTranslate2 Whisper model, hf:OWNER/NAME[@REVISION] (installed first).")
    var model: String?

    @Option(help: "Output format: text, srt, vtt, json (OpenAI's verbose_json), tsv, or all (one file each); default: -o's extension, else text.")
    var format: OutputFormat?

    @Option(help: "Write one file per input into this folder (NAME.txt/.srt/.vtt/.json/.tsv), created if missing, instead of stdout.")
    var outputDir: String?

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write to this file, in the format of its extension; a folder (existing, or ending in /) gets one file per input, as --output-dir.", completion: .file())
    var output: String?

    @Flag(help: "Leave out every input whose outputs are all written already (a rerun after an interruption does only the rest); needs --output-dir or -o.")
    var skipExisting = false

    @Option(help: "Transcribe only a stable share of the inputs, I of N (I from 0 to N-1): N processes given the same inputs and I = 0...N-1 (a Kubernetes indexed Job, a Slurm array) cover every file once.")
    var shard: Shard?

    @Option(help: "Append one JSON line per file transcribed or failed to this file (file, output, duration, model, seconds, error), flushed to disk as each is done.", completion: .file())
    var manifest: String?

    @OptionGroup(title: "Subtitles")
    var subtitles: SubtitleOptions

    @OptionGroup(title: "Decoding")
    var decoding: DecodingOptions

    @OptionGroup var beam: BeamSizeOption

    @OptionGroup var vocabulary: VocabularyOptions

    @OptionGroup(title: "Speakers")
    var speakerOptions: SpeakerOptions

    @Flag(help: "Each word's times in JSON (a words list, as whisper's --word_timestamps); subtitles are always cut from word times.")
    var wordTimestamps = false

    @Flag(help: "Fail instead of installing a missing model.")
    var noDownload = false

    @Flag(help: "Transcribe all the audio, silence and noise included, without the speech detector (Whisper models tend to invent text there).")
    var noVad = false

    @Option(help: "Precision of the engine's products: auto, int8, int8_float32, bfloat16, float16 or float32 (default: auto with the speech detector, float32 with --no-vad; live, as listen's).")
    var computeType: ComputeType?

    @Flag(help: "Fail on a truncated file instead of transcribing the audio present (with a warning).")
    var strict = false

    @Flag(help: "No progress, model or warnings on stderr (errors only).")
    var quiet = false

    @Flag(help: "Log what the engine does on stderr (else the level OPENSPEECH_LOG_LEVEL names).")
    var verbose = false

    /// Whether stdin is said to be live (`--live`, or raw PCM described); raw PCM found without a header is too.
    private var declaredLive: Bool { live || rawSampleRate != nil || rawChannels != nil }

    func validate() throws {
        if files.contains("-") && files.count > 1 { throw ValidationError("- (stdin) must be the only input.") }
        if declaredLive && files != ["-"] {
            throw ValidationError("--live, --raw-sample-rate and --raw-channels are for - (stdin), the only input.")
        }
        if let rawSampleRate, !(1_000...384_000).contains(rawSampleRate) {
            throw ValidationError("--raw-sample-rate must be from 1000 to 384000 (Hz), not \(rawSampleRate).")
        }
        if let rawChannels, !(1...16).contains(rawChannels) {
            throw ValidationError("--raw-channels must be from 1 to 16, not \(rawChannels).")
        }
        if output != nil && outputDir != nil { throw ValidationError("give -o/--output or --output-dir, not both.") }
        if skipExisting && output == nil && outputDir == nil && OutputPlan.format(given: format, output: nil) != .all {
            throw ValidationError("--skip-existing leaves out files whose outputs exist: give --output-dir (or -o DIR/).")
        }
        if files.contains("-") && (skipExisting || shard != nil || manifest != nil) {
            throw ValidationError("--skip-existing, --shard and --manifest are for files and folders, not - (stdin).")
        }
        if files == ["-"] && declaredLive { try refuseLiveOnly() }
        if detectLanguagePerWindow && locale.map({ $0.lowercased() != "auto" }) ?? false {
            throw ValidationError("--detect-language-per-window detects the language of files: give no --language (or --language auto).")
        }
        let written = OutputPlan.format(given: format, output: output)
        if subtitles.highlightWords && written != .vtt && written != .all {
            throw ValidationError("--highlight-words marks words in WebVTT subtitles only; give --format vtt (or all), not \(written).")
        }
        if wordTimestamps && written != .json && written != .all {
            throw ValidationError("--word-timestamps adds each word's times to JSON; give --format json (or all), not \(written) "
                + "(subtitles are always cut from word times).")
        }
    }

    /// Refuses what live transcription of stdin cannot do.
    private func refuseLiveOnly() throws {
        if task == .translate {
            throw ValidationError("--task translate takes files or a stream in a container on - (stdin), not live audio.")
        }
        if detectLanguagePerWindow {
            throw ValidationError("--detect-language-per-window takes files or a stream in a container on - (stdin), not live audio.")
        }
        _ = try speakerOptions.liveOptions()
    }

    func run() async throws {
        try await runReportingErrors {
            AllocatorPolicy.apply(oneFile: files.count == 1 && files != ["-"] && !OutputPlan.isFolder(files[0]))
            let logger = CommandLogging.logger("openspeech.transcribe", verbose: verbose)
            logger.debug("\(BuildInfo.description)")
            guard files == ["-"] else { return try await transcribeFiles(logger: logger) }
            if declaredLive { return try await transcribeLive(prefix: []) }
            let prefix = SpooledInput.readPrefix()
            guard SpooledInput.startsContainer(prefix) else {
                try refuseLiveOnly()
                return try await transcribeLive(prefix: prefix)
            }
            try await transcribeFiles(standardInputPrefix: prefix, logger: logger)
        }
    }

    /// The language asked for (nil: detect it), and the supported locale that transcribes it.
    private func language() throws -> (locale: Locale, detects: Bool) {
        guard let locale, let requested = LanguageArgument.locale(locale) else { return (Locale(identifier: "en-US"), true) }
        guard let chosen = SpeechTranscriber.supportedLocale(equivalentTo: requested) else {
            throw CommandFailure("no model transcribes \(locale) (\(requested.identifier)); give a language code or "
                + "English name (en, english, fr, French, de-DE), and see `openspeech models list` for the languages.")
        }
        return (chosen, false)
    }

    /// The inputs (or stdin, read to its end after `standardInputPrefix`) transcribed as files, each written as soon
    /// as it is done; an input that is a pipe (`<(ffmpeg ...)`, a named pipe) is read to its end first, as stdin is.
    /// Ctrl-C exits 130 at once: what was written stays, the streams' temporary copies go.
    private func transcribeFiles(standardInputPrefix: [UInt8]? = nil, logger: Logger) async throws {
        let (found, folders) = try TranscriptionInputs.expand(files)
        if found.isEmpty {
            throw CommandFailure("no audio or video files in \(folders.joined(separator: ", ")) (files are taken by their "
                + "extension, .wav, .mp3, .mp4..., or their first bytes; hidden ones are skipped); give the files or "
                + "another folder.")
        }
        let plan = try OutputPlan(inputs: found, format: format, output: output, outputDirectory: outputDir)
        let share = shard.map { shard in found.filter(shard.contains) } ?? found
        let inputs = skipExisting ? share.filter { !plan.isWritten($0) } : share
        let batch = BatchSummary(found: found.count, share: share.count, skipped: share.count - inputs.count,
                                 shard: shard)
        guard !inputs.isEmpty else {
            if !quiet { FileHandle.standardError.write(Data("openspeech: \(batch.nothingToDo)\n".utf8)) }
            return
        }
        let manifest = try self.manifest.map(BatchManifest.init(path:))
        let (locale, detects) = try language()
        let model = try await HubModelArgument.catalogID(for: self.model, noDownload: noDownload,
                                                         progress: ProgressLine(enabled: !quiet))
        let transcriber = FileTranscriber(options: .init(
            locale: locale, modelID: model, beamSize: beam.beamSize,
            wordTimestamps: plan.format.needsWordTimes || wordTimestamps || speakerOptions.diarize, detectsSpeech: !noVad, strict: strict,
            computeType: computeType, contextualStrings: try vocabulary.phrases(), prompt: decoding.prompt,
            temperatures: decoding.temperatures, detectsLanguage: detects, task: task,
            detectsLanguagePerWindow: detectLanguagePerWindow, threads: decoding.threads).encodingBatches(of: decoding.batchSize))
        logger.debug("options: \(transcriber.options)")
        try await ModelInstallation.install(transcriber, noDownload: noDownload, progress: ProgressLine(enabled: !quiet))
        let diarizer = speakerOptions.options(threads: decoding.threads).map { SpeakerDiarizer(options: $0) }
        if let diarizer, !noDownload { try await diarizer.installModels() }

        let copies = Mutex<[SpooledInput]>([])
        let written = Mutex(0)
        let total = inputs.count
        let reading = Mutex<String?>(nil)
        let interrupt = InterruptSignal(signals: [SIGINT, SIGTERM, SIGHUP]) {
            copies.withLock { $0.forEach { $0.remove() } }
            let done = written.withLock { $0 }
            let detail = reading.withLock { $0 }.map { source in
                source == "stdin" ? "while reading stdin (a live source is transcribed as it arrives with --live)"
                    : "while reading \(source)"
            } ?? "\(done) of \(total) transcripts written"
            let erase = isatty(STDERR_FILENO) != 0 ? "\r\u{1B}[K" : ""  // the progress line
            FileHandle.standardError.write(Data("\(erase)openspeech: interrupted; \(detail)\n".utf8))
            _exit(130)
        }
        defer { withExtendedLifetime(interrupt) {} }
        defer { copies.withLock { $0.forEach { $0.remove() } } }
        /// `source` read to its end from `descriptor` into a temporary file: that file's URL.
        func spooled(_ source: String, from descriptor: Int32, after prefix: [UInt8] = []) throws -> URL {
            let copy = try SpooledInput(source: source)
            copies.withLock { $0.append(copy) }
            reading.withLock { $0 = source }
            defer { reading.withLock { $0 = nil } }
            try copy.copy(from: descriptor, after: prefix)
            return copy.url
        }
        let urls = try standardInputPrefix.map { [try spooled("stdin", from: STDIN_FILENO, after: $0)] }
            ?? inputs.map(\.path).map { path in
                guard SpooledInput.isPipe(path) else { return URL(fileURLWithPath: path) }
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else {
                    throw CommandFailure("cannot read \(path): \(String(cString: strerror(errno))).")
                }
                defer { close(descriptor) }
                return try spooled(path, from: descriptor)
            }
        signal(SIGPIPE, SIG_IGN)  // a closed stdout is an error that says so (and removes stdin's copy), not death

        let messages = TranscriptionMessages(quiet: quiet, inputs: Array(zip(urls, inputs.map(\.path))))
        var writer = TranscriptWriter(plan: plan, several: inputs.count > 1, layout: subtitles.layout,
                                      highlightWords: subtitles.highlightWords, words: wordTimestamps)
        var failed: [String] = [], index = 0
        var started = ContinuousClock.now
        for await (_, result) in transcriber.transcriptions(of: urls, events: { messages.report($1, of: $0) }) {
            let input = inputs[index]  // in order, one per input
            index += 1
            messages.progress.clear()
            var transcript: Transcript?
            let entry: BatchManifest.Entry
            do {
                var done = try result.get()
                if let diarizer {
                    let speakers = try await diarizer.diarize(contentsOf: urls[index - 1])
                    if let notice = speakers.notice, !quiet {
                        FileHandle.standardError.write(Data("openspeech: \(input.path): \(notice)\n".utf8))
                    }
                    done = done.attributingSpeakers(speakers.turns)
                }
                transcript = done
                let seconds = (ContinuousClock.now - started) / .seconds(1)
                logger.info("\(input.path): \(done.segments.count) segments, \(String(format: "%.1f", done.duration)) s of audio in \(String(format: "%.1f", seconds)) s by \(done.model ?? "?")")
                let outputs = try writer.write(done, for: input)
                written.withLock { $0 += 1 }
                entry = .init(file: input.path, output: outputs.map(\.path), duration: done.duration, model: done.model,
                              seconds: seconds, error: nil)
            } catch {
                failed.append(input.path)
                messages.failure(error, input: input.path)
                entry = .init(file: input.path, output: [], duration: transcript?.duration, model: transcript?.model,
                              seconds: (ContinuousClock.now - started) / .seconds(1),
                              error: messages.sentence(error, input: input.path))
            }
            try manifest?.append(entry)  // a run that cannot keep its record stops
            started = ContinuousClock.now
        }
        if inputs.count > 1 || batch.skipped > 0 || !failed.isEmpty {
            let summary = batch.summary(transcribed: inputs.count - failed.count, failed: failed)
            if !quiet || !failed.isEmpty { FileHandle.standardError.write(Data("openspeech: \(summary)\n".utf8)) }
        }
        if !failed.isEmpty { throw ExitCode.failure }
    }

    /// `transcribe -` live (`--live`, or raw PCM): stdin through the live pipeline, `prefix` its bytes already read.
    /// Text and JSON are written as results come (JSON as JSON Lines); SRT, WebVTT and TSV once stdin ends.
    private func transcribeLive(prefix: [UInt8]) async throws {
        // No language given: detected in the first speech, then kept (LiveTranscription).
        let (locale, detects) = try language()
        let model = try await HubModelArgument.catalogID(for: self.model, noDownload: noDownload,
                                                         progress: ProgressLine(enabled: !quiet))
        let live = try LiveTranscription(locale: detects ? nil : locale, modelID: model,
                                         computeType: computeType ?? BuildInfo.liveComputeType, threads: decoding.threads,
                                         speakers: try speakerOptions.liveOptions())
        let plan = try OutputPlan(inputs: [TranscriptionInput(path: "-", relativePath: nil)], format: format, output: output,
                                  outputDirectory: outputDir)
        let streaming = plan.format == .text || plan.format == .json
        if streaming && plan.target != .standardOutput {
            throw CommandFailure("live results in \(plan.format) go to stdout; -o and --output-dir take srt, vtt, tsv or all.")
        }
        let liveOutput = streaming ? try LiveOutput(format: plan.format == .json ? .jsonl : .text, outputPath: nil) : nil
        let progress = ProgressLine(enabled: !quiet)
        let files = FileTranscriber(options: .init(locale: live.locale, modelID: model, detectsSpeech: true,
                                                   computeType: live.computeType, detectsLanguage: detects))
        try await ModelInstallation.install(files, noDownload: noDownload, progress: progress)
        if !quiet {
            FileHandle.standardError.write(Data("openspeech: model \(live.modelDescription)\n".utf8))
        }
        try await live.prepare(noDownload: noDownload, progress: progress, contextualStrings: try vocabulary.phrases())
        let failure = Mutex<String?>(nil)
        let input = StandardInputAudio.stream(
            raw: .init(sample: .int16, sampleRate: Double(rawSampleRate ?? 16_000), channels: rawChannels ?? 1),
            to: try await live.audioFormat(), prefix: prefix) { message in failure.withLock { $0 = message } }
        let (finals, turns) = try await live.run(input, output: liveOutput, quiet: quiet)
        if let message = failure.withLock({ $0 }) { throw CommandFailure(message) }
        if !streaming {
            let end = finals.last.map { $0.range.end.seconds } ?? 0
            var transcript = Transcript(
                results: finals,
                language: finals.lazy.compactMap { Transcript.Segment($0).language }.first
                    ?? live.locale.language.languageCode?.identifier ?? "", duration: end,
                model: live.transcriber.selectedModelID)
            if live.speakers != nil { transcript = transcript.attributingSpeakers(turns) }
            var writer = TranscriptWriter(plan: plan, several: false, layout: subtitles.layout,
                                          highlightWords: subtitles.highlightWords, words: wordTimestamps)
            try writer.write(transcript, for: TranscriptionInput(path: "-", relativePath: nil))
        }
    }
}

extension Transcript.Format: ExpressibleByArgument {}
extension Shard: ExpressibleByArgument {
    init?(argument: String) { self.init(argument) }
}
extension ComputeType: ExpressibleByArgument {}
extension SpeechTranscriber.TranscriptionTask: ExpressibleByArgument {}
