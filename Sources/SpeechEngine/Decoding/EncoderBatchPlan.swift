/// Which long-form windows go through the encoder together: the window the decoder needs now and, when it is a full
/// 30 s window, the full windows right after it whose audio has arrived, as many as the batch size allows. The
/// decoder stays sequential (each window's prompt is the text before it), so the windows after it are a guess: one
/// is used when the decoder's seek lands on its start (the window before was transcribed to its end), and all are
/// dropped when the seek lands elsewhere (that window is then encoded again, as without batching).
///
/// A pure value type over mel frame positions (10 ms). Memory: at most `batchSize` windows of encoder output.
public struct EncoderBatchPlan: Sendable, Equatable {
    /// A window of the log-mel: `count` frames from `start` (the encoder always sees 3000, zero-padded).
    public struct Window: Sendable, Hashable {
        public var start: Int
        public var count: Int
        public init(start: Int, count: Int) {
            self.start = start
            self.count = count
        }
    }

    /// Windows encoded at once (1: one at a time).
    public let batchSize: Int
    /// Frames in a full window.
    public let windowFrames: Int

    public init(batchSize: Int, windowFrames: Int = 3000) {
        self.batchSize = max(1, batchSize)
        self.windowFrames = windowFrames
    }

    /// The windows to encode when the decoder needs `count` frames from `seek` and none was encoded ahead: that
    /// window first, then full windows at `seek + k · windowFrames` while the batch has room. Before the end of the
    /// audio (`ended` false) a window is taken only when its frames end before `completeFrames` (so its log-mel, its
    /// floor included, cannot change when the stream ends); after the end, the last one may be shorter (its count as
    /// the decoder will ask for it: up to `contentFrames`).
    public func windows(seek: Int, count: Int, completeFrames: Int, contentFrames: Int, ended: Bool) -> [Window] {
        var planned = [Window(start: seek, count: count)]
        guard count == windowFrames else { return planned }
        while planned.count < batchSize {
            let start = seek + planned.count * windowFrames
            if ended {
                let frames = min(windowFrames, contentFrames - start)
                guard frames > 0 else { break }
                planned.append(Window(start: start, count: frames))
                if frames < windowFrames { break }
            } else {
                guard start + windowFrames < completeFrames else { break }
                planned.append(Window(start: start, count: windowFrames))
            }
        }
        return planned
    }

    /// Of the windows encoded ahead (in order), the index of the one the decoder can use for `count` frames at
    /// `seek`, if any.
    public func reusable(_ ahead: [Window], seek: Int, count: Int) -> Int? {
        ahead.firstIndex(of: Window(start: seek, count: count))
    }
}
