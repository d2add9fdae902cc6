import Foundation

/// A one-line progress bar on stderr, redrawn at most ten times a second.
/// `@unchecked Sendable` is safe: all state is read and written under `lock`.
final class ModelsProgressBar: @unchecked Sendable {
    private let label: String
    private let lock = NSLock()
    private var lastDraw = Date.distantPast
    private var lastFraction = -1.0

    init(label: String) {
        self.label = label
    }

    func update(_ completed: Int64, _ total: Int64) {
        lock.lock()
        defer { lock.unlock() }
        let fraction = total > 0 ? min(1, Double(completed) / Double(total)) : 0
        let now = Date()
        guard fraction >= 1 || now.timeIntervalSince(lastDraw) >= 0.1, fraction != lastFraction else { return }
        lastDraw = now
        lastFraction = fraction
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let text = "\r\(label) [\(bar)] \(Int(fraction * 100))% \(formatBytes(completed)) / \(formatBytes(total))"
        FileHandle.standardError.write(Data(text.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
