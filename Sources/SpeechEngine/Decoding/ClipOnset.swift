/// Where a clip's decoding begins, for a model that writes nothing for a clip opening on a stretch of silence: Moonshine
/// base ends a clip at its first token when more than about half a second of silence or low noise comes before the
/// first word (ONNX Runtime on the same `.ort` files does the same, BENCHMARKS.md "Moonshine"), while pauses inside a
/// clip and silence after its last word do not trouble it. A live window muted before its speech (`SpeechGate`), or a
/// clip cut in the middle of a long pause, opens that way. The clip is decoded from `margin` samples before its first
/// `frame` whose mean square reaches `relativeLevel` (an amplitude ratio) of the loudest frame's, and at least `floor`;
/// a clip with no such frame is silent. A pure function of the clip's samples.
struct ClipOnset: Sendable, Equatable {
    /// Samples a frame holds (at least 1).
    let frame: Int
    /// Samples kept before the first loud frame (a soft onset: a breath, a fricative).
    let margin: Int
    /// The RMS a frame needs, as a fraction of the loudest frame's RMS.
    let relativeLevel: Float
    /// The RMS a frame needs at least (digital silence and dither are never sound).
    let floor: Float

    /// Moonshine's: 10 ms frames, 200 ms kept before the first frame within 34 dB of the loudest (a quarter second of
    /// silence or noise before the speech it transcribes; half a second of noise already loses the clip), −80 dBFS at
    /// least.
    static let moonshine = ClipOnset(frame: 160, margin: 3_200, relativeLevel: 0.02, floor: 1e-4)

    /// The index in `audio` the decoding starts at; nil when no frame is loud enough (nothing to decode).
    func start(of audio: UnsafeBufferPointer<Float>) -> Int? {
        guard !audio.isEmpty else { return nil }
        let frames = (audio.count + frame - 1) / frame
        var meanSquares = [Float](repeating: 0, count: frames)
        var loudest: Float = 0
        for index in 0..<frames {
            let range = (index * frame)..<min(audio.count, (index + 1) * frame)
            var sum: Float = 0
            for i in range { sum += audio[i] * audio[i] }
            meanSquares[index] = sum / Float(range.count)
            loudest = max(loudest, meanSquares[index])
        }
        let threshold = max(floor * floor, relativeLevel * relativeLevel * loudest)
        guard let first = meanSquares.firstIndex(where: { $0 >= threshold }) else { return nil }
        return max(0, first * frame - margin)
    }
}
