import Foundation

/// A model repository of the Hugging Face Hub at a revision, written `hf:OWNER/NAME[@REVISION]`
/// (`hf:Systran/faster-whisper-base`, `hf:Systran/faster-whisper-base@main`, `...@<40-hex commit>`).
public struct HuggingFaceReference: Sendable, Hashable, CustomStringConvertible {
    /// The prefix that marks a model id as a Hub reference.
    public static let prefix = "hf:"
    /// The revision used when none is given.
    public static let defaultRevision = "main"

    /// The user or organization owning the repository.
    public let owner: String
    /// The repository's name; the default id of the installed model.
    public let name: String
    /// A branch, tag or commit.
    public let revision: String

    /// `OWNER/NAME`.
    public var repository: String { "\(owner)/\(name)" }

    /// `hf:OWNER/NAME`, followed by `@REVISION` unless the revision is `main`.
    public var description: String {
        Self.prefix + repository + (revision == Self.defaultRevision ? "" : "@\(revision)")
    }

    /// A reference to `repository` (`OWNER/NAME`) at `revision`. Throws `ModelAssetError.invalidHubReference`
    /// unless both are spelled as the Hub spells them.
    public init(repository: String, revision: String = HuggingFaceReference.defaultRevision) throws {
        try self.init(repository: repository, revision: revision, as: Self.prefix + repository + "@" + revision)
    }

    /// The checks of `init(repository:revision:)`; errors quote `text`, the reference as the user wrote it.
    private init(repository: String, revision: String, as text: String) throws {
        let parts = repository.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else {
            throw ModelAssetError.invalidHubReference(reference: text, reason: "the repository must be OWNER/NAME")
        }
        for part in parts {
            if let problem = Self.nameProblem(part) {
                throw ModelAssetError.invalidHubReference(reference: text, reason: problem)
            }
        }
        if let problem = Self.revisionProblem(revision) {
            throw ModelAssetError.invalidHubReference(reference: text, reason: problem)
        }
        owner = parts[0]
        name = parts[1]
        self.revision = revision
    }

    /// Parses `hf:OWNER/NAME[@REVISION]`. Throws `ModelAssetError.invalidHubReference` saying what is wrong.
    public init(parsing text: String) throws {
        guard Self.isReference(text) else {
            throw ModelAssetError.invalidHubReference(reference: text, reason: "it does not start with \(Self.prefix)")
        }
        let body = text.dropFirst(Self.prefix.count)
        if let at = body.firstIndex(of: "@") {
            try self.init(repository: String(body[..<at]), revision: String(body[body.index(after: at)...]), as: text)
        } else {
            try self.init(repository: String(body), revision: Self.defaultRevision, as: text)
        }
    }

    /// Whether `modelID` is meant as a Hub reference (starts with `hf:`); catalog ids never contain `:`.
    public static func isReference(_ modelID: String) -> Bool { modelID.hasPrefix(prefix) }

    /// Whether the revision is a full commit id (40 hexadecimal digits) rather than a branch or tag.
    public var isCommit: Bool { Self.isCommitID(revision) }

    /// The revision as one percent-encoded URL path segment (`refs/pr/1` → `refs%2Fpr%2F1`).
    var encodedRevision: String { Self.pathSegment(revision) }

    /// `text` percent-encoded as one URL path segment: everything but unreserved characters is escaped.
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func isCommitID(_ text: String) -> Bool {
        text.utf8.count == 40 && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// Why `part` cannot be an owner or repository name of the Hub: letters, digits, `-`, `_`, `.`, at most 96,
    /// not starting or ending with `-` or `.`, without `--` or `..`.
    private static func nameProblem(_ part: String) -> String? {
        let rule = "letters, digits, '-', '_' and '.', at most 96, not starting or ending with '-' or '.', "
            + "without '--' or '..'"
        guard !part.isEmpty else { return "the owner and the name must not be empty" }
        let allowed = part.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
        }
        guard allowed, part.utf8.count <= 96, !part.contains("--"), !part.contains(".."),
              let first = part.first, let last = part.last, !"-.".contains(first), !"-.".contains(last)
        else { return "'\(printable(part))' is not a Hub name (\(rule))" }
        return nil
    }

    /// Why `revision` cannot name a branch, tag or commit: the rules of git's ref names that keep it one value
    /// in a URL and a plain relative path in the cache (`refs/<revision>`).
    private static func revisionProblem(_ revision: String) -> String? {
        let bad = revision.isEmpty || revision.utf8.count > 256 || revision.hasPrefix("/") || revision.hasSuffix("/")
            || revision.hasSuffix(".") || revision.contains("..") || revision.contains("//") || revision.contains("@{")
            || revision.split(separator: "/").contains { $0.hasPrefix(".") || $0.hasSuffix(".lock") }
            || revision.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || "~^:?*[\\".unicodeScalars.contains($0) }
        return bad ? "'\(printable(revision))' is not a branch, tag or commit name" : nil
    }

    /// `text` with control characters escaped, for messages.
    private static func printable(_ text: String) -> String {
        text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined()
    }
}
