/// Where speaker embeddings are taken: windows of 1.5 s every 0.6 s through each speech region, the last one ending
/// with the region (senko's and 3D-Speaker's subsegments). A region shorter than a window gets one window ending with
/// it, reaching back before it (never before the audio's start). Embeddings of 1.5 s tell speakers apart reliably;
/// the 0.6 s step places speaker changes to about 0.3 s.
package struct DiarizationWindows: Sendable, Equatable {
    package static let length = 24_000, step = 9_600

    /// The windows, in samples at 16 kHz, in order.
    package let ranges: [Range<Int>]

    package init(speech regions: [SpeechRegion]) {
        var ranges: [Range<Int>] = []
        for region in regions where !region.samples.isEmpty {
            var start = region.samples.lowerBound
            while start + Self.length < region.samples.upperBound {
                ranges.append(start..<(start + Self.length))
                start += Self.step
            }
            start = max(0, min(region.samples.upperBound - Self.length, start))
            ranges.append(start..<region.samples.upperBound)
        }
        self.ranges = ranges
    }
}
