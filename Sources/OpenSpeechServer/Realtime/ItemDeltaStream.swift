import Synchronization

/// Sends one item's `delta` events: the volatile transcription's and then the file transcription's text, through
/// `TranscriptDeltas`, from whichever task has them. Once `endVolatile()` is called (the item was committed), late
/// volatile text is ignored.
final class ItemDeltaStream: Sendable {
    let itemID: String
    private let output: RealtimeOutbox
    private let state = Mutex<(deltas: TranscriptDeltas, volatileOpen: Bool, finalText: String)>((TranscriptDeltas(), true, ""))

    init(itemID: String, output: RealtimeOutbox) {
        self.itemID = itemID
        self.output = output
    }

    /// Words the volatile transcription committed while the item's speech was arriving.
    func volatile(_ increment: String) {
        state.withLock { state in
            guard state.volatileOpen, let delta = state.deltas.volatile(increment) else { return }
            output.yield(RealtimeServerEvent.transcriptionDelta(itemID: itemID, delta: delta).json)
        }
    }

    /// The item was committed: its volatile transcription is over.
    func endVolatile() {
        state.withLock { $0.volatileOpen = false }
    }

    /// One final result of the item's file transcription (its text as the result has it, leading space included).
    func final(_ resultText: String) {
        state.withLock { state in
            state.volatileOpen = false
            state.finalText += resultText
            guard let delta = state.deltas.final(state.finalText) else { return }
            output.yield(RealtimeServerEvent.transcriptionDelta(itemID: itemID, delta: delta).json)
        }
    }
}
