/// A span of time: a start and a duration, as in Core Media.
public struct CMTimeRange: Sendable, Hashable {
    public var start: CMTime
    public var duration: CMTime

    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// The range from `start` up to (not including) `end`. An end before the start gives `.invalid`.
    public init(start: CMTime, end: CMTime) {
        let duration = end - start
        if duration.isValid && duration >= .zero || end.isPositiveInfinity && start.isNumeric {
            self.init(start: start, duration: end.isPositiveInfinity ? .positiveInfinity : duration)
        } else {
            self = .invalid
        }
    }

    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)

    /// The first time after the range: `start + duration`.
    public var end: CMTime { start + duration }

    public var isValid: Bool {
        start.isValid && duration.isValid && !start.isIndefinite && !duration.isIndefinite
            && (duration.isPositiveInfinity || duration.isNumeric && duration.value >= 0)
    }
    public var isEmpty: Bool { isValid && duration == .zero }
    public var isIndefinite: Bool { start.isIndefinite || duration.isIndefinite }

    /// Whether `time` lies in `[start, end)`.
    public func containsTime(_ time: CMTime) -> Bool {
        isValid && time.isValid && start <= time && time < end
    }

    /// Whether `range` lies wholly inside this range.
    public func containsTimeRange(_ range: CMTimeRange) -> Bool {
        isValid && range.isValid && start <= range.start && range.end <= end
    }

    /// The overlap of both ranges; an empty range at the later start when they do not overlap.
    public func intersection(_ other: CMTimeRange) -> CMTimeRange {
        guard isValid, other.isValid else { return .invalid }
        let lower = Swift.max(start, other.start)
        let upper = Swift.min(end, other.end)
        if upper <= lower { return CMTimeRange(start: lower, duration: .zero) }
        return CMTimeRange(start: lower, end: upper)
    }

    /// The smallest range covering both ranges.
    public func union(_ other: CMTimeRange) -> CMTimeRange {
        guard isValid, other.isValid else { return .invalid }
        return CMTimeRange(start: Swift.min(start, other.start), end: Swift.max(end, other.end))
    }
}

extension CMTimeRange: CustomStringConvertible {
    public var description: String {
        isValid ? "CMTimeRange(\(start.seconds)s ..< \(end.seconds)s)" : "CMTimeRange(invalid)"
    }
}

/// Core Media's free functions, for code written against them.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange {
    CMTimeRange(start: start, duration: duration)
}
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange { CMTimeRange(start: start, end: end) }
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime { range.end }
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool { range.containsTime(time) }
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    range.intersection(otherRange)
}
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange { range.union(otherRange) }
