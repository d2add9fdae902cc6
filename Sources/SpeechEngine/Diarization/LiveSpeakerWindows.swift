/// Where live diarization looks: 1.5 s windows every 0.25 s on a grid from the first sample of the audio (so the
/// windows are a function of the audio, not of how it arrives), each labelling the 0.25 s at its centre, which tiles
/// the timeline. A window is speech when a fifth of its 32 ms detector chunks are (0.3 s): a turn's first and last
/// words and the pauses inside it are labelled too. A speaker change is labelled once the window centred just after
/// it is complete, about 1.1 s after the change, a window later for a new voice (`OnlineSpeakerClustering` holds its
/// first window back). On the benchmark's conversations (BENCHMARKS.md), every 0.5 s or half the chunks missed
/// 5–14 % of the speech and labelled a change in 1.6 s.
package struct LiveSpeakerWindows: Sendable, Equatable {
    /// Samples per window (1.5 s at 16 kHz: CAM++'s 148 frames, as the file pipeline's windows).
    package static let length = 24_000
    /// Samples between window starts, and the length of the stretch each labels.
    package static let hop = 4_000
    /// A detector chunk counts as speech at this probability (the file diarizer's threshold).
    package static let speechProbability: Float = 0.55
    /// A window is speech when at least this share of its chunks is.
    package static let speechShare: Float = 0.2

    /// The timeline sample the grid starts at (the first sample of the audio).
    package let origin: Int64

    package init(origin: Int64) {
        self.origin = origin
    }

    /// The start of window `index`.
    package func start(of index: Int) -> Int64 { origin + Int64(index) * Int64(Self.hop) }

    /// The stretch window `index` labels: its centre hop; the first window also labels the hop before its centre, so
    /// speech from the first sample on is labelled.
    package func labelled(by index: Int) -> Range<Int64> {
        let start = start(of: index)
        let before = Int64((Self.length - Self.hop) / 2)
        return (index == 0 ? start : start + before)..<(start + before + Int64(Self.hop))
    }

    /// Windows complete once audio through timeline sample `end` (exclusive) is received: `0..<count`.
    package func completeCount(through end: Int64) -> Int {
        let available = end - origin - Int64(Self.length)
        return available < 0 ? 0 : Int(available / Int64(Self.hop)) + 1
    }

    /// Whether window `index` (its first `length` samples: less for the tail of the audio) is speech, from the
    /// detector's probabilities of the 512-sample chunks laid from `origin` (chunk `c` covers samples
    /// `origin + 512 c ..< origin + 512 (c + 1)`, `probabilities[0]` is chunk `firstChunk`'s): the chunks wholly inside.
    package func isSpeech(_ index: Int, probabilities: [Float], firstChunk: Int = 0, length: Int = Self.length) -> Bool {
        let chunk = Int64(VoiceActivityDetection.chunkLength)
        let offset = start(of: index) - origin
        let first = Int((offset + chunk - 1) / chunk)
        let last = Int((offset + Int64(length)) / chunk)  // exclusive
        guard last > first else { return false }
        var speech = 0
        for c in first..<last {
            let i = c - firstChunk
            if i >= 0, i < probabilities.count, probabilities[i] >= Self.speechProbability { speech += 1 }
        }
        return Float(speech) >= Self.speechShare * Float(last - first)
    }
}
