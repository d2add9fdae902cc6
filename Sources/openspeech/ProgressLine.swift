import Foundation
import Synchronization

/// Progress on stderr, one stage at a time ("transcribing a.wav", "installing whisper-base (145 MB)"). On a terminal,
/// one line redrawn in place: the stage, a bar, the percentage, the time elapsed and an estimate of the time left,
/// at most ten times a second and every second while nothing moves. Otherwise one plain line as each stage starts
/// (`openspeech: transcribing a.wav`), for logs. Nothing when disabled (`--quiet`).
final class ProgressLine: Sendable {
    private enum Mode { case off, plain, terminal }

    private struct Stage {
        var label: String
        var started = ContinuousClock.now
        var fraction = 0.0
        var lastDraw: ContinuousClock.Instant?
        var shown = false
    }

    private let mode: Mode
    private let columns: Int
    private let stage = Mutex<Stage?>(nil)
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    init(enabled: Bool) {
        mode = !enabled ? .off : isatty(STDERR_FILENO) != 0 ? .terminal : .plain
        var size = winsize()
        columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        guard mode == .terminal else { return }
        ticker.withLock { ticker in
            ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    self?.redrawIfStill()
                }
            }
        }
    }

    deinit { ticker.withLock { $0?.cancel() } }

    /// Shows `fraction` (0 to 1) of the stage `label`; a new label starts a new stage (its time from now).
    func show(_ label: String, _ fraction: Double) {
        guard mode != .off else { return }
        stage.withLock { stage in
            if stage?.label != label {
                stage = Stage(label: label)
                if mode == .plain { FileHandle.standardError.write(Data("openspeech: \(label)\n".utf8)) }
            }
            stage!.fraction = min(max(fraction.isFinite ? fraction : 0, 0), 1)
            guard mode == .terminal else { return }
            if let last = stage!.lastDraw, ContinuousClock.now - last < .milliseconds(100) { return }
            draw(&stage!)
        }
    }

    /// Erases the line on a terminal (before a message, or when the stage is over); the stage goes on.
    func clear() {
        guard mode == .terminal else { return }
        stage.withLock { stage in
            if stage?.shown == true { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            stage?.shown = false
        }
    }

    /// Redraws the shown stage when nothing drew it for a second, so the time elapsed moves.
    private func redrawIfStill() {
        stage.withLock { stage in
            guard var current = stage, current.shown, let last = current.lastDraw,
                  ContinuousClock.now - last >= .seconds(1) else { return }
            draw(&current)
            stage = current
        }
    }

    private func draw(_ stage: inout Stage) {
        let elapsed = ContinuousClock.now - stage.started
        let filled = Int(stage.fraction * 20)
        var status = " [" + String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled)
            + "] \(Int(stage.fraction * 100))% \(Self.clock(elapsed))"
        if stage.fraction >= 0.01, stage.fraction < 1, elapsed >= .seconds(1) {
            status += ", about \(Self.clock(elapsed * ((1 - stage.fraction) / stage.fraction))) left"
        }
        // The label gives way to the status on a narrow terminal: a wrapped line would not be redrawn in place.
        let room = max(columns - 1 - status.count, 8)
        let label = stage.label.count <= room ? stage.label : String(stage.label.prefix(room - 1)) + "…"
        FileHandle.standardError.write(Data("\r\u{1B}[K\(label)\(status)".utf8))
        stage.lastDraw = .now
        stage.shown = true
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ duration: Duration) -> String {
        let seconds = Int(duration.components.seconds)
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}
