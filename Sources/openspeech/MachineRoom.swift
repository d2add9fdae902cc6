import Foundation
import SpeechAssets

/// Whether this machine has room for a model: free disk where models install, and the memory a transcription loads
/// it into (at most twice the download: float16 weights run as float32; int8 takes half the download).
struct MachineRoom {
    /// Bytes free on the volume of the models' home (nil: unknown).
    let freeDisk: Int64?
    let memory: UInt64

    init(home: URL) {
        // The home may not exist yet: the closest folder that does.
        var folder = home.standardizedFileURL
        while !FileManager.default.fileExists(atPath: folder.path), folder.pathComponents.count > 1 {
            folder.deleteLastPathComponent()
        }
        freeDisk = (try? folder.resourceValues(forKeys: [.volumeAvailableCapacityKey]))?.volumeAvailableCapacity.map(Int64.init)
        memory = ProcessInfo.processInfo.physicalMemory
    }

    /// Why `model` cannot be installed and run here, or nil.
    func problem(installing model: CatalogModel) -> String? {
        if let freeDisk, model.size > freeDisk {
            return "too large here: \(formatBytes(model.size)) to download, \(formatBytes(freeDisk)) free"
        }
        if memory > 0, UInt64(max(model.size, 0)) * 2 > memory {
            return "too large here: needs up to \(formatBytes(model.size * 2)) of memory, \(formatBytes(Int64(memory))) installed"
        }
        return nil
    }
}
