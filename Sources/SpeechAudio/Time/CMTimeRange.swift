/// A span of time: a start and a duration, as in Core Media.
public struct CMTimeRange: Sendable, Hashable {
    /// The first time in the range.
    public var start: CMTime
    /// How long the range lasts; `.positiveInfinity` for a range without end.
    public var duration: CMTime

    /// The range of `duration` from `start`.
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

    /// An empty range at zero.
    public static let zero = CMTimeRange(start: .zero, duration: .zero)
    /// An invalid range, from invalid times.
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)

    /// The first time after the range: `start + duration`.
    public var end: CMTime { start + duration }

    /// Whether both times are valid and not indefinite, and the duration is not negative.
    public var isValid: Bool {
        start.isValid && duration.isValid && !start.isIndefinite && !duration.isIndefinite
            && (duration.isPositiveInfinity || duration.isNumeric && duration.value >= 0)
    }
    /// Whether the range is valid and lasts zero.
    public var isEmpty: Bool { isValid && duration == .zero }
    /// Whether the start or the duration is indefinite.
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
    /// The start and end in seconds, or that the range is invalid, for debugging.
    public var description: String {
        isValid ? "CMTimeRange(\(start.seconds)s ..< \(end.seconds)s)" : "CMTimeRange(invalid)"
    }
}

/// Core Media's free functions, for code written against them.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange {
    CMTimeRange(start: start, duration: duration)
}
/// The range from `start` up to `end`, as `CMTimeRange(start:end:)`.
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange { CMTimeRange(start: start, end: end) }
/// The first time after the range.
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime { range.end }
/// Whether `time` lies in the range, end excluded.
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool { range.containsTime(time) }
/// The overlap of two ranges, as `intersection(_:)`.
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    range.intersection(otherRange)
}
/// The smallest range covering both, as `union(_:)`.
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange { range.union(otherRange) }
