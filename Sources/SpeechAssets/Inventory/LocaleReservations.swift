import Foundation

/// The reserved locales, persisted in `<home>/reservations.json` and changed under a file lock, so every process
/// using the same home sees the same reservations.
struct LocaleReservations: Sendable {
    let file: URL
    let lock: URL

    init(home: URL) {
        file = home.appendingPathComponent("reservations.json")
        lock = home.appendingPathComponent("locks/reservations.lock")
    }

    private struct Stored: Codable { var locales: [String] }

    /// The reserved locales' BCP-47 identifiers, in reservation order.
    func read() -> [String] {
        guard let data = try? Data(contentsOf: file),
              let stored = try? JSONDecoder().decode(Stored.self, from: data) else { return [] }
        return stored.locales
    }

    /// Reads, changes and writes the list atomically with respect to other processes.
    func update<T>(_ change: (inout [String]) throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        return try FileLock.withLock(lock) {
            var locales = read()
            let before = locales
            let result = try change(&locales)
            if locales != before {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted]
                do {
                    try encoder.encode(Stored(locales: locales)).write(to: file, options: .atomic)
                } catch {
                    throw ModelAssetError.fileSystem(path: file.path, reason: error.localizedDescription)
                }
            }
            return result
        }
    }
}
