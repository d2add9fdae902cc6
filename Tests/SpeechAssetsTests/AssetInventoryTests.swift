import Foundation
import Testing
import TestSupport
@testable import SpeechAssets

/// Stands in for a transcriber or detector module.
struct FakeModule: AssetDependentModule {
    var assetLocales: [Locale] = []
    var assetModelIDs: [String] = []
    var assetNeeds: CatalogModel.Capabilities = []
}

@Suite struct AssetInventoryTests {
    let root: URL
    let fixture = TestModelFixture(id: "test-en", modelBytes: 256 * 1024)
    let vad = TestModelFixture(id: "test-vad", modelBytes: 64 * 1024)

    init() throws { root = try makeTemporaryDirectory("openspeech-inventory") }

    /// A library whose catalog has an English model and a detector model, both installable from folders.
    func library(maximum: Int = 5) throws -> AssetLibrary {
        try fixture.write(to: root.appendingPathComponent("src-en"))
        try vad.write(to: root.appendingPathComponent("src-vad"))
        let catalog = ModelCatalog(models: [
            CatalogModel(id: fixture.id, family: "whisper", languages: ["en"], files: fixture.catalogFiles(),
                         sources: [.directory(path: root.appendingPathComponent("src-en").path)]),
            CatalogModel(id: vad.id, family: "silero-vad", languages: [], files: vad.catalogFiles(),
                         sources: [.directory(path: root.appendingPathComponent("src-vad").path)]),
        ])
        return AssetLibrary(store: ModelStore(home: root.appendingPathComponent("home"), catalog: catalog),
                            maximumReservedLocales: maximum)
    }

