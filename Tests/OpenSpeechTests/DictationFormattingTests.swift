import Foundation
@testable import OpenSpeech
import Testing

/// Dictation's text options and the repetition guard, on text alone.
@Suite struct DictationFormattingTests {
    @Test func punctuationRemovedUnlessAsked() {
        let plain = DictationTextFormatter(punctuation: false, emoji: false)
        #expect(String(plain.format(" Hello, world. Is it 3.5 or 1,000? It's well-known - yes!").characters)
                == " Hello world Is it 3.5 or 1,000 It's well-known yes")
        #expect(String(plain.format(" Add a comma here period").characters) == " Add a comma here period")
        let kept = DictationTextFormatter(punctuation: true, emoji: false)
        #expect(String(kept.format(" Hello, world.").characters) == " Hello, world.")
    }

    @Test func spokenEmojiNamesBecomeEmoji() {
        let formatter = DictationTextFormatter(punctuation: true, emoji: true)
        #expect(String(formatter.format(" Great job, thumbs up! Smiley face.").characters) == " Great job, 👍! 🙂.")
        #expect(String(formatter.format(" I love you heart emoji").characters) == " I love you ❤️")
        #expect(String(formatter.format(" Take heart, my friend.").characters) == " Take heart, my friend.")
        let off = DictationTextFormatter(punctuation: true, emoji: false)
        #expect(String(off.format(" thumbs up").characters) == " thumbs up")
    }

    @Test func emojiKeepsTheWordsTimeRange() {
        var first = AttributedString(" thumbs")
        first.audioTimeRange = CMTimeRange(start: CMTime(value: 1, timescale: 1), end: CMTime(value: 2, timescale: 1))
        var second = AttributedString(" up")
        second.audioTimeRange = CMTimeRange(start: CMTime(value: 2, timescale: 1), end: CMTime(value: 3, timescale: 1))
        let result = DictationTextFormatter(punctuation: true, emoji: true).format(first + second)
        #expect(String(result.characters) == " 👍")
        let emojiRun = result.runs.first { String(result[$0.range].characters) == "👍" }
        #expect(emojiRun?.audioTimeRange == CMTimeRange(start: CMTime(value: 1, timescale: 1), end: CMTime(value: 3, timescale: 1)))
    }

    @Test func repetitionLoopsAreCut() {
        let loop = " Thank you. Thank you. Thank you. Thank you. Goodbye."
        #expect(RepetitionGuard.cut(words: nil, text: loop).text == " Thank you. Goodbye.")
        let single = " the the the the the end"
        #expect(RepetitionGuard.cut(words: nil, text: single).text == " the end")
        let fine = " I had had enough, very very tired."
        #expect(RepetitionGuard.cut(words: nil, text: fine).text == fine)
        #expect(RepetitionGuard.keptIndices([" so", " so", " so", " so", " so", " yes"]) == [0, 5])
    }

    /// What live transcription checks before its committed text becomes the model's prompt: the loop one live run
    /// committed (across pieces of text, as finals come) is found; ordinary repetition is not.
    @Test func promptLoopsAreFound() {
        let committed = [" And so my fellow Americans.", " asked not to pay for the money", " to pay for the money",
                         " to pay the money", " your country", " can do for you.", " ask what you can", " the money to pay"]
        #expect(!RepetitionGuard.hasLoop(committed.prefix(7).joined()))
        #expect(RepetitionGuard.hasLoop(committed.joined()))
        #expect(RepetitionGuard.hasLoop(" Thank you. Thank you. Thank you."))
        #expect(!RepetitionGuard.hasLoop(" I had had enough, very very tired. Ask not what your country can do for you, "
            + "ask what you can do for your country."))
        #expect(!RepetitionGuard.hasLoop(""))
    }
}
