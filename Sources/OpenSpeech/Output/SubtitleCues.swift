/// One subtitle: its time range and its lines, each with the words it shows. Not in Apple's API.
public struct SubtitleCue: Sendable, Equatable {
    /// A line of a cue: its text and the timed words it shows (none for a segment without word times).
    public struct Line: Sendable, Equatable {
        /// The line's text as shown.
        public var text: String
        /// The timed words the line shows, in order.
        public var words: [Transcript.Word]

        /// A line showing `text`, made of `words`.
        public init(text: String, words: [Transcript.Word]) {
            self.text = text
            self.words = words
        }
    }

    /// Seconds: never before the first word's start.
    public var start: Double
    /// Seconds: never after the last word's end.
    public var end: Double
    /// The cue's lines, top to bottom.
    public var lines: [Line]
    /// Who speaks in the cue (its segment's speaker), with diarization.
    public var speaker: String? = nil

    /// A cue shown from `start` to `end` seconds with `lines`.
    public init(start: Double, end: Double, lines: [Line]) {
        self.start = start
        self.end = end
        self.lines = lines
    }

    /// The lines, one per row.
    public var text: String { lines.map(\.text).joined(separator: "\n") }
    /// The words of all lines, in order.
    public var words: [Transcript.Word] { lines.flatMap(\.words) }
}

/// Cuts a transcript's segments into subtitle cues within a `SubtitleLayout`, from the words' times: a pure value
/// (words in, cues out). Not in Apple's API.
///
/// A segment too long for one cue is cut between words, at the last sentence end that leaves the cue at least 30 %
/// of what would fit, else the last clause punctuation leaving it half, else the longest pause leaving it half, else
/// where it stops fitting. Lines are balanced (the shortest width that keeps the cue's line count). A cue runs from
/// its first word's start to its last word's end; where the next cue starts less than `minCueGap` later, it ends
/// earlier (or, if it is too short for that, the next starts later). Segments without word times become one cue
/// each, wrapped but not cut.
public struct SubtitleCues: Sendable, Equatable {
    /// The limits cues are cut to.
    public var layout: SubtitleLayout
    /// What stands between two words on a line: a space, or nothing for languages written without spaces.
    public var wordSeparator: String

    /// A cutter that keeps cues within `layout`, joining words with `wordSeparator`.
    public init(layout: SubtitleLayout = SubtitleLayout(), wordSeparator: String = " ") {
        self.layout = layout
        self.wordSeparator = wordSeparator
    }

    /// A cutter for text in `language` (an ISO 639 code, as `Transcript.language`): words are joined without spaces in
    /// Chinese, Japanese, Thai, Lao, Burmese, Khmer and Tibetan, with a space otherwise.
    public init(layout: SubtitleLayout = SubtitleLayout(), language: String) {
        let unspaced: Set<String> = ["zh", "ja", "th", "lo", "my", "km", "bo", "yue"]
        self.init(layout: layout, wordSeparator: unspaced.contains(language.lowercased()) ? "" : " ")
    }

    /// The cues of `segments`, in order.
    public func cues(for segments: [Transcript.Segment]) -> [SubtitleCue] {
        guard layout.maxLineWidth > 0 else {
            return segments.map {
                var cue = SubtitleCue(start: $0.start, end: $0.end, lines: [.init(text: $0.text, words: $0.words)])
                cue.speaker = $0.speaker
                return cue
            }
        }
        var cues: [SubtitleCue] = []
        for segment in segments {
            let first = cues.count
            defer { for index in first..<cues.count { cues[index].speaker = segment.speaker } }
            if segment.words.isEmpty {
                let words = wordSeparator.isEmpty ? segment.text.map(String.init)
                    : segment.text.split(separator: " ").map(String.init)
                guard !words.isEmpty else { continue }
                let lines = wrap(words.map(\.count)).map { range in
                    SubtitleCue.Line(text: words[range].joined(separator: wordSeparator), words: [])
                }
                cues.append(SubtitleCue(start: segment.start, end: max(segment.end, segment.start), lines: lines))
            } else {
                cues += self.cues(words: segment.words)
            }
        }
        return closingGaps(cues)
    }

    /// The cues of one segment's words.
    func cues(words: [Transcript.Word]) -> [SubtitleCue] {
        var cues: [SubtitleCue] = []
        var first = 0
        while first < words.count {
            var end = first + 1
            while end < words.count && fits(words[first..<(end + 1)]) { end += 1 }
            let cut = end == words.count ? end : cutPoint(words, from: first, fitting: end)
            cues.append(cue(words[first..<cut]))
            first = cut
        }
        return cues
    }

