/// Turns per-chunk speech probabilities into speech regions, incrementally: feed probabilities as a detector
/// yields them, and take each region once the silence after it is long enough to close it.
///
/// A region opens at the first chunk at or above `threshold` and is closed by a run of chunks below
/// `negativeThreshold` lasting `minSilenceDuration`; it ends with its last chunk at or above `threshold` (the model's
/// probability decays for a few chunks after speech stops, so this is tighter than the silence's start); it is dropped if shorter than `minSpeechDuration`, and
/// is padded by `speechPad` on each side without overlapping the previous region.
public struct SpeechSegmenter: Sendable {
    public let options: SpeechSegmentationOptions
    /// Chunks consumed so far.
    public private(set) var chunkCount = 0
    /// Where the speech now in progress began (before padding), if any.
    public private(set) var openRegionStart: Int?

    private let chunk = VoiceActivityDetection.chunkLength
    private var silenceStart: Int?
    /// The end of the open region's last chunk at or above `threshold`.
    private var lastSpeechEnd = 0
    /// Probabilities of the open region's chunks, for cutting overlong regions.
    private var openProbabilities: [Float] = []
    private var lastEnd = 0

    public init(options: SpeechSegmentationOptions = .init()) { self.options = options }

    /// Consumes probabilities; returns the regions they close.
    public mutating func consume(_ probabilities: some Sequence<Float>) -> [SpeechRegion] {
        var closed: [SpeechRegion] = []
        let minSilence = samples(options.minSilenceDuration)
        for p in probabilities {
            let position = chunkCount * chunk
            chunkCount += 1
            if let start = openRegionStart {
                openProbabilities.append(p)
                if p >= options.threshold {
                    silenceStart = nil
                    lastSpeechEnd = chunkCount * chunk
                } else if p < options.negativeThreshold {
                    let silence = silenceStart ?? position
                    silenceStart = silence
                    if chunkCount * chunk - silence >= minSilence {
                        close(start..<lastSpeechEnd, into: &closed)
                        continue
                    }
                }
                if let limit = options.maxSpeechDuration, chunkCount * chunk - start > samples(limit) {
                    cutOverlong(into: &closed)
                }
            } else if p >= options.threshold {
                openRegionStart = position
                lastSpeechEnd = chunkCount * chunk
                openProbabilities = [p]
                silenceStart = nil
            }
        }
        return closed
    }

    /// At the end of `totalSamples` samples of audio: closes the open region, if any.
    public mutating func finish(totalSamples: Int) -> [SpeechRegion] {
        var closed: [SpeechRegion] = []
        if let start = openRegionStart { close(start..<min(lastSpeechEnd, totalSamples), into: &closed) }
        for index in closed.indices { closed[index].samples = closed[index].samples.clamped(to: 0..<max(totalSamples, 0)) }
        return closed
    }

    /// The regions of a whole clip's probabilities.
    public static func regions(probabilities: [Float], totalSamples: Int,
                               options: SpeechSegmentationOptions = .init()) -> [SpeechRegion] {
        var segmenter = SpeechSegmenter(options: options)
        let regions = segmenter.consume(probabilities) + segmenter.finish(totalSamples: totalSamples)
        return regions.map { SpeechRegion(samples: $0.samples.clamped(to: 0..<max(totalSamples, 0))) }
    }

    private func samples(_ seconds: Double) -> Int { Int((seconds * Double(VoiceActivityDetection.sampleRate)).rounded()) }

    private mutating func close(_ range: Range<Int>, into closed: inout [SpeechRegion]) {
        openRegionStart = nil
        silenceStart = nil
        openProbabilities.removeAll(keepingCapacity: true)
        guard range.count >= samples(options.minSpeechDuration) else { return }
        let pad = samples(options.speechPad)
        let start = max(range.lowerBound - pad, lastEnd, 0)
        let end = range.upperBound + pad
        lastEnd = end
        closed.append(SpeechRegion(samples: start..<end))
    }

    /// Closes the open region at its least speech-like chunk in its second half and reopens after it.
    private mutating func cutOverlong(into closed: inout [SpeechRegion]) {
        guard let start = openRegionStart else { return }
        let half = openProbabilities.count / 2
        let cut = openProbabilities[half...].indices.min { openProbabilities[$0] < openProbabilities[$1] } ?? half
        let rest = Array(openProbabilities[(cut + 1)...])
        let cutSample = start + cut * chunk
        let savedSilence = silenceStart
        close(start..<cutSample, into: &closed)
        // The pad of the cut region must not eat into the continuing speech.
        lastEnd = min(lastEnd, cutSample)
        openRegionStart = cutSample + chunk
        lastSpeechEnd = max(lastSpeechEnd, cutSample + chunk)
        openProbabilities = rest
        silenceStart = savedSilence.map { max($0, cutSample + chunk) }
    }
}
