@testable import OpenSpeechServer
import Testing

/// The deltas of a Realtime item, without a model: volatile words first, the file transcription's text after them.
@Suite struct TranscriptDeltasTests {
    @Test("volatile increments go out as they come, the first without its leading space")
    func volatileIncrements() {
        var deltas = TranscriptDeltas()
        #expect(deltas.volatile(" ") == nil)
        #expect(deltas.volatile(" God as a") == "God as a")
        #expect(deltas.volatile(" direct consequence") == " direct consequence")
        #expect(deltas.sent == "God as a direct consequence")
    }

    @Test("the final text extends the volatile words: only what follows them is sent, whatever its case and punctuation")
    func finalExtends() {
        var deltas = TranscriptDeltas()
        _ = deltas.volatile(" god as a direct")
        // Final results arrive one segment at a time: one shorter than what was sent adds nothing yet.
        #expect(deltas.final(" God, as a") == nil)
        #expect(deltas.final(" God, as a direct consequence of the sin.") == " consequence of the sin.")
        #expect(deltas.final(" God, as a direct consequence of the sin. Which man") == " Which man")
        #expect(deltas.sent == "god as a direct consequence of the sin. Which man")
        #expect(!deltas.diverged)
    }

    @Test("without volatile words the deltas are the final text, exactly")
    func finalOnly() {
        var deltas = TranscriptDeltas()
        #expect(deltas.final(" And so my fellow Americans,") == "And so my fellow Americans,")
        #expect(deltas.final(" And so my fellow Americans, ask not") == " ask not")
        #expect(deltas.final(" And so my fellow Americans, ask not") == nil)
        #expect(deltas.sent == "And so my fellow Americans, ask not")
    }

    @Test("a final text that contradicts the words sent stops the deltas (the completed transcript replaces them)")
    func divergence() {
        var deltas = TranscriptDeltas()
        _ = deltas.volatile(" ask not what your county")
        #expect(deltas.final(" Ask not what your country can do") == nil)
        #expect(deltas.diverged)
        #expect(deltas.final(" Ask not what your country can do for you") == nil)
        var early = TranscriptDeltas()
        _ = early.volatile(" ask not what")
        #expect(early.final(" Tell") == nil)
        #expect(early.diverged)
        #expect(early.volatile(" more") == nil)
    }
}
