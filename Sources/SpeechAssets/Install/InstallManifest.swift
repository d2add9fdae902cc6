import Foundation

/// The record written into a model folder as the last step before it is renamed into place. A folder without a
/// manifest matching the catalog is not an installed model.
struct InstallManifest: Codable, Sendable, Equatable {
    static let fileName = ".openspeech-install.json"

    var id: String
    var files: [CatalogModel.File]
    var source: String
    var installedAt: Date

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
    func isComplete(in directory: URL, expected: [CatalogModel.File]?) -> Bool {
        if let expected, Set(expected) != Set(files) { return false }
        for file in files {
            guard CatalogModel.File.isValidName(file.name) else { return false }
            let path = directory.appendingPathComponent(file.name).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = (attributes[.size] as? NSNumber)?.int64Value, size == file.size
            else { return false }
        }
        return true
    }
}
