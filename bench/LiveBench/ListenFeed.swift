import Foundation
import OpenSpeech
import SpeechEvaluation
import Synchronization
import TestSupport

/// `live-bench listen [ARGUMENTS...]`: `openspeech listen` as a user types it (`ARGUMENTS` after `listen --format jsonl`;
/// none: no options at all but the format), capturing a PulseAudio daemon's virtual microphone into which the clips
/// are played in real time, 1.5 s apart. Each JSON Lines record is timed as it arrives on the tool's stdout. Per clip:
/// **first words**, from the clip's first word starting to sound to the first result holding one of its first three
/// words; **final**, from its last word's end to the first final holding one of its last two words (a word must be
/// three letters or more to be looked for, so "a" and "the" of another clip are not taken for it). Also the finals'
/// WER against file mode, each final's words given to the clip playing when they arrived (less half the pause).
func runListenFeed(arguments: [String], clips: [CorpusItem], fileWords: [[ReferenceWord]], fileTexts: [String]) async throws {
    let daemon = try PulseAudioDaemon()
    defer { daemon.stop() }
    guard let tool = OpenSpeechExecutable.url else { throw ListenFeedError(message: "the openspeech tool is not built") }
    let process = Process()
    process.executableURL = tool
    process.arguments = ["listen", "--format", "jsonl"] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": daemon.serverAddress]) { $1 }
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice

    /// Each record as it arrived: when, whether final, its words (normalized), each word's text and start on the
    /// tool's audio timeline.
    struct Record { var host: UInt64; var isFinal: Bool; var words: [String]; var timed: [(String, Double)] }
    let records = Mutex<[Record]>([])
    let stderrText = Mutex("")
    let listening = Mutex(false)
    output.fileHandleForReading.readabilityHandler = { handle in
        let host = AVAudioTime.now()
        let data = handle.availableData
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            let timed = (object["words"] as? [[String: Any]] ?? []).compactMap { word -> (String, Double)? in
                guard let text = word["word"] as? String, let start = word["start"] as? Double else { return nil }
                return (text, start)
            }
            records.withLock {
                $0.append(Record(host: host, isFinal: object["isFinal"] as? Bool ?? false,
                                 words: timed.map { normalized($0.0) }, timed: timed))
            }
        }
    }
    errors.fileHandleForReading.readabilityHandler = { handle in
        let text = String(decoding: handle.availableData, as: UTF8.self)
        stderrText.withLock { $0 += text }
        if text.contains("listening to") { listening.withLock { $0 = true } }
    }
    try process.run()
    let ready = Date().addingTimeInterval(600)
    while !listening.withLock({ $0 }) && process.isRunning && Date() < ready { try await Task.sleep(for: .milliseconds(50)) }
    guard process.isRunning else {
        throw ListenFeedError(message: "openspeech listen ended: \(stderrText.withLock { $0 })")
    }
    let playStarts = try await play(clips, into: daemon)
    try await Task.sleep(for: .seconds(4))
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    output.fileHandleForReading.readabilityHandler = nil
    errors.fileHandleForReading.readabilityHandler = nil

    let all = records.withLock { $0 }
    var firstWords: [Double] = [], finals: [Double] = [], missed = 0
    func long(_ word: ReferenceWord) -> Bool { normalized(word.word).count >= 3 }
    for (index, words) in fileWords.enumerated() where !words.isEmpty {
        let start = seconds(playStarts[index])
        let onset = start + words[0].start, end = start + words[words.count - 1].end
        let until = index + 1 < playStarts.count ? seconds(playStarts[index + 1]) + 2 : .infinity
        let opening = Set(words.prefix(3).filter(long).map { normalized($0.word) })
        let closing = Set(words.suffix(2).filter(long).map { normalized($0.word) })
        if let first = all.first(where: { seconds($0.host) > onset && seconds($0.host) < until
                                          && !opening.isDisjoint(with: $0.words) }) {
            firstWords.append(seconds(first.host) - onset)
        } else if !opening.isEmpty { missed += 1 }
        if let final = all.first(where: { $0.isFinal && seconds($0.host) > end - 1 && !closing.isDisjoint(with: $0.words) }) {
            finals.append(seconds(final.host) - end)
        } else if !closing.isEmpty { missed += 1 }
    }
    // The tool's audio timeline against the wall clock: where each clip's first long word was heard in a final, against
    // when it sounded (the median over the clips).
    var offsets: [Double] = []
    for (index, words) in fileWords.enumerated() {
        guard let word = words.first(where: long) else { continue }
        let name = normalized(word.word)
        let sounded = seconds(playStarts[index]) + word.start
        if let heard = all.lazy.filter({ $0.isFinal && seconds($0.host) > sounded && seconds($0.host) < sounded + 15 })
            .flatMap(\.timed).first(where: { normalized($0.0) == name }) {
            offsets.append(sounded - heard.1)
        }
    }
    let offset = percentile(offsets, 0.5)
    print(String(format: "the tool's timeline against the clock: median %.2f s, from %.2f to %.2f s over %d clips",
                 offset, offsets.min() ?? .nan, offsets.max() ?? .nan, offsets.count))
    // The finals' words of each clip: those heard while it played (from half the pause before it).
    var liveTexts = Array(repeating: "", count: clips.count)
    for record in all where record.isFinal {
        for (word, start) in record.timed {
            let index = playStarts.lastIndex { seconds($0) - 0.75 <= start + offset } ?? 0
            liveTexts[index] += " " + word
        }
    }
    try writeClipTexts(clips: clips, fileTexts: fileTexts, liveTexts: liveTexts)
    var fileErrors = ErrorCounts(), liveErrors = ErrorCounts()
    for (index, clip) in clips.enumerated() {
        fileErrors = fileErrors + WordErrorRate.score(reference: clip.transcript, hypothesis: fileTexts[index], language: "en")
        liveErrors = liveErrors + WordErrorRate.score(reference: clip.transcript, hypothesis: liveTexts[index], language: "en")
    }
    let said = stderrText.withLock { $0 }.split(separator: "\n").filter { !$0.isEmpty }.prefix(6).joined(separator: " | ")
    print("live-bench listen: `openspeech listen --format jsonl \(arguments.joined(separator: " "))`")
    print("its stderr: \(said)")
    print(String(format: "%d clips; first words after the speech began: median %.2f s, p90 %.2f s; final after it ended: "
                 + "median %.2f s, p90 %.2f s (%d not found)", clips.count, percentile(firstWords, 0.5),
                 percentile(firstWords, 0.9), percentile(finals, 0.5), percentile(finals, 0.9), missed))
    print("per clip, first words: " + firstWords.map { String(format: "%.2f", $0) }.joined(separator: " ")
          + "; finals: " + finals.map { String(format: "%.2f", $0) }.joined(separator: " "))
    print(String(format: "WER, each final's words given to the clip playing: live finals %.2f %%, file mode %.2f %%",
                 liveErrors.rate * 100, fileErrors.rate * 100))
    // The same finals as one stream against the clips' references in order: no word is given to a clip by its time, so
    // a word heard near a boundary (the timeline's offset moves by a second over a run) is not counted twice.
    let normalizer = TextNormalizer.forLanguage("en")
    let reference = clips.map { normalizer.normalize($0.transcript) }.joined(separator: " ")
    let fileStream = fileTexts.map { normalizer.normalize($0) }.joined(separator: " ")
    let liveStream = normalizer.normalize(all.filter(\.isFinal).flatMap(\.timed).map(\.0).joined(separator: " "))
    let liveStreamErrors = WordErrorRate.words(reference: reference, hypothesis: liveStream)
    let fileStreamErrors = WordErrorRate.words(reference: reference, hypothesis: fileStream)
    print(String(format: "WER, as one stream: live finals %.2f %%, file mode %.2f %% (%+.2f points)",
                 liveStreamErrors.rate * 100, fileStreamErrors.rate * 100,
                 (liveStreamErrors.rate - fileStreamErrors.rate) * 100))
}

struct ListenFeedError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Plays `clips` into the daemon's virtual microphone in real time, 1.5 s of silence before each: when each began.
func play(_ clips: [CorpusItem], into daemon: PulseAudioDaemon) async throws -> [UInt64] {
    var starts: [UInt64] = []
    for clip in clips {
        try await Task.sleep(for: .milliseconds(1_500))
        starts.append(AVAudioTime.now())
        try await daemon.play(try MonoAudio.load(contentsOf: clip.wav16kURL, sampleRate: 48_000), rate: 48_000)
    }
    return starts
}
