import SpeechEngine

/// The LocalAgreement-2 policy of volatile transcription: a growing window of audio is decoded again at each step,
/// and the words two consecutive decodings agree on (their common prefix) are committed, with the words after them
/// that one decoding alone is sure of and heard well past (`settledContext`); the rest is shown as volatile. A pure
/// value type over words with timeline times, tested without a model; `LocalAgreementStrategy` wires it to the engine.
struct LocalAgreement: Sendable, Equatable {
    /// The last decoding's words after the committed ones.
    private(set) var pending: [Word] = []
    /// Committed words whose audio is still in the window (they leave it with `trimmedWords()`).
    private(set) var windowWords: [Word] = []
    /// The last committed words (at most `reheardWords`), in the window or not: what a decoding may hear again.
    private(set) var recentWords: [Word] = []
    /// Where the committed text ends, in timeline seconds.
    private(set) var committedEnd: Double = 0

    /// Words a re-decoding may repeat from the end of the committed ones.
    static let reheardWords = 5

    /// How far (seconds) a re-decoding may move the end of the last committed word and still be heard as it.
    static let anchorTolerance = 0.5

    /// A word one decoding settles alone, without the next one's agreement, when that decoding heard at least this
    /// many seconds of audio after the word's end (the next word had begun) ...
    static let settledContext = 0.3
    /// ... and the decoder gave it at least this probability (the mean of its tokens'). Measured over the English
    /// corpus: the finals' words within two of agreement alone's (1,571), final results 0.4 s sooner (BENCHMARKS.md).
    static let settledProbability = 0.8

    /// The words of a decoding that come after the committed ones. Where the decoding heard the last committed word
    /// again (the same word, ending within `anchorTolerance` of where it did), the words after it, wherever the
    /// alignment put them. Else words starting before the last commit (by more than 0.1 s) are dropped, and so is
    /// the longest run at the start (at most `reheardWords`) that repeats the end of the committed words (a word
    /// straddling the commit, or audio before the window, is heard again).
    func fresh(_ words: [Word]) -> [Word] {
        if let last = recentWords.last, case let key = Self.normalized(last.word), !key.isEmpty,
           let anchor = words.indices.filter({ Self.normalized(words[$0].word) == key
                                               && abs(words[$0].end - last.end) <= Self.anchorTolerance })
                .min(by: { abs(words[$0].end - last.end) < abs(words[$1].end - last.end) }) {
            return Array(words[(anchor + 1)...])
        }
        var words = words.filter { $0.start >= committedEnd - 0.1 }
        if let first = words.first, first.start < committedEnd + 1 {
            let tail = recentWords.map { Self.normalized($0.word) }
            for length in stride(from: min(Self.reheardWords, tail.count, words.count), through: 1, by: -1)
            where Array(tail.suffix(length)) == words.prefix(length).map({ Self.normalized($0.word) }) {
                words.removeFirst(length)
                break
            }
        }
        return words
    }

    /// Takes a new decoding's fresh words, decoded from audio through `heard` (timeline seconds): returns the prefix
    /// it shares with the previous decoding and the settled words right after it (`settledContext`,
    /// `settledProbability`), to commit with `commit`; the rest becomes pending.
    mutating func agree(with words: [Word], heardThrough heard: Double) -> [Word] {
        var agreed = 0
        while agreed < min(words.count, pending.count), Self.sameWord(words[agreed], pending[agreed]) { agreed += 1 }
        while agreed < words.count, words[agreed].end <= heard - Self.settledContext,
              words[agreed].probability >= Self.settledProbability { agreed += 1 }
        pending = Array(words[agreed...])
        return Array(words[0..<agreed])
    }

    /// Replaces the pending words (a decoding at the end of the audio, which needs no agreement).
    mutating func setPending(_ words: [Word]) { pending = words }

    /// Takes out the pending words that end by `limit` seconds (with 50 ms of slack).
    mutating func takePending(endingBy limit: Double) -> [Word] {
        let ready = Array(pending.prefix { $0.end <= limit + 0.05 })
        pending.removeFirst(ready.count)
        return ready
    }

    /// Takes out every pending word.
    mutating func takeAllPending() -> [Word] {
        defer { pending = [] }
        return pending
    }

    /// Commits `words` (none: only moves the commit to `limit`), the commit at least at `start`; returns the
    /// committed stretch's start and end in seconds, nil when nothing was committed.
    mutating func commit(_ words: [Word], from start: Double, through limit: Double? = nil) -> (start: Double, end: Double)? {
        let start = max(committedEnd, start)
        guard let last = words.last else {
            if let limit { committedEnd = max(committedEnd, limit) }
            return nil
        }
        let end = max(last.end, limit ?? 0, start)
        windowWords += words
        recentWords = Array((recentWords + words).suffix(Self.reheardWords))
        committedEnd = end
        return (start, end)
    }

    /// Drops pending words that start before the end of the committed text.
    mutating func dropPendingBeforeCommit() { pending.removeAll { $0.start < committedEnd } }

    /// Whether committed audio should leave the window: a sentence is complete, or the window is longer than 15 s.
    func shouldTrim(windowSeconds: Double) -> Bool {
        let sentenceEnded = windowWords.last.map { [".", "?", "!"].contains($0.word.last) } ?? false
        return sentenceEnded || windowSeconds > 15
    }

    /// The committed words, as they leave the window (their text becomes the prompt).
    mutating func trimmedWords() -> [Word] {
        defer { windowWords = [] }
        return windowWords
    }

    /// Audio before `seconds` was skipped or dropped: nothing is committed before it; pending words there go.
    mutating func skip(to seconds: Double) {
        committedEnd = max(committedEnd, seconds)
        pending.removeAll { $0.start < seconds }
        recentWords = []
    }

    static func normalized(_ word: String) -> String {
        word.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    static func sameWord(_ a: Word, _ b: Word) -> Bool { normalized(a.word) == normalized(b.word) }
}
