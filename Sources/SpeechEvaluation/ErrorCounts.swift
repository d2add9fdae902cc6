/// Edit counts of a transcript against its reference, summed over clips for a corpus-level rate.
public struct ErrorCounts: Sendable, Codable, Equatable {
    public var substitutions = 0
    public var deletions = 0
    public var insertions = 0
    /// Words (or characters) in the reference.
    public var referenceLength = 0

    public init(substitutions: Int = 0, deletions: Int = 0, insertions: Int = 0, referenceLength: Int = 0) {
        self.substitutions = substitutions
        self.deletions = deletions
        self.insertions = insertions
        self.referenceLength = referenceLength
    }

    public var errors: Int { substitutions + deletions + insertions }

    /// Errors per reference unit (0 for an empty reference with an empty transcript, 1 per inserted
    /// unit when the reference is empty).
    public var rate: Double {
        referenceLength > 0 ? Double(errors) / Double(referenceLength) : (errors > 0 ? Double(errors) : 0)
    }

    public static func + (lhs: ErrorCounts, rhs: ErrorCounts) -> ErrorCounts {
        ErrorCounts(substitutions: lhs.substitutions + rhs.substitutions, deletions: lhs.deletions + rhs.deletions,
                    insertions: lhs.insertions + rhs.insertions, referenceLength: lhs.referenceLength + rhs.referenceLength)
    }

    public static func += (lhs: inout ErrorCounts, rhs: ErrorCounts) { lhs = lhs + rhs }
}
