/// Arithmetic and ordering of `CMTime` across timescales.
extension CMTime: Comparable, Hashable {
    /// Orders times as Core Media does: -∞ < numeric < +∞ < indefinite < invalid; all invalid times are equal.
    public static func < (lhs: CMTime, rhs: CMTime) -> Bool { compare(lhs, rhs) < 0 }

    /// Whether two times are the same instant, whatever their timescales; all invalid times are equal.
    public static func == (lhs: CMTime, rhs: CMTime) -> Bool { compare(lhs, rhs) == 0 }

    /// Hashes the time so that equal times in different timescales hash alike.
    public func hash(into hasher: inout Hasher) {
        guard isNumeric else {
            hasher.combine(isValid ? flags.intersection(.impliedValueFlagsMask).rawValue : 0xFFFF)
            return
        }
        // Equal times in different timescales hash alike: hash the reduced fraction.
        let divisor = Self.gcd(abs(value), Int64(timescale))
        hasher.combine(value / max(divisor, 1))
        hasher.combine(Int64(timescale) / max(divisor, 1))
    }

    /// -1, 0 or 1.
    static func compare(_ lhs: CMTime, _ rhs: CMTime) -> Int {
        func rank(_ time: CMTime) -> Int {
            if !time.isValid { return 5 }
            if time.isNegativeInfinity { return 1 }
            if time.isNumeric { return 2 }
            if time.isPositiveInfinity { return 3 }
            return 4 // indefinite
        }
        let (left, right) = (rank(lhs), rank(rhs))
        if left != right || left != 2 { return left < right ? -1 : (left > right ? 1 : 0) }
        if lhs.timescale == rhs.timescale { return lhs.value < rhs.value ? -1 : (lhs.value > rhs.value ? 1 : 0) }
        // Cross-multiply in 128-bit-safe fashion.
        let a = lhs.value.multipliedFullWidth(by: Int64(rhs.timescale))
        let b = rhs.value.multipliedFullWidth(by: Int64(lhs.timescale))
        if a.high != b.high { return a.high < b.high ? -1 : 1 }
        if a.low != b.low { return a.low < b.low ? -1 : 1 }
        return 0
    }

