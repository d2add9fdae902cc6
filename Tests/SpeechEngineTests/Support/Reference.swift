import Foundation
import TestSupport

/// faster-whisper's output on the corpus, the reference of the parity tests: generated at test time by
/// `bench/reference_faster_whisper.py` (faster-whisper from the Python index) on the same model
/// directory and audio, and cached as JSON under `<repo>/.build/reference/`, keyed by model, options,
/// script and manifest, so it is computed once per machine.
enum Reference {
    /// How faster-whisper is run. The defaults are the parity setting of issue 4: float32, beam 1,
    /// temperature 0 only, no VAD, timestamps on.
    struct Options: Hashable, Sendable, CustomStringConvertible {
        var computeType = "float32"
        var beamSize = 1
        var temperatures: [Double] = [0]
        var wordTimestamps = false
        var withoutTimestamps = false
        var conditionOnPreviousText = true
        /// Multilingual models detect the language instead of being given the manifest's.
        var detectLanguage = false
        /// Only clips in these languages / subsets / with these ids (empty: all).
        var languages: [String] = []
        var subsets: [String] = []
        var ids: [String] = []

        init(computeType: String = "float32", beamSize: Int = 1, temperatures: [Double] = [0],
             wordTimestamps: Bool = false, languages: [String] = [], subsets: [String] = [], ids: [String] = []) {
            self.computeType = computeType
            self.beamSize = beamSize
            self.temperatures = temperatures
            self.wordTimestamps = wordTimestamps
            self.languages = languages
            self.subsets = subsets
            self.ids = ids
        }

        /// Issue 4's parity setting on the English clips.
        static let englishParity = Options(languages: ["en"])
        /// The same with word timestamps, on the LibriSpeech clips.
        static let libriSpeechWords = Options(wordTimestamps: true, languages: ["en"], subsets: ["ls-clean", "ls-other"])

        var arguments: [String] {
            var list = ["--compute-type", computeType, "--beam-size", String(beamSize),
                        "--temperatures", temperatures.map { String($0) }.joined(separator: ",")]
            if wordTimestamps { list.append("--word-timestamps") }
            if withoutTimestamps { list.append("--without-timestamps") }
            if !conditionOnPreviousText { list.append("--no-condition-on-previous-text") }
            if detectLanguage { list.append("--detect-language") }
            if !languages.isEmpty { list += ["--languages", languages.joined(separator: ",")] }
            if !subsets.isEmpty { list += ["--subsets", subsets.joined(separator: ",")] }
            if !ids.isEmpty { list += ["--ids", ids.joined(separator: ",")] }
            return list
        }

        var description: String { arguments.joined(separator: " ") }
    }

    /// One faster-whisper run over the corpus.
    struct Run: Decodable, Sendable {
        var model: String
        var fasterWhisperVersion: String
        var loadSeconds: Double
        var wallSeconds: Double
        var audioSeconds: Double
        var peakRssBytes: Int
        var clips: [Clip]

        func clip(_ id: String) -> Clip? { clips.first { $0.id == id } }
    }

    struct Clip: Decodable, Sendable {
        var id: String
        var subset: String
        var language: String
        var duration: Double
        var reference: String
        var text: String
        var detectedLanguage: String?
        var segments: [Segment]

        /// Every segment's tokens, in order (timestamps included).
        var tokens: [Int] { segments.flatMap(\.tokens) }
        var words: [Word] { segments.flatMap { $0.words ?? [] } }
    }

    struct Segment: Decodable, Sendable {
        var id: Int
        var seek: Int
        var start: Double
        var end: Double
        var text: String
        var tokens: [Int]
        var avgLogprob: Double
        var compressionRatio: Double
        var noSpeechProb: Double
        var temperature: Double
        var words: [Word]?
    }

    struct Word: Decodable, Sendable {
        var start: Double
        var end: Double
        var word: String
        var probability: Double
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The repository root, from this file's path (`<root>/Tests/SpeechEngineTests/Support/Reference.swift`).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = repository.appendingPathComponent("bench/reference_faster_whisper.py")
    static let cacheDirectory = repository.appendingPathComponent(".build/reference", isDirectory: true)

    /// faster-whisper's run of `modelID` (a catalog id, installed through `TestModels`) with `options`,
    /// from the cache or computed now (minutes for a whole corpus).
    static func run(model modelID: String, options: Options = .englishParity) async throws -> Run {
        let directory = try await TestModels.directory(for: modelID)
        return try await cache.run(modelID: modelID, directory: directory, options: options)
    }

    /// faster-whisper's run of the model in `directory` (cached as `name`) with `options`.
    static func run(directory: URL, name: String, options: Options) async throws -> Run {
        try await cache.run(modelID: name, directory: directory, options: options)
    }

    private static let cache = Cache()

    /// Runs each (model, options) once per process; concurrent callers wait for the same run.
    private actor Cache {
        private var runs: [String: Task<Run, any Error>] = [:]

        func run(modelID: String, directory: URL, options: Options) async throws -> Run {
            let file = try Reference.cacheFile(modelID: modelID, directory: directory, options: options)
            if let task = runs[file.path] { return try await task.value }
            let task = Task { try await Reference.loadOrGenerate(file: file, directory: directory, options: options) }
            runs[file.path] = task
            return try await task.value
        }
    }

    /// `<cache>/<model>-<options hash>.json`; the hash covers options, model path, script and manifest.
    static func cacheFile(modelID: String, directory: URL, options: Options) throws -> URL {
        var key = Data("\(options)|\(directory.standardizedFileURL.path)|".utf8)
        key.append(try Data(contentsOf: script))
        key.append(try Data(contentsOf: Corpus.directory.appendingPathComponent("manifest.tsv")))
        return cacheDirectory.appendingPathComponent("\(modelID)-\(digest(key)).json")
    }

    /// FNV-1a, 64 bits, in hex: a cache key stable across runs and platforms.
    static func digest(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    private static func loadOrGenerate(file: URL, directory: URL, options: Options) async throws -> Run {
        if !FileManager.default.fileExists(atPath: file.path) {
            try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
            let python = ProcessInfo.processInfo.environment["OPENSPEECH_PYTHON"] ?? "python3"
            // One CTranslate2 thread: the run shares the machine with the suites beside it, and two threads cost a
            // fifth more CPU time for the same tokens (measured on the English clips, greedy: 133 against 107 s).
            let arguments = [script.path, "--corpus", Corpus.directory.path, "--model", directory.path,
                             "--output", file.path, "--quiet", "--threads", "1"] + options.arguments
            do {
                try await runCommand(python, arguments)
            } catch {
                throw Failure(description:
                    "faster-whisper reference failed (pip install faster-whisper; OPENSPEECH_PYTHON picks the interpreter): \(error)")
            }
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(Run.self, from: Data(contentsOf: file))
    }
}
