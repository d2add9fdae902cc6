import Foundation

/// A second-order Butterworth high-pass filter (a biquad, RBJ's cookbook coefficients) over a stream of samples:
/// removes rumble, hum and handling noise below `cutoffHertz` and leaves the voice. Its state carries across
/// calls, so the output is the same however the stream is cut. A pure value type, tested without a model.
package struct HighPassFilter: Sendable, Equatable {
    let cutoffHertz: Double
    private let b0, b1, b2, a1, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    package init(cutoffHertz: Double, sampleRate: Double = 16_000) {
        self.cutoffHertz = cutoffHertz
        let w0 = 2 * Double.pi * cutoffHertz / sampleRate
        let alpha = sin(w0) / (2 * (1 / 2.0.squareRoot()))
        let a0 = 1 + alpha
        b0 = (1 + cos(w0)) / 2 / a0
        b1 = -(1 + cos(w0)) / a0
        b2 = (1 + cos(w0)) / 2 / a0
        a1 = -2 * cos(w0) / a0
        a2 = (1 - alpha) / a0
    }

    /// Filters `samples` in place, continuing from the samples before.
    package mutating func process(_ samples: inout [Float]) {
        for index in samples.indices {
            let x = Double(samples[index])
            let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2 = x1
            x1 = x
            y2 = y1
            y1 = y
            samples[index] = Float(y)
        }
    }
}
