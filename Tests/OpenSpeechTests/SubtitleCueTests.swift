import Foundation
@testable import OpenSpeech
import Testing

/// `SubtitleCues`, the policy that cuts segments into cues, without a model: words in, cues out.
@Suite struct SubtitleCueTests {
    /// Words of `text` spoken one after another: each `length` seconds, `pause` between, longer pauses where given.
    static func words(_ text: String, from start: Double = 0, length: Double = 0.3, pause: Double = 0.05,
                      pauses: [Int: Double] = [:]) -> [Transcript.Word] {
        var time = start
        return text.split(separator: " ").enumerated().map { index, word in
            time += pauses[index] ?? 0
            defer { time += length + pause }
            return Transcript.Word(start: time, end: time + length, word: String(word), confidence: nil)
        }
    }

    static func segment(_ words: [Transcript.Word]) -> Transcript.Segment {
        Transcript.Segment(start: words[0].start, end: words.last!.end, text: words.map(\.word).joined(separator: " "),
                           words: words)
    }

    /// The limits every cue keeps, and the words in order, for any layout.
    static func checkLimits(_ cues: [SubtitleCue], words: [Transcript.Word], layout: SubtitleLayout,
                            separator: String = " ", sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(cues.flatMap(\.words) == words, sourceLocation: sourceLocation)
        for (index, cue) in cues.enumerated() {
            #expect(cue.lines.count <= layout.maxLineCount, "\(cue.text)", sourceLocation: sourceLocation)
            for line in cue.lines {
                #expect(line.text.count <= layout.maxLineWidth || line.words.count == 1, "\(line.text)",
                        sourceLocation: sourceLocation)
                #expect(line.text == line.words.map(\.word).joined(separator: separator), sourceLocation: sourceLocation)
            }
            let words = cue.words
            #expect(cue.start >= words[0].start && cue.end <= words.last!.end && cue.end >= cue.start,
                    "\(cue)", sourceLocation: sourceLocation)
            #expect(words.count == 1 || words.last!.end - words[0].start <= layout.maxCueDuration,
                    sourceLocation: sourceLocation)
            if index > 0 {
                #expect(cue.start - cues[index - 1].end >= layout.minCueGap - 1e-9, "\(cues[index - 1].end) \(cue.start)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    @Test("the issue's 174-character segment: two-line cues of at most 42 characters, cut after its clauses")
    func longSegment() {
        let text = "That we should have cleared out last night, only a born fool saw Jerry Nandy's lobster boat coming "
            + "into the cove and came running to say it was a party from the cutter."
        let words = Self.words(text, length: 0.25, pause: 0.02)
        let layout = SubtitleLayout()
        let cues = SubtitleCues(layout: layout).cues(for: [Self.segment(words)])
        Self.checkLimits(cues, words: words, layout: layout)
        #expect(cues.count == 3, "\(cues.map(\.text))")
        #expect(cues[0].words.last?.word == "night,", "the first cue ends at the clause: \(cues[0].text)")
        #expect(cues.allSatisfy { $0.lines.count == 2 || $0.text.count <= 42 })
    }

    @Test("an abbreviation's or an initial's period does not end a sentence: no cue ends at \"St.\"")
    func abbreviations() {
        for word in ["St.", "Dr.", "mr.", "e.g.", "(i.e.", "F.", "vs.\""] { #expect(!SubtitleCues.endsSentence(word), "\(word)") }
        for word in ["home.", "etc.", "I.", "No.", "U.S.", "why?"] { #expect(SubtitleCues.endsSentence(word), "\(word)") }
        let text = "The fire that started near the old church of St. Anthony burned for three whole days before the rain came."
        let words = Self.words(text, length: 0.25, pause: 0.02)
        let layout = SubtitleLayout()
        let cues = SubtitleCues(layout: layout).cues(for: [Self.segment(words)])
        Self.checkLimits(cues, words: words, layout: layout)
        #expect(cues.count >= 2 && !cues.contains { $0.words.last?.word == "St." }, "\(cues.map(\.text))")
    }

    @Test("a sentence end is preferred to a comma and to a pause; a pause to an arbitrary word")
    func cutPreferences() {
        let layout = SubtitleLayout(maxLineWidth: 20, maxLineCount: 1)
        let cutter = SubtitleCues(layout: layout)
        // "one two, three. four" (20 characters) fits a line: the cut is at the sentence end, not the comma.
        let sentence = Self.words("one two, three. four five six")
        let cues = cutter.cues(words: sentence)
        #expect(cues[0].text == "one two, three.", "\(cues.map(\.text))")
        let clause = Self.words("one two three, four five six")
        #expect(cutter.cues(words: clause)[0].text == "one two three,")
        // No punctuation: the longest pause, before "four".
        let paused = Self.words("one two three four five six", pauses: [3: 0.4])
        #expect(cutter.cues(words: paused)[0].text == "one two three")
        // No punctuation, no pause: as much as fits.
        let even = Self.words("one two three four five six")
        #expect(cutter.cues(words: even)[0].text == "one two three four")
        // A comma too early (less than half the line) is not taken.
        let early = Self.words("so, one two three four five six")
        #expect(cutter.cues(words: early)[0].text == "so, one two three")
    }

    @Test("lines are balanced; a word longer than the line width has a line of its own, never cut")
    func lines() {
        let layout = SubtitleLayout(maxLineWidth: 20, maxLineCount: 2)
        let words = Self.words("aaaa bbbb cccc dddd eeee ffff")
        let cues = SubtitleCues(layout: layout).cues(for: [Self.segment(words)])
        #expect(cues.count == 1)
        #expect(cues[0].lines.map(\.text) == ["aaaa bbbb cccc", "dddd eeee ffff"])
        let long = Self.words("supercalifragilisticexpialidocious is a word")
        let longCues = SubtitleCues(layout: layout).cues(for: [Self.segment(long)])
        Self.checkLimits(longCues, words: long, layout: layout)
        #expect(longCues[0].lines[0].text == "supercalifragilisticexpialidocious")
    }

    @Test("cues last at most max-cue-duration; a word longer than that is a cue alone")
    func duration() {
        let layout = SubtitleLayout(maxCueDuration: 2)
        let words = Self.words("a b c d e f g h i j k l", length: 0.4, pause: 0.1)
        let cues = SubtitleCues(layout: layout).cues(for: [Self.segment(words)])
        Self.checkLimits(cues, words: words, layout: layout)
        #expect(cues.count == 3, "\(cues.map(\.text))")
        let slow = [Transcript.Word(start: 1, end: 10, word: "hmmmm", confidence: nil)] + Self.words("yes", from: 10)
        let slowCues = SubtitleCues(layout: layout).cues(for: [Self.segment(slow)])
        #expect(slowCues.map(\.text) == ["hmmmm", "yes"])
    }

    @Test("gaps shorter than min-cue-gap close by ending the earlier cue sooner; cues never outlast their words")
    func gaps() {
        let layout = SubtitleLayout(maxLineWidth: 10, maxLineCount: 1, minCueGap: 0.1)
        let words = Self.words("abcd efgh ijkl mnop", length: 0.5, pause: 0)
        let cues = SubtitleCues(layout: layout).cues(for: [Self.segment(words)])
        Self.checkLimits(cues, words: words, layout: layout)
        #expect(cues.count == 2)
        #expect(abs(cues[0].end - 0.9) < 1e-9 && cues[1].start == 1.0)
        // A tiny first cue: the next starts later instead.
        let tight = [Transcript.Word(start: 0, end: 0.05, word: "a", confidence: nil),
                     Transcript.Word(start: 0.05, end: 1, word: "b", confidence: nil)]
        let tightCues = SubtitleCues(layout: SubtitleLayout(maxLineWidth: 1, maxLineCount: 1, minCueGap: 0.1)).cues(for: [Self.segment(tight)])
        #expect(tightCues.count == 2 && abs(tightCues[1].start - 0.15) < 1e-9, "\(tightCues)")
    }

    @Test("max-line-width 0 keeps whole segments; segments without word times are wrapped, not cut")
    func wholeSegments() {
        let words = Self.words(String(repeating: "word ", count: 40))
        let segment = Self.segment(words)
        let whole = SubtitleCues(layout: .wholeSegments).cues(for: [segment])
        #expect(whole.count == 1 && whole[0].text == segment.text && whole[0].start == segment.start)
        var untimed = segment
        untimed.words = []
        let wrapped = SubtitleCues().cues(for: [untimed])
        #expect(wrapped.count == 1 && wrapped[0].lines.allSatisfy { $0.text.count <= 42 })
        #expect(wrapped[0].lines.map(\.text).joined(separator: " ") == segment.text)
    }

    @Test("documents: SubRip numbering, WebVTT escaping and word timestamp tags inside the cue, TSV milliseconds")
    func documents() throws {
        let words = Self.words("Tom & <Jerry> ran home.", from: 1)
        var transcript = Transcript(results: [], language: "en", duration: 5)
        transcript.segments = [Self.segment(words)]
        transcript.text = transcript.segments[0].text
        let srt = try transcript.formatted(as: .srt)
        #expect(srt == "1\n00:00:01,000 --> 00:00:02,700\nTom & <Jerry> ran home.\n")
        let vtt = try transcript.formatted(as: .vtt, highlightWords: true)
        #expect(vtt == "WEBVTT\n\n00:00:01.000 --> 00:00:02.700\n"
            + "Tom <00:00:01.350>&amp; <00:00:01.700>&lt;Jerry&gt; <00:00:02.050>ran <00:00:02.400>home.\n", "\(vtt)")
        #expect(try transcript.formatted(as: .tsv) == "start\tend\ttext\n1000\t2700\tTom & <Jerry> ran home.\n")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(transcript.formatted(as: .json).utf8)) as? [String: Any])
        #expect(json["language"] as? String == "english" && json["task"] as? String == "transcribe")
        #expect((json["words"] as? [Any])?.count == 5)
    }

    @Test("Japanese and Chinese words are joined without spaces, and their lines are measured so")
    func unspacedLanguages() throws {
        let words = "今日 は とても いい 天気 です ね 明日 も 晴れ る でしょう 週末 は 海 に 行き ましょう".split(separator: " ")
            .enumerated().map { index, word in
                Transcript.Word(start: Double(index) * 0.3, end: Double(index) * 0.3 + 0.25, word: String(word), confidence: nil)
            }
        let layout = SubtitleLayout(maxLineWidth: 12, maxLineCount: 2, maxCueDuration: 7, minCueGap: 0.08)
        let cues = SubtitleCues(layout: layout, language: "ja").cues(for: [Self.segment(words)])
        Self.checkLimits(cues, words: words, layout: layout, separator: "")
        #expect(cues.map(\.text).joined().replacingOccurrences(of: "\n", with: "") == words.map(\.word).joined())
        #expect(!cues.contains { $0.text.contains(" ") })
        #expect(SubtitleCues(language: "en").wordSeparator == " " && SubtitleCues(language: "zh").wordSeparator.isEmpty)
        let segments = String(decoding: try JSONEncoder().encode([Self.segment(words)]), as: UTF8.self)
        let transcript = try JSONDecoder().decode(Transcript.self, from: Data(
            #"{"text": "", "language": "ja", "duration": 6, "segments": \#(segments)}"#.utf8))
        let vtt = WebVTTDocument(transcript, layout: layout, highlightsWords: true).text
        #expect(!vtt.contains(" <"), "\(vtt)")
    }
}
