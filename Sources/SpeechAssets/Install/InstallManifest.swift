import Foundation

/// The record written into a model folder as the last step before it is renamed into place. A folder without a
/// manifest matching the catalog is not an installed model.
struct InstallManifest: Codable, Sendable, Equatable {
    static let fileName = ".openspeech-install.json"

    var id: String
    var files: [CatalogModel.File]
    /// The source's `summary`, for people.
    var source: String
    var installedAt: Date
    /// The source exactly as installed, where it says more than the catalog's (a Hub revision resolved to its
    /// commit); nil in manifests written before it existed.
    var origin: ModelSource? = nil

    static func read(from directory: URL) -> InstallManifest? {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent(fileName)) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(InstallManifest.self, from: data)
    }

    func write(to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: directory.appendingPathComponent(Self.fileName), options: .atomic)
    }

    /// Whether the folder holds every file the manifest lists, at its size, and the manifest matches `expected`.
    /// A manifest naming a file that is not a plain file name is not complete: nothing outside the folder is looked at.
    /// A file may be a link to a regular file (a model used in place from the Hugging Face cache): the size is the
    /// target's; a dangling link, or one to anything but a regular file, is not complete.
    func isComplete(in directory: URL, expected: [CatalogModel.File]?) -> Bool {
        if let expected, Set(expected) != Set(files) { return false }
        for file in files {
            guard CatalogModel.File.isValidName(file.name),
                  RegularFile.size(of: directory.appendingPathComponent(file.name)) == file.size
            else { return false }
        }
        return true
    }
}
