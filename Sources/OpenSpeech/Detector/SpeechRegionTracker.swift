import SpeechEngine

/// Speech regions of audio on the analyzer's timeline, found incrementally: a voice activity detector scores each
/// 32 ms chunk and a `SpeechSegmenter` turns the scores into regions. Positions are 16 kHz timeline samples.
///
/// Audio may skip ahead (the analyzer allows gaps): the open region then closes and detection restarts at the
/// new position. Owned by one actor (not `Sendable`, like the detector it holds).
final class SpeechRegionTracker {
    let options: SpeechSegmentationOptions
    private let detector: any VoiceActivityDetector
    private var segmenter: SpeechSegmenter
    /// The timeline sample of the detector's first sample since its last reset; nil before any audio.
    private(set) var origin: Int64?
    /// Samples fed to the detector since `origin`.
    private var fed: Int64 = 0
    /// Every closed region so far, in time order.
    private(set) var regions: [Range<Int64>] = []

    init(detector: any VoiceActivityDetector, options: SpeechSegmentationOptions) {
        self.detector = detector
        self.options = options
        segmenter = SpeechSegmenter(options: options)
    }

    /// The timeline position just after the last audio received.
    var end: Int64 { (origin ?? 0) + fed }

    /// Where the speech in progress began (padded like closed regions), if speech is in progress.
    var openRegionStart: Int64? {
        guard let origin, let start = segmenter.openRegionStart else { return nil }
        let padded = origin + Int64(start) - Self.samples(options.speechPad)
        return max(padded, regions.last?.upperBound ?? origin, origin)
    }

    /// No region closed from now on starts before this timeline sample: the padded start of the speech in progress,
    /// else the padded start of the next 32 ms chunk the detector will score.
    var frontier: Int64? {
        guard let origin else { return nil }
        if let open = openRegionStart { return open }
        let scored = origin + Int64(segmenter.chunkCount * VoiceActivityDetection.chunkLength)
        return max(scored - Self.samples(options.speechPad), regions.last?.upperBound ?? origin, origin)
    }

    /// Feeds audio starting at timeline sample `start`; returns the regions it closes.
    func append(_ samples: [Float], at start: Int64) -> [Range<Int64>] {
        var closed: [Range<Int64>] = []
        if origin == nil {
            origin = start
        } else if start > end {
            closed = closeOpenRegion()
            detector.reset()
            segmenter = SpeechSegmenter(options: options)
            origin = start
            fed = 0
        }
        let overlap = Int(max(0, min(end - start, Int64(samples.count))))
        let fresh = samples[overlap...]
        guard !fresh.isEmpty else { return closed }
        var probabilities: [Float] = []
        fresh.withUnsafeBufferPointer { detector.process($0, appendingTo: &probabilities) }
        fed += Int64(fresh.count)
        return closed + record(segmenter.consume(probabilities))
    }

    /// Ends the speech in progress with the audio received so far; returns it if it was long enough.
    func closeOpenRegion() -> [Range<Int64>] {
        guard origin != nil else { return [] }
        return record(segmenter.finish(totalSamples: Int(fed)))
    }

    private func record(_ closed: [SpeechRegion]) -> [Range<Int64>] {
        let origin = origin ?? 0
        let ranges = closed.map { region in
            (origin + Int64(region.samples.lowerBound))..<min(origin + Int64(region.samples.upperBound), end)
        }.filter { !$0.isEmpty }
        regions += ranges
        return ranges
    }

    static func samples(_ seconds: Double) -> Int64 { Int64((seconds * 16_000).rounded()) }
}
