import Testing
@testable import SpeechEngine

/// Where a clip's decoding begins for a model that writes nothing for a clip opening on silence (`ClipOnset`): a pure
/// policy, no model.
@Suite struct ClipOnsetTests {
    /// Frames of 10 samples, 20 samples kept before the first loud frame, −34 dB of the loudest, floor 1e-4.
    let onset = ClipOnset(frame: 10, margin: 20, relativeLevel: 0.02, floor: 1e-4)

    /// `count` samples of a square wave of `level` from `from` on, `before` (a level) until then.
    func audio(_ count: Int, from: Int, level: Float = 0.5, before: Float = 0) -> [Float] {
        (0..<count).map { i in (i % 2 == 0 ? 1 : -1) * (i < from ? before : level) }
    }

    func start(_ samples: [Float]) -> Int? { samples.withUnsafeBufferPointer { onset.start(of: $0) } }

    @Test("silence before the sound is dropped but for the margin; a clip opening on sound starts where it starts")
    func silenceBefore() {
        #expect(start(audio(1_000, from: 300)) == 280)
        #expect(start(audio(1_000, from: 305)) == 280, "the frame the sound begins in counts")
        #expect(start(audio(1_000, from: 15)) == 0, "the margin reaches before the clip")
        #expect(start(audio(1_000, from: 0)) == 0)
    }

    @Test("noise more than 34 dB under the loudest frame is silence; sound within it, however soft, is not")
    func relativeLevel() {
        #expect(start(audio(1_000, from: 500, before: 0.005)) == 480, "−40 dB: silence")
        #expect(start(audio(1_000, from: 500, before: 0.05)) == 0, "−20 dB: sound")
        var soft = audio(1_000, from: 500)
        for i in 400..<500 { soft[i] = (i % 2 == 0 ? 1 : -1) * 0.025 }   // −26 dB, from sample 400
        #expect(start(soft) == 380)
        #expect(start(audio(1_000, from: 600, level: 0.002)) == 580, "a quiet recording is judged against itself")
    }

    @Test("a clip with nothing over the floor, or no samples, is silent: nil")
    func silent() {
        #expect(start([Float](repeating: 0, count: 1_000)) == nil)
        #expect(start(audio(1_000, from: 0, level: 5e-5)) == nil)
        #expect(start([]) == nil)
        #expect(start(audio(3, from: 1)) == 0, "a clip shorter than a frame is one frame")
    }
}
