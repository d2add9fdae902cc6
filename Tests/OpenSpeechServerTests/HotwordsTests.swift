import Foundation
import Testing
import TestSupport

/// `hotwords` (issue 16, the server's side): words the decoder favours, apart from `prompt`, as a form field of the
/// transcription route and in a Realtime session's `input_audio_transcription`. Measured on the bias dev set
/// (`shared/bias`: LibriSpeech test-other utterances with rare words, each with its N=100 list of rare words plus
/// distractors), as VocabularyBiasingTests measures the engine.
@Suite(.serialized) struct HotwordsTests {
    struct Utterance {
        let id: String, audio: URL, text: String, rareWords: [String], list100: [String]
    }

    /// `shared/bias`, found by walking up from this file (or `$OPENSPEECH_BIAS_SET`).
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["OPENSPEECH_BIAS_SET"] { return URL(fileURLWithPath: path) }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/bias")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("manifest.tsv").path) { return candidate }
            dir.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: "../shared/bias")
    }()

    /// The first `count` utterances that hold rare words.
    static func utterances(_ count: Int) throws -> [Utterance] {
        let manifest = try String(contentsOf: directory.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var rows = manifest.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = rows.removeFirst()
        func column(_ name: String) throws -> Int { try #require(header.firstIndex(of: name)) }
        let id = try column("id"), audio = try column("audio"), text = try column("text"), rare = try column("rare_words"),
            list = try column("biasing_100")
        let words = { (s: String) in s.split(separator: " ").map(String.init) }
        return rows.map {
            Utterance(id: $0[id], audio: directory.appendingPathComponent($0[audio]), text: $0[text],
                      rareWords: words($0[rare]), list100: words($0[list]))
        }.filter { !$0.rareWords.isEmpty }.prefix(count).map { $0 }
    }

    /// How many of the utterance's rare-word tokens the text has (lower case, letters and apostrophes only).
    static func rareWordHits(_ text: String, _ utterance: Utterance) -> Int {
        var words = text.lowercased().split { !($0.isLetter || $0 == "'") }.map(String.init)
        var hits = 0
        for rare in utterance.rareWords {
            if let index = words.firstIndex(of: rare) { hits += 1; words.remove(at: index) }
        }
        return hits
    }

    @Test("hotwords (form field) recall more listed rare words than none, other words unharmed; a Realtime session's hotwords give the form field's text")
    func hotwordsHelp() async throws {
        let utterances = try Self.utterances(16)
        let folder = try makeTemporaryDirectory("openspeech-hotwords")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await RunningServer.start()
        var plain: [String] = [], biased: [String] = [], files: [URL] = []
        var realtime: [String: Any] = [:]
        var chosen: Int?
        do {
            for utterance in utterances {
                // 24 kHz PCM16: what a Realtime session takes, so both routes hear the same samples.
                let file = folder.appendingPathComponent("\(utterance.id)-24k.wav")
                try await runCommand("ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", utterance.audio.path, "-ar", "24000",
                                          "-c:a", "pcm_s16le", file.path])
                files.append(file)
                for (hotwords, into) in [(nil, 0), (utterance.list100.joined(separator: " "), 1)] as [(String?, Int)] {
                    let response = try await curl("\(server.baseURL)/v1/audio/transcriptions",
                                            ["-F", "file=@\(file.path)", "-F", "model=whisper-1", "-F", "language=en"]
                                                + (hotwords.map { ["-F", "hotwords=\($0)"] } ?? []))
                    #expect(response.status == 200, "\(response.body)")
                    let text = response.json?["text"] as? String ?? ""
                    if into == 0 { plain.append(text) } else { biased.append(text) }
                }
            }
            let gains = utterances.indices.map { Self.rareWordHits(biased[$0], utterances[$0]) - Self.rareWordHits(plain[$0], utterances[$0]) }
            chosen = gains.indices.max { gains[$0] < gains[$1] }
            if let chosen, gains[chosen] > 0 {
                realtime = try #require(try await RealtimeSessionTests.realtime(
                    server, "hotwords", [files[chosen].path, utterances[chosen].list100.joined(separator: ", ")])
                    as? [String: Any])
            }
        } catch {
            print(server.output)
            _ = try await server.stop()
            throw error
        }
        #expect(try await server.stop() == 0)

        let rareTotal = utterances.reduce(0) { $0 + $1.rareWords.count }
        let plainHits = utterances.indices.reduce(0) { $0 + Self.rareWordHits(plain[$1], utterances[$1]) }
        let biasedHits = utterances.indices.reduce(0) { $0 + Self.rareWordHits(biased[$1], utterances[$1]) }
        func totalRate(_ texts: [String]) -> Double {
            zip(utterances, texts).reduce(into: ErrorCounts()) { sum, pair in
                sum += WordErrorRate.score(reference: pair.0.text, hypothesis: pair.1, language: "en")
            }.rate
        }
        let plainRate = totalRate(plain), biasedRate = totalRate(biased)
        print("hotwords over \(utterances.count) utterances: rare words recalled \(plainHits)/\(rareTotal) -> "
              + "\(biasedHits)/\(rareTotal), WER \(plainRate) -> \(biasedRate)")
        #expect(biasedHits >= plainHits + 2, "hotwords recalled \(biasedHits) rare words, none \(plainHits)")
        #expect(biasedRate <= plainRate + 0.01)

        let chosenIndex = try #require(chosen)
        #expect(realtime["plain"] as? [String] == [plain[chosenIndex]], "realtime without hotwords: \(realtime)")
        #expect(realtime["hotwords"] as? [String] == [biased[chosenIndex]], "realtime with hotwords: \(realtime)")
        let session = try #require(realtime["hotwords_session"] as? [String: Any])
        let transcription = try #require(session["input_audio_transcription"] as? [String: Any])
        #expect(transcription["hotwords"] as? [String] == utterances[chosenIndex].list100)
    }
}
