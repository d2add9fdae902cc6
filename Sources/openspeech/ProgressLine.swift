import Foundation
import Synchronization

/// A one-line progress indicator on stderr ("label [#####-----] 50%"), drawn only when stderr is a terminal,
/// at most ten times a second.
final class ProgressLine: Sendable {
    private let enabled: Bool
    private let state = Mutex<(lastDraw: Date, shown: Bool)>((.distantPast, false))

    init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) != 0
    }

    func show(_ label: String, _ fraction: Double) {
        guard enabled else { return }
        state.withLock { state in
            let now = Date()
            guard now.timeIntervalSince(state.lastDraw) >= 0.1 else { return }
            state.lastDraw = now
            state.shown = true
            let clamped = min(max(fraction.isFinite ? fraction : 0, 0), 1)
            let filled = Int(clamped * 30)
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 30 - filled)
            FileHandle.standardError.write(Data("\r\u{1B}[K\(label) [\(bar)] \(Int(clamped * 100))%".utf8))
        }
    }

    func clear() {
        guard enabled else { return }
        state.withLock { state in
            if state.shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            state.shown = false
        }
    }
}
