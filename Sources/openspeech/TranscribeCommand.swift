import ArgumentParser
import Foundation
import OpenSpeech

/// `openspeech transcribe FILE...`: files to text, subtitles or JSON, through the public API only.
struct TranscribeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transcribe",
        abstract: "Transcribe audio or video files to text, SRT, WebVTT or JSON.")

    @Argument(help: "Audio or video files.", completion: .file())
    var files: [String]

    @Option(help: "Language of the speech, e.g. en-US, fr, de-DE (default: the system's, else English).")
    var locale: String?

    @Option(help: "Catalog model to use instead of the locale's default (see `openspeech models list`).")
    var model: String?

    @Option(help: "Output format: text, srt, vtt or json.")
    var format: Transcript.Format = .text

    @Option(help: "Write one file per input into this folder (NAME.txt/.srt/.vtt/.json) instead of stdout.")
    var outputDir: String?

    @Option(help: "Beam width (1 = greedy, faster; default 5).")
    var beamSize: Int?

    @Flag(help: "Word-level time stamps (in JSON output).")
    var wordTimestamps = false

    @Flag(help: "Fail instead of installing a missing model.")
    var noDownload = false

    @Flag(help: "Transcribe all the audio, silence and noise included, without the speech detector (Whisper models tend to invent text there).")
    var noVad = false

    @Flag(help: "No progress on stderr.")
    var quiet = false

    func validate() throws {
        if let beamSize, !(1...16).contains(beamSize) { throw ValidationError("--beam-size must be from 1 to 16.") }
    }

    func run() async throws {
        let requested = locale.map { Locale(identifier: $0) }
            ?? (Locale.current.language.languageCode == nil ? Locale(identifier: "en-US") : Locale.current)
        guard let chosen = SpeechTranscriber.supportedLocale(equivalentTo: requested) else {
            throw CommandFailure("no model transcribes \(requested.identifier); see `openspeech models list`.")
        }
        let progress = ProgressLine(enabled: !quiet)
        var failures = 0
        for path in files {
            do {
                let transcript = try await transcribe(URL(fileURLWithPath: path), locale: chosen, progress: progress)
                try write(transcript, for: path)
            } catch {
                progress.clear()
                failures += 1
                FileHandle.standardError.write(Data("openspeech: \(path): \(error)\n".utf8))
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    private func transcribe(_ url: URL, locale: Locale, progress: ProgressLine) async throws -> Transcript {
        let file = try AVAudioFile(forReading: url)
        let duration = Double(file.length) / file.processingFormat.sampleRate
        let timed = format != .text || wordTimestamps
        let transcriber = SpeechTranscriber(
            locale: locale, transcriptionOptions: [], reportingOptions: [],
            attributeOptions: timed ? [.audioTimeRange, .transcriptionConfidence] : [],
            engineConfiguration: .init(modelID: model, beamSize: beamSize, wordTimestamps: timed))
        // The detector gives the model only the speech, cut at silences: no text invented on silence or noise.
        let detector = noVad ? nil : SpeechDetector()
        try await ensureInstalled(transcriber, detector: detector, progress: progress)

        let modules: [any SpeechModule] = [transcriber] + (detector.map { [$0] } ?? [])
        let analyzer = SpeechAnalyzer(modules: modules,
                                      options: .init(priority: .userInitiated, modelRetention: .processLifetime))
        let collector = Task {
            var results: [SpeechTranscriber.Result] = []
            for try await result in transcriber.results {
                results.append(result)
                if duration > 0 { progress.show("transcribing \(url.lastPathComponent)", result.range.end.seconds / duration) }
            }
            return results
        }
        progress.show("transcribing \(url.lastPathComponent)", 0)
        do {
            _ = try await analyzer.analyzeSequence(from: file)
            try await analyzer.finalizeAndFinishThroughEndOfInput()
        } catch {
            collector.cancel()
            throw error
        }
        let results = try await collector.value
        progress.clear()
        let language = locale.language.languageCode?.identifier ?? "en"
        return Transcript(results: results, language: language, duration: duration)
    }

    /// Installs what `transcriber` needs (or fails under `--no-download`), and the detector's model when downloads
    /// are allowed; without it the detector runs its energy fallback.
    private func ensureInstalled(_ transcriber: SpeechTranscriber, detector: SpeechDetector?,
                                 progress: ProgressLine) async throws {
        let modules: [any SpeechModule] = noDownload ? [transcriber] : [transcriber] + (detector.map { [$0] } ?? [])
        guard await AssetInventory.status(forModules: modules) != .installed else { return }
        if noDownload {
            let id = transcriber.engineConfiguration.modelID ?? "the model for \(transcriber.selectedLocales[0].identifier)"
            throw CommandFailure("\(id) is not installed and --no-download was given; install it with `openspeech models install`.")
        }
        guard let request = try await AssetInventory.assetInstallationRequest(supporting: modules) else { return }
        let watcher = Task {
            while !Task.isCancelled {
                progress.show("installing models", request.progress.fractionCompleted)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { watcher.cancel() }
        try await request.downloadAndInstall()
        progress.clear()
    }

    private func write(_ transcript: Transcript, for path: String) throws {
        let text = transcript.formatted(as: format)
        guard let outputDir else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        let folder = URL(fileURLWithPath: outputDir, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let fileExtension = format == .text ? "txt" : format.rawValue
        try Data(text.utf8).write(to: folder.appendingPathComponent("\(name).\(fileExtension)"), options: .atomic)
    }
}

extension Transcript.Format: ExpressibleByArgument {}
