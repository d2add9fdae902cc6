/// Core Media's names for a time's parts.
public typealias CMTimeValue = Int64
/// The number of parts a second is divided into, in a `CMTime`.
public typealias CMTimeScale = Int32
/// The epoch of a `CMTime`, which distinguishes loops over the same timeline.
public typealias CMTimeEpoch = Int64

/// A rational time value, `value / timescale` seconds, as in Core Media.
///
/// Like Apple's, arithmetic and comparison work across timescales: sums use a common timescale when one fits
/// in 32 bits, else the larger timescale with rounding (and set `.hasBeenRounded`). Infinities absorb finite
/// values; anything combined with `.invalid` is invalid.
public struct CMTime: Sendable {
    /// The type of a time's numerator.
    public typealias Value = Int64
    /// The type of a time's timescale (parts per second).
    public typealias Scale = Int32
    /// The type of a time's epoch.
    public typealias Epoch = Int64

    /// The numerator: the time is `value / timescale` seconds when numeric.
    public var value: Value
    /// How many parts a second is divided into; 0 for the non-numeric times.
    public var timescale: Scale
    /// Whether the time is valid, rounded, infinite or indefinite.
    public var flags: CMTimeFlags
    /// The loop count of a repeating timeline. Unlike Core Media, ours ignores it in comparison and arithmetic.
    public var epoch: Epoch

    /// A time with every field given, flags included, unchecked.
    public init(value: Value, timescale: Scale, flags: CMTimeFlags, epoch: Epoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// A valid time of `value / timescale` seconds. A timescale of zero or less gives `.invalid`.
    public init(value: Value, timescale: Scale) {
        if timescale > 0 {
            self.init(value: value, timescale: timescale, flags: .valid, epoch: 0)
        } else {
            self.init(value: 0, timescale: 0, flags: [], epoch: 0)
        }
    }

    /// The time nearest to `seconds` in units of `1 / preferredTimescale` (rounded half away from zero).
    /// Non-finite seconds give the matching infinity, or `.invalid` for NaN.
    public init(seconds: Double, preferredTimescale: Scale) {
        if seconds.isNaN || preferredTimescale <= 0 {
            self = .invalid
        } else if seconds == .infinity {
            self = .positiveInfinity
        } else if seconds == -.infinity {
            self = .negativeInfinity
        } else {
            let scaled = (seconds * Double(preferredTimescale)).rounded()
            if scaled >= Double(Int64.max) {
                self = .positiveInfinity
            } else if scaled <= Double(Int64.min) {
                self = .negativeInfinity
            } else {
                self.init(value: Int64(scaled), timescale: preferredTimescale)
                if scaled != seconds * Double(preferredTimescale) { flags.insert(.hasBeenRounded) }
            }
        }
    }

    /// Zero seconds.
    public static let zero = CMTime(value: 0, timescale: 1)
    /// An invalid time: no flags set; what operations on invalid input return.
    public static let invalid = CMTime(value: 0, timescale: 0, flags: [], epoch: 0)
    /// A valid time whose value is unknown.
    public static let indefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)
    /// A time later than every numeric one.
    public static let positiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)
    /// A time earlier than every numeric one.
    public static let negativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)

    /// Whether the time has the `.valid` flag.
    public var isValid: Bool { flags.contains(.valid) }
    /// Whether the time is valid and positive infinity.
    public var isPositiveInfinity: Bool { isValid && flags.contains(.positiveInfinity) }
    /// Whether the time is valid and negative infinity.
    public var isNegativeInfinity: Bool { isValid && flags.contains(.negativeInfinity) }
    /// Whether the time is valid and indefinite.
    public var isIndefinite: Bool { isValid && flags.contains(.indefinite) }
    /// Valid and finite: neither infinite nor indefinite.
    public var isNumeric: Bool {
        isValid && flags.isDisjoint(with: [.positiveInfinity, .negativeInfinity, .indefinite])
    }
    /// Whether rounding happened when the time was made or converted.
    public var hasBeenRounded: Bool { flags.contains(.hasBeenRounded) }

    /// The time in seconds; `.nan` when invalid or indefinite, `±.infinity` for the infinities.
    public var seconds: Double {
        if isPositiveInfinity { return .infinity }
        if isNegativeInfinity { return -.infinity }
        guard isNumeric else { return .nan }
        return Double(value) / Double(timescale)
    }

    /// This time expressed in `newTimescale` units, rounded half away from zero.
    public func convertScale(_ newTimescale: Scale, method: CMTimeRoundingMethod = .default) -> CMTime {
        guard isNumeric, newTimescale > 0 else { return newTimescale > 0 ? self : .invalid }
        if newTimescale == timescale { return self }
        let (scaled, exact) = Self.rescale(value, from: timescale, to: newTimescale, method: method)
        guard let scaled else { return value > 0 ? .positiveInfinity : .negativeInfinity }
        var result = CMTime(value: scaled, timescale: newTimescale)
        if !exact || hasBeenRounded { result.flags.insert(.hasBeenRounded) }
        return result
    }

    /// `value * to / from`, rounded by `method`; nil on overflow. `exact` is false when rounding happened.
    static func rescale(_ value: Int64, from: Int32, to: Int32, method: CMTimeRoundingMethod) -> (Int64?, exact: Bool) {
        let (product, overflow) = value.multipliedReportingOverflow(by: Int64(to))
        if overflow {
            // Fall back to floating point for huge values; precise enough at that magnitude.
            let scaled = (Double(value) * Double(to) / Double(from)).rounded()
            guard abs(scaled) < Double(Int64.max) else { return (nil, false) }
            return (Int64(scaled), false)
        }
        let divisor = Int64(from)
        let (quotient, remainder) = product.quotientAndRemainder(dividingBy: divisor)
        if remainder == 0 { return (quotient, true) }
        let awayFromZero: Int64 = product < 0 ? -1 : 1
        switch method {
        case .roundTowardZero:
            return (quotient, false)
        case .roundAwayFromZero:
            return (quotient + awayFromZero, false)
        case .roundTowardPositiveInfinity:
            return (product > 0 ? quotient + 1 : quotient, false)
        case .roundTowardNegativeInfinity:
            return (product < 0 ? quotient - 1 : quotient, false)
        case .default, .roundHalfAwayFromZero, .quickTime:
            let twice = abs(remainder) * 2
            return (twice >= divisor ? quotient + awayFromZero : quotient, false)
        }
    }
}

