/// Where the audio of a transcription stream lies on the analyzer's timeline: the stream is the timeline's chosen
/// stretches one after the other (all the audio, or the speech a detector found), so stream positions map back
/// piece by piece. A pure value type over 16 kHz sample positions.
struct StreamTimeline: Sendable, Equatable {
    struct Piece: Sendable, Equatable {
        var stream: Int
        var timeline: Int64
        var count: Int
    }

    private(set) var pieces: [Piece] = []
    /// Samples in the stream so far.
    private(set) var length = 0

    /// The timeline samples `range` follow the stream's end.
    mutating func append(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        if let last = pieces.last, last.timeline + Int64(last.count) == range.lowerBound {
            pieces[pieces.count - 1].count += range.count
        } else {
            pieces.append(Piece(stream: length, timeline: range.lowerBound, count: range.count))
        }
        length += range.count
    }

    /// The timeline position of stream position `position` (clamped to the stream). A position on the boundary of
    /// two pieces is the end of the first when `isEnd` (a segment or word ending there), else the start of the next.
    func timeline(of position: Int, isEnd: Bool) -> Int64 {
        guard let first = pieces.first else { return 0 }
        let position = min(max(position, first.stream), length)
        // The last piece starting before (or, for a start, at) the position.
        var low = 0, high = pieces.count
        while low < high {
            let mid = (low + high) / 2
            if isEnd ? pieces[mid].stream < position : pieces[mid].stream <= position { low = mid + 1 } else { high = mid }
        }
        let piece = pieces[max(low - 1, 0)]
        return piece.timeline + Int64(min(position - piece.stream, piece.count))
    }

    /// Whether stream positions `range` span two pieces (a stretch of the timeline left out between them).
    func hasBreak(in range: Range<Int>) -> Bool {
        pieces.contains { $0.stream > range.lowerBound && $0.stream < range.upperBound }
    }

    /// The first stream position strictly inside `range` where a piece starts (a stretch of the timeline left out
    /// before it), nil: none.
    func firstBreak(in range: Range<Int>) -> Int? {
        pieces.first { $0.stream > range.lowerBound && $0.stream < range.upperBound }?.stream
    }

    /// The index, among the pieces kept, of the piece holding stream position `position` (clamped to the stream):
    /// positions in one piece are contiguous on the timeline.
    func pieceIndex(of position: Int) -> Int {
        var low = 0, high = pieces.count
        while low < high {
            let mid = (low + high) / 2
            if pieces[mid].stream <= position { low = mid + 1 } else { high = mid }
        }
        return max(low - 1, 0)
    }

    /// The timeline position, in seconds, of the stream time `seconds` taken within piece `index` (clamped to it).
    func timeline(ofSeconds seconds: Double, inPiece index: Int) -> Double {
        let piece = pieces[index]
        let position = min(max(Int((seconds * 16_000).rounded()), piece.stream), piece.stream + piece.count)
        return Double(piece.timeline + Int64(position - piece.stream)) / 16_000
    }

    /// The timeline position, in seconds, of the stream time `seconds`.
    func timeline(ofSeconds seconds: Double, isEnd: Bool) -> Double {
        Double(timeline(of: Int((seconds * 16_000).rounded()), isEnd: isEnd)) / 16_000
    }

    /// The timeline samples of stream positions from `position` on, in order (the stream's tail).
    func timelineRanges(from position: Int) -> [Range<Int64>] {
        pieces.compactMap { piece in
            let skip = max(0, position - piece.stream)
            guard skip < piece.count else { return nil }
            return (piece.timeline + Int64(skip))..<(piece.timeline + Int64(piece.count))
        }
    }

    /// The timeline samples of stream positions `range`, in order.
    func timelineRanges(of range: Range<Int>) -> [Range<Int64>] {
        pieces.compactMap { piece in
            let lower = max(range.lowerBound, piece.stream), upper = min(range.upperBound, piece.stream + piece.count)
            guard lower < upper else { return nil }
            return (piece.timeline + Int64(lower - piece.stream))..<(piece.timeline + Int64(upper - piece.stream))
        }
    }

    /// The stream position of the first stream sample at or after timeline position `time` (the stream's length
    /// if none is).
    func streamPosition(ofTimeline time: Int64) -> Int {
        for piece in pieces where piece.timeline + Int64(piece.count) > time {
            return piece.stream + Int(max(0, time - piece.timeline))
        }
        return length
    }

    /// Forgets pieces that end before stream position `position`.
    mutating func discard(before position: Int) {
        let drop = pieces.prefix { $0.stream + $0.count < position }.count
        if drop > 0 && drop < pieces.count { pieces.removeFirst(drop) }
    }
}
