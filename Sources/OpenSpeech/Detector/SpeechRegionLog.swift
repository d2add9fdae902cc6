import Synchronization

/// The speech a `SpeechDetector` has found so far, shared with the transcribers of its analyzer: the detector's
/// processor writes it as it scores audio, the transcribers' gates read it. So an analyzer runs one voice activity
/// stream, the detector's, and a transcriber's gate agrees with the detector's results by construction.
///
/// Positions are 16 kHz timeline samples. The analyzer gives audio to detectors before transcribers, so a gate reads
/// regions for the audio it is given (all but a partial 32 ms chunk).
final class SpeechRegionLog: Sendable {
    /// What the detector knows.
    struct State: Sendable, Equatable {
        /// The timeline sample of the first audio the detector received; nil before any.
        var start: Int64?
        /// Closed speech regions (padded), in time order.
        var regions: [Range<Int64>] = []
        /// Where the speech in progress began (padded), if speech is in progress.
        var openStart: Int64?
        /// No region not yet closed starts before this timeline sample (padding included); nil before any audio.
        var frontier: Int64?
    }

    private let state = Mutex(State())

    init() {}

    /// Records what the detector's tracker knows after a step: the regions the step closed and the speech in progress.
    func record(closed: [Range<Int64>], from tracker: SpeechRegionTracker) {
        state.withLock { state in
            if state.start == nil { state.start = tracker.origin }
            state.regions += closed
            state.openStart = tracker.openRegionStart
            state.frontier = tracker.frontier
        }
    }

    /// Where the speech in progress began (padded), nil when none is.
    var speechInProgressStart: Int64? { state.withLock { $0.openStart } }

    /// The closed regions from the `index`-th on (in time order), and the detector's frontier: every region closed
    /// later starts at or after it.
    func closedRegions(from index: Int) -> (regions: [Range<Int64>], frontier: Int64?) {
        state.withLock { state in
            (index < state.regions.count ? Array(state.regions[index...]) : [], state.frontier)
        }
    }

    /// The closed regions that overlap `range` once widened by `margin` on each side, in time order; and what else
    /// is known (the start of the detector's audio and the speech in progress).
    func snapshot(overlapping range: Range<Int64>, margin: Int64) -> State {
        state.withLock { state in
            // Regions are sorted and disjoint: binary search for the first one ending after the range starts.
            var low = 0, high = state.regions.count
            while low < high {
                let mid = (low + high) / 2
                if state.regions[mid].upperBound + margin <= range.lowerBound { low = mid + 1 } else { high = mid }
            }
            var index = low
            var regions: [Range<Int64>] = []
            while index < state.regions.count, state.regions[index].lowerBound - margin < range.upperBound {
                regions.append(state.regions[index])
                index += 1
            }
            return State(start: state.start, regions: regions, openStart: state.openStart, frontier: state.frontier)
        }
    }
}