    /// Whether `words` make one cue: within the line count and the duration (one word always does).
    func fits(_ words: ArraySlice<Transcript.Word>) -> Bool {
        guard words.count > 1 else { return true }
        guard words.last!.end - words.first!.start <= layout.maxCueDuration else { return false }
        return greedyLines(words.map(\.word.count), width: layout.maxLineWidth) <= max(layout.maxLineCount, 1)
    }

    /// Where to end the cue starting at `first` when `words[first..<fitting]` is the most that fits: the index of its
    /// first word not shown.
    func cutPoint(_ words: [Transcript.Word], from first: Int, fitting end: Int) -> Int {
        let candidates = Array((first + 1)...end)
        let full = Double(characters(words[first..<end]))
        func fill(_ cut: Int) -> Double { full > 0 ? Double(characters(words[first..<cut])) / full : 1 }
        if let cut = candidates.last(where: { Self.endsSentence(words[$0 - 1].word) && fill($0) >= 0.3 }) { return cut }
        if let cut = candidates.last(where: { Self.endsClause(words[$0 - 1].word) && fill($0) >= 0.5 }) { return cut }
        let pauses = candidates.filter { $0 < words.count && fill($0) >= 0.5 }
        if let cut = pauses.max(by: { pause(words, before: $0) < pause(words, before: $1) || (pause(words, before: $0) == pause(words, before: $1) && $0 < $1) }),
           pause(words, before: cut) > 0 {
            return cut
        }
        return end
    }

    private func pause(_ words: [Transcript.Word], before index: Int) -> Double {
        words[index].start - words[index - 1].end
    }

    /// The cue showing `words`, in balanced lines.
    private func cue(_ words: ArraySlice<Transcript.Word>) -> SubtitleCue {
        let words = Array(words)
        let lines = wrap(words.map(\.word.count)).map { range in
            SubtitleCue.Line(text: words[range].map(\.word).joined(separator: wordSeparator), words: Array(words[range]))
        }
        return SubtitleCue(start: words[0].start, end: max(words.last!.end, words[0].start), lines: lines)
    }

    /// Words of these lengths in lines: as few as fit in `maxLineWidth`, each as short as keeps that count. Index
    /// ranges of the words of each line.
    func wrap(_ lengths: [Int]) -> [Range<Int>] {
        let width = layout.maxLineWidth
        let count = greedyLines(lengths, width: width)
        let total = lengths.reduce(0, +) + max(lengths.count - 1, 0) * wordSeparator.count
        var target = count > 1 ? min(width, (total + count - 1) / count) : width
        while target < width && greedyLines(lengths, width: target) > count { target += 1 }
        return greedyRanges(lengths, width: target)
    }

    /// Lines that filling each as far as `width` allows gives.
    private func greedyLines(_ lengths: [Int], width: Int) -> Int { greedyRanges(lengths, width: width).count }

    private func greedyRanges(_ lengths: [Int], width: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0, used = 0
        for (index, length) in lengths.enumerated() {
            if index > start && used + wordSeparator.count + length > width {
                ranges.append(start..<index)
                start = index
                used = length
            } else {
                used += index > start ? wordSeparator.count + length : length
            }
        }
        if start < lengths.count { ranges.append(start..<lengths.count) }
        return ranges
    }

    /// Characters of the words on one line.
    private func characters(_ words: ArraySlice<Transcript.Word>) -> Int {
        words.reduce(0) { $0 + $1.word.count } + max(words.count - 1, 0) * wordSeparator.count
    }

    /// Cues at least `minCueGap` apart: an earlier cue ends sooner, or, when that would leave it no time, the next
    /// starts later; neither goes past its words' times.
    func closingGaps(_ cues: [SubtitleCue]) -> [SubtitleCue] {
        var cues = cues
        let gap = layout.minCueGap
        for index in cues.indices.dropLast() where cues[index + 1].start - cues[index].end < gap {
            let next = cues[index + 1]
            if next.start - gap > cues[index].start {
                cues[index].end = next.start - gap
            } else if cues[index].end + gap < next.end {
                cues[index + 1].start = max(next.start, cues[index].end + gap)
            } else {
                cues[index].end = max(cues[index].start, min(cues[index].end, next.start))
            }
        }
        return cues
    }

    /// Trailing quotes and brackets do not hide a word's punctuation.
    private static func finalMark(_ word: String) -> Character? {
        word.last(where: { !"\"'”’)]}»".contains($0) })
    }

    /// Whether `word` ends a sentence: a final `.`, `?`, `!` or ellipsis, but not the period of an abbreviation
    /// ("St.", "Dr.", "e.g.") or of an initial.
    static func endsSentence(_ word: String) -> Bool {
        guard let mark = finalMark(word), ".?!…。？！".contains(mark) else { return false }
        return mark != "." || !Abbreviation.isAbbreviation(word)
    }

    static func endsClause(_ word: String) -> Bool {
        finalMark(word).map { ",;:—–、，；：".contains($0) } ?? false
    }
}
