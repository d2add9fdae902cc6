import Foundation
import OpenSpeech

/// What a live `SpeakerDetector` has labelled so far, for giving transcriber results their speakers as they are shown:
/// a volatile result takes the labels known when it comes; a final one waits until the detector has labelled its
/// whole range (about a second after it is heard, or the end of the input), so finals are labelled the same way
/// whatever the pacing.
actor LiveSpeakers {
    /// Consecutive stretches of one speaker merged.
    private(set) var turns: [SpeakerTurn] = []
    /// Seconds of the timeline the detector has labelled (speech or silence).
    private var labelledThrough = 0.0
    private var ended = false
    private var waiting: [(through: Double, continuation: CheckedContinuation<Void, Never>)] = []

    /// Reads the detector's results until they end.
    func follow(_ detector: SpeakerDetector) async throws {
        defer { end() }
        for try await result in detector.results { record(result) }
    }

    private func record(_ result: SpeakerDetector.Result) {
        let start = result.range.start.seconds, end = result.range.end.seconds
        if let speaker = result.speaker {
            if let last = turns.last, last.speaker == speaker, start - last.end < 1e-6 {
                turns[turns.count - 1].end = end
            } else {
                turns.append(SpeakerTurn(start: start, end: end, speaker: speaker))
            }
        }
        labelledThrough = max(labelledThrough, end)
        resume()
    }

    private func end() {
        ended = true
        resume()
    }

    private func resume() {
        let ready = waiting.filter { ended || $0.through <= labelledThrough }
        waiting.removeAll { ended || $0.through <= labelledThrough }
        for waiter in ready { waiter.continuation.resume() }
    }

    /// Returns once the timeline is labelled through `seconds` (or the detector has ended).
    func waitUntilLabelled(through seconds: Double) async {
        guard !ended, seconds > labelledThrough else { return }
        await withCheckedContinuation { waiting.append((seconds, $0)) }
    }

    /// `result` as transcript segments with speakers: one per run of words of one speaker (`attributingSpeakers`);
    /// `language` (a Whisper code) decides how words are joined.
    func segments(of result: SpeechTranscriber.Result, language: String) async -> [Transcript.Segment] {
        if result.isFinal { await waitUntilLabelled(through: result.range.end.seconds) }
        let segment = Transcript.Segment(result)
        var transcript = Transcript(results: [], language: segment.language ?? language, duration: segment.end)
        transcript.segments = [segment]
        return transcript.attributingSpeakers(turns).segments
    }
}