    /// The sum of two times, in a common timescale when one fits (rounded otherwise).
    public static func + (lhs: CMTime, rhs: CMTime) -> CMTime { combine(lhs, rhs, subtract: false) }
    /// The difference of two times, in a common timescale when one fits (rounded otherwise).
    public static func - (lhs: CMTime, rhs: CMTime) -> CMTime { combine(lhs, rhs, subtract: true) }
    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout CMTime, rhs: CMTime) { lhs = lhs + rhs }
    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout CMTime, rhs: CMTime) { lhs = lhs - rhs }

    /// The time negated; the infinities swap, and indefinite and invalid times stay as they are.
    public static prefix func - (time: CMTime) -> CMTime {
        if time.isPositiveInfinity { return .negativeInfinity }
        if time.isNegativeInfinity { return .positiveInfinity }
        guard time.isNumeric else { return time }
        return CMTime(value: -time.value, timescale: time.timescale, flags: time.flags, epoch: time.epoch)
    }

    /// The time multiplied by an integer; overflow saturates to an infinity.
    public static func * (time: CMTime, multiplier: Int32) -> CMTime {
        guard time.isNumeric else { return multiplier < 0 ? -time : time }
        let (product, overflow) = time.value.multipliedReportingOverflow(by: Int64(multiplier))
        if overflow { return (time.value > 0) == (multiplier > 0) ? .positiveInfinity : .negativeInfinity }
        return CMTime(value: product, timescale: time.timescale, flags: time.flags, epoch: time.epoch)
    }

    /// The time multiplied by a real factor, kept in its own timescale.
    public static func * (time: CMTime, multiplier: Double) -> CMTime {
        guard time.isNumeric else { return multiplier < 0 ? -time : time }
        var result = CMTime(seconds: time.seconds * multiplier, preferredTimescale: time.timescale)
        if time.hasBeenRounded { result.flags.insert(.hasBeenRounded) }
        return result
    }

    private static func combine(_ lhs: CMTime, _ rhs: CMTime, subtract: Bool) -> CMTime {
        guard lhs.isValid, rhs.isValid else { return .invalid }
        if lhs.isIndefinite || rhs.isIndefinite { return .indefinite }
        let right = subtract ? -rhs : rhs
        let leftInfinite = lhs.isPositiveInfinity || lhs.isNegativeInfinity
        let rightInfinite = right.isPositiveInfinity || right.isNegativeInfinity
        if leftInfinite || rightInfinite {
            if leftInfinite && rightInfinite && lhs.isPositiveInfinity != right.isPositiveInfinity { return .invalid }
            return leftInfinite ? lhs : right
        }
        var (scale, rounded) = commonTimescale(lhs.timescale, right.timescale)
        var a = lhs.convertScale(scale), b = right.convertScale(scale)
        if !a.isNumeric || !b.isNumeric {
            scale = max(lhs.timescale, right.timescale)
            a = lhs.convertScale(scale)
            b = right.convertScale(scale)
            rounded = true
        }
        let (sum, overflow) = a.value.addingReportingOverflow(b.value)
        if overflow { return b.value > 0 ? .positiveInfinity : .negativeInfinity }
        var result = CMTime(value: sum, timescale: scale)
        if rounded || a.hasBeenRounded || b.hasBeenRounded { result.flags.insert(.hasBeenRounded) }
        return result
    }

    /// The least common multiple of two timescales if it fits in 32 bits, else the larger one (rounded = true).
    static func commonTimescale(_ a: Int32, _ b: Int32) -> (Int32, rounded: Bool) {
        if a == b { return (a, false) }
        let lcm = Int64(a) / gcd(Int64(a), Int64(b)) * Int64(b)
        if lcm <= Int64(Int32.max) { return (Int32(lcm), false) }
        let larger = max(a, b)
        return (larger, true)
    }

    static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
        var (x, y) = (a, b)
        while y != 0 { (x, y) = (y, x % y) }
        return x
    }
}

extension CMTime: CustomStringConvertible {
    /// The value, timescale and seconds, or which special time it is, for debugging.
    public var description: String {
        if !isValid { return "CMTime(invalid)" }
        if isPositiveInfinity { return "CMTime(+infinity)" }
        if isNegativeInfinity { return "CMTime(-infinity)" }
        if isIndefinite { return "CMTime(indefinite)" }
        return "CMTime(\(value)/\(timescale) = \(seconds)s)"
    }
}

/// Core Media's free functions, for code written against them.
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime { CMTime(value: value, timescale: timescale) }
/// The time nearest to `seconds` in `preferredTimescale` units, as `CMTime(seconds:preferredTimescale:)`.
public func CMTimeMakeWithSeconds(_ seconds: Double, preferredTimescale: Int32) -> CMTime {
    CMTime(seconds: seconds, preferredTimescale: preferredTimescale)
}
/// The time in seconds, as `CMTime.seconds`.
public func CMTimeGetSeconds(_ time: CMTime) -> Double { time.seconds }
/// The sum of two times.
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs + rhs }
/// The difference of two times.
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs - rhs }
/// -1, 0 or 1 as `lhs` is earlier than, the same as or later than `rhs`.
public func CMTimeCompare(_ lhs: CMTime, _ rhs: CMTime) -> Int32 { Int32(CMTime.compare(lhs, rhs)) }
/// The later of two times.
public func CMTimeMaximum(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { lhs < rhs ? rhs : lhs }
/// The earlier of two times.
public func CMTimeMinimum(_ lhs: CMTime, _ rhs: CMTime) -> CMTime { rhs < lhs ? rhs : lhs }
/// The time expressed in `timescale` units, rounded by `method`.
public func CMTimeConvertScale(_ time: CMTime, timescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    time.convertScale(timescale, method: method)
}
