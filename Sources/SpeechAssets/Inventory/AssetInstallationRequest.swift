import Foundation

/// Downloads and installs the models some modules need, as Apple's `AssetInstallationRequest` does.
///
/// `progress` counts bytes (Apple's counts an unspecified unit); it has no KVO on Linux, so poll it or use
/// `ModelStore.install(_:progress:)` for callbacks. Cancelling `progress` or the calling task stops the download;
/// requests for the same model, in this process or others, share one download.
public final class AssetInstallationRequest: Sendable {
    /// Bytes installed of the total, updated while `downloadAndInstall()` runs.
    public let progress: Progress
    /// The catalog models this request installs.
    public let modelIDs: [String]
    private let store: ModelStore

    init(store: ModelStore, modelIDs: [String]) {
        self.store = store
        self.modelIDs = modelIDs
        let total = modelIDs.compactMap { store.catalog.model($0)?.size }.reduce(0, +)
        progress = Progress(totalUnitCount: max(total, 1))
        progress.kind = .file
        progress.isCancellable = true
    }

    /// Downloads, verifies and installs every model of the request. Returns when all are installed; throws the
    /// first failure (nothing partial is left installed).
    public func downloadAndInstall() async throws {
        let store = self.store
        let progress = self.progress
        let sizes = modelIDs.map { store.catalog.model($0)?.size ?? 0 }
        let task = Task {
            var done: Int64 = 0
            for (id, size) in zip(modelIDs, sizes) {
                let base = done
                try await store.install(id) { completed, _ in
                    progress.completedUnitCount = min(progress.totalUnitCount, base + completed)
                }
                done += size
            }
            progress.completedUnitCount = progress.totalUnitCount
        }
        progress.cancellationHandler = { task.cancel() }
        if progress.isCancelled { task.cancel() }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