/// Flags of a `CMTime`, as in Core Media.
public struct CMTimeFlags: OptionSet, Sendable, Hashable {
    /// The flags' bits, as in Core Media.
    public let rawValue: UInt32
    /// Flags with these bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// The time is valid.
    public static let valid = CMTimeFlags(rawValue: 1 << 0)
    /// The time was rounded when made or converted.
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)
    /// The time is positive infinity.
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)
    /// The time is negative infinity.
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)
    /// The time's value is unknown.
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)
    /// The flags that give a time its value without a numerator: the infinities and indefinite.
    public static let impliedValueFlagsMask: CMTimeFlags = [.positiveInfinity, .negativeInfinity, .indefinite]
}

/// How a time is rounded when its timescale changes, as in Core Media.
public enum CMTimeRoundingMethod: UInt32, Sendable {
    /// Round to the nearest value, halves away from zero.
    case roundHalfAwayFromZero = 1
    /// Round toward zero (truncate).
    case roundTowardZero = 2
    /// Round away from zero.
    case roundAwayFromZero = 3
    /// QuickTime's rule in Core Media; here rounded as `.roundHalfAwayFromZero`.
    case quickTime = 4
    /// Round toward positive infinity.
    case roundTowardPositiveInfinity = 5
    /// Round toward negative infinity.
    case roundTowardNegativeInfinity = 6
    /// The rounding used when none is given: half away from zero. Ours rounds `.quickTime` the same way.
    public static let `default` = CMTimeRoundingMethod.roundHalfAwayFromZero
}
