import Foundation

/// First and last 20 ms frame of 16 kHz `samples` at least 20 dB above the clip's background (its 10th-percentile
/// frame level), in seconds: the speech boundaries of a clip recorded in a quiet room, the truth VAD tests compare with.
public func energyBoundaries(_ samples: [Float]) -> (start: Double, end: Double) {
    let frame = 320
    let levels = stride(from: 0, to: samples.count - frame, by: frame).map { start in
        10 * log10(samples[start..<(start + frame)].reduce(0) { $0 + $1 * $1 } / Float(frame) + 1e-12)
    }
    let background = levels.sorted()[levels.count / 10]
    let first = levels.firstIndex { $0 > background + 20 }!, last = levels.lastIndex { $0 > background + 20 }!
    return (Double(first * frame) / 16_000, Double((last + 1) * frame) / 16_000)
}