    @Test func statusIsTheLowestOfTheModules() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library()
        let english = FakeModule(assetLocales: [Locale(identifier: "en-US")])
        let detector = FakeModule(assetModelIDs: [vad.id])
        let klingon = FakeModule(assetLocales: [Locale(identifier: "tlh")])
        #expect(await library.status(forModules: [english]) == .supported)
        #expect(await library.status(forModules: [english, klingon]) == .unsupported)
        #expect(await library.status(forModules: []) == .installed)
        try await library.store.install(fixture.id)
        #expect(await library.status(forModules: [english]) == .installed)
        #expect(await library.status(forModules: [english, detector]) == .supported)
        try await library.store.install(vad.id)
        #expect(await library.status(forModules: [english, detector]) == .installed)
        #expect(AssetInventory.Status.unsupported < .supported && AssetInventory.Status.downloading < .installed)
    }

    @Test("an English module needs Moonshine, or whisper-tiny.en when it asks for an initial prompt or alternatives")
    func englishAssetsServeTheModule() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = AssetLibrary(store: ModelStore(home: root, catalog: .builtIn))
        let english = [Locale(identifier: "en-US")]
        #expect(library.requiredModelIDs(for: FakeModule(assetLocales: english)) == ["moonshine-base-en"])
        #expect(library.requiredModelIDs(for: FakeModule(assetLocales: english, assetNeeds: .alternatives))
                == ["whisper-tiny.en"])
        #expect(library.requiredModelIDs(for: FakeModule(assetLocales: [Locale(identifier: "fr-FR")], assetNeeds: .all))
                == ["whisper-base"])
    }

    @Test func statusIsDownloadingWhileAnInstallRuns() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let slow = TestModelFixture(id: "slow-en", modelBytes: 1024 * 1024)
        // The download holds still after its first chunk: the install is surely running when status is asked.
        let server = try LoopbackHTTPServer(
            files: slow.served, behaviour: .init(bytesPer10ms: 16 * 1024, stallAfterTotalBytes: 16 * 1024))
        defer { server.stop() }
        let library = AssetLibrary(store: ModelStore(home: root, catalog: slow.catalog(server: server)))
        let module = FakeModule(assetLocales: [Locale(identifier: "en-GB")])
        let install = Task { try await library.store.install(slow.id) }
        while server.bodyBytesSent == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(await library.status(forModules: [module]) == .downloading)
        // Another process sees it too: the model's lock is held.
        #expect(FileLock.isHeld(try library.store.lockURL(for: slow.id)))
        install.cancel()
        _ = await install.result
        #expect(await library.status(forModules: [module]) == .supported)
    }

    /// An install that returned is over for every status: the coordinator forgets it before its caller resumes (it
    /// did so in a task of its own, and a status asked right after could still say `.downloading`).
    @Test func installThatReturnedIsNotRunning() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library()
        for _ in 0..<20 {
            try await library.store.install(fixture.id)
            #expect(await !library.store.isInstalling(fixture.id))
            #expect(try await library.store.remove(fixture.id))
        }
    }

    @Test func installationRequestReservesInstallsAndThenIsNil() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library()
        let modules = [FakeModule(assetLocales: [Locale(identifier: "en-US")]), FakeModule(assetModelIDs: [vad.id])]
        let request = try #require(try library.assetInstallationRequest(supporting: modules))
        #expect(Set(request.modelIDs) == [fixture.id, vad.id])
        #expect(library.reservedLocales.map { $0.identifier(.bcp47) } == ["en-US"])
        #expect(request.progress.totalUnitCount == fixture.size + vad.size)
        try await request.downloadAndInstall()
        #expect(request.progress.completedUnitCount == request.progress.totalUnitCount)
        #expect(await library.status(forModules: modules) == .installed)
        #expect(try library.assetInstallationRequest(supporting: modules) == nil)
        #expect(library.installedLocales.contains { $0.identifier(.bcp47) == "en-US" })
    }

    @Test func unsupportedModulesCannotGetARequest() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library()
        #expect {
            try library.assetInstallationRequest(supporting: [FakeModule(assetLocales: [Locale(identifier: "fr-FR")])])
        } throws: { ($0 as? SFSpeechError)?.code == .cannotAllocateUnsupportedLocale }
        #expect(library.reservedLocales.isEmpty)
    }

    @Test func reservationSemantics() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library(maximum: 2)
        #expect(try library.reserve(locale: Locale(identifier: "en-US")) == true)
        #expect(try library.reserve(locale: Locale(identifier: "en-US")) == false)
        #expect(try library.reserve(locale: Locale(identifier: "en-GB")) == true)
        #expect {
            try library.reserve(locale: Locale(identifier: "en-AU"))
        } throws: { error in
            guard let error = error as? SFSpeechError else { return false }
            return error.code == .tooManyAssetLocalesAllocated && error.message.contains("release")
        }
        #expect {
            try library.reserve(locale: Locale(identifier: "tlh"))
        } throws: { ($0 as? SFSpeechError)?.code == .cannotAllocateUnsupportedLocale }
        #expect(library.release(reservedLocale: Locale(identifier: "en-US")) == true)
        #expect(library.release(reservedLocale: Locale(identifier: "en-US")) == false)
        #expect(try library.reserve(locale: Locale(identifier: "en-AU")) == true)
        // Persisted: a fresh library on the same home sees the same list.
        let again = AssetLibrary(store: library.store, maximumReservedLocales: 2)
        #expect(again.reservedLocales.map { $0.identifier(.bcp47) } == ["en-GB", "en-AU"])
    }

    @Test func equivalentLocalePrefersReservedThenInstalled() throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library()
        #expect(library.supportedLocale(equivalentTo: Locale(identifier: "en-CA"))?.identifier(.bcp47) == "en-CA")
        #expect(library.supportedLocale(equivalentTo: Locale(identifier: "en-AQ"))?.identifier(.bcp47) == "en-US")
        try library.reserve(locale: Locale(identifier: "en-GB"))
        #expect(library.supportedLocale(equivalentTo: Locale(identifier: "en-AQ"))?.identifier(.bcp47) == "en-GB")
        #expect(library.supportedLocale(equivalentTo: Locale(identifier: "de-DE")) == nil)
    }

    /// Apple's static API, including the early names seed 002 uses.
    @Test func staticAPIAndEarlyNames() async throws {
        defer { try? FileManager.default.removeItem(at: root) }
        let library = try library(maximum: 3)
        try await AssetInventory.$current.withValue(library) {
            #expect(AssetInventory.maximumReservedLocales == 3)
            #expect(AssetInventory.maximumAllocatedLocales == 3)
            #expect(try await AssetInventory.reserve(locale: Locale(identifier: "en-US")))
            #expect(try await AssetInventory.allocate(locale: Locale(identifier: "en-GB")))
            #expect(await AssetInventory.allocatedLocales.count == 2)
            // Seed 002's loop, verbatim.
            let allocated = await AssetInventory.allocatedLocales
            for locale in allocated {
                await AssetInventory.deallocate(locale: locale)
            }
            #expect(await AssetInventory.reservedLocales.isEmpty)
            let module = FakeModule(assetLocales: [Locale(identifier: "en-US")])
            if let request = try await AssetInventory.assetInstallationRequest(supporting: [module]) {
                try await request.downloadAndInstall()
            }
            #expect(await AssetInventory.status(forModules: [module]) == .installed)
        }
    }
}
