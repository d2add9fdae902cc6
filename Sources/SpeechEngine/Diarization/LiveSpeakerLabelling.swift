/// Speakers labelled as audio arrives (live diarization): scores the audio for speech, embeds each complete speech
/// window of the grid (`LiveSpeakerWindows`) and labels it with `OnlineSpeakerClustering`, returning the stretches
/// labelled, in time order, tiling the timeline (a speaker, or none for silence). The grid starts at the first sample
/// received and again after skipped audio, so the labels are a function of the audio, not of buffer sizes or pacing.
///
/// Owned by one task at a time (the voice activity detector it runs is stateful): `SpeakerDetector`'s processor and
/// a Realtime session each own one.
package final class LiveSpeakerLabelling {
    /// A stretch of the timeline (16 kHz samples) and its speaker, numbered from 0 by first appearance; nil: silence.
    package struct Stretch: Sendable, Equatable {
        package var range: Range<Int64>
        package var speaker: Int?
    }

    private let embedder: SpeakerEmbedder
    private let detector: any VoiceActivityDetector
    private let threads: Int
    private var clustering: OnlineSpeakerClustering
    /// The grid of the audio since the first sample or the last skip; nil before any audio.
    private var windows: LiveSpeakerWindows?
    /// The next window of the grid to label.
    private var next = 0
    /// Audio from timeline sample `bufferStart` on: from the next window's start to the end received.
    private var buffer: [Float] = []
    private var bufferStart: Int64 = 0
    /// The detector's speech probabilities of the grid's chunks from `firstChunk` on.
    private var probabilities: [Float] = []
    private var firstChunk = 0
    /// Windows given to the clustering so far (its window numbers), and the stretch of each not yet labelled.
    private var serial = 0
    private var pending: [Int: Range<Int64>] = [:]

    package init(embedder: SpeakerEmbedder, detector: any VoiceActivityDetector, maxSpeakers: Int? = nil, threads: Int = 1) {
        self.embedder = embedder
        self.detector = detector
        self.threads = threads
        clustering = OnlineSpeakerClustering(maxSpeakers: maxSpeakers)
    }

    /// The end of the audio received (exclusive).
    package var received: Int64 { bufferStart + Int64(buffer.count) }

    /// Adds audio starting at timeline sample `start` (after a gap, the grid restarts there); returns the stretches
    /// this labels.
    package func append(_ samples: [Float], at start: Int64) -> [Stretch] {
        var stretches: [Stretch] = []
        if windows == nil || start > received {
            // The first audio, or audio after a skip: the old grid's tail is labelled, and a new grid starts.
            stretches = finish()
            windows = LiveSpeakerWindows(origin: start)
            next = 0
            buffer = []
            bufferStart = start
            probabilities = []
            firstChunk = 0
            detector.reset()
        }
        // Audio that overlaps what was received is ignored up to the end received.
        let skip = Int(max(0, received - start))
        guard skip < samples.count else { return stretches }
        let fresh = samples[skip...]
        buffer += fresh
        fresh.withUnsafeBufferPointer { detector.process($0, appendingTo: &probabilities) }
        return stretches + labelCompleteWindows()
    }

    /// At the end of the audio: labels the audio after the grid's last complete window, through the end received, by
    /// what there is of the next window (speech when it is at least half a window and mostly speech), and the window
    /// held back.
    package func finish() -> [Stretch] {
        guard let windows else { return [] }
        var stretches: [Stretch] = []
        let from = windows.labelled(by: next).lowerBound
        if from < received {
            let length = Int(received - windows.start(of: next))
            stretches = labelWindow(next, length: length >= LiveSpeakerWindows.length / 2 ? length : 0,
                                    stretch: from..<received)
            next += 1
        }
        return stretches + labelled(clustering.flush())
    }

    /// Labels the windows the audio received completes, dropping the audio and scores before the next window.
    private func labelCompleteWindows() -> [Stretch] {
        guard let windows else { return [] }
        var stretches: [Stretch] = []
        let complete = windows.completeCount(through: received)
        while next < complete {
            stretches += labelWindow(next, length: LiveSpeakerWindows.length, stretch: windows.labelled(by: next))
            next += 1
        }
        let keepFrom = windows.start(of: next)
        if keepFrom > bufferStart {
            buffer.removeFirst(Int(min(keepFrom - bufferStart, Int64(buffer.count))))
            bufferStart = keepFrom
        }
        let chunk = Int((keepFrom - windows.origin) / Int64(VoiceActivityDetection.chunkLength))
        if chunk > firstChunk {
            probabilities.removeFirst(min(probabilities.count, chunk - firstChunk))
            firstChunk = chunk
        }
        return stretches
    }

    /// Labels window `index` of the grid from its first `length` samples: its speaker when it is speech, else no one.
    private func labelWindow(_ index: Int, length: Int, stretch: Range<Int64>) -> [Stretch] {
        guard let windows else { return [] }
        guard length > 0, windows.isSpeech(index, probabilities: probabilities, firstChunk: firstChunk, length: length) else {
            return labelled(clustering.flush()) + [Stretch(range: stretch, speaker: nil)]
        }
        let offset = Int(windows.start(of: index) - bufferStart)
        pending[serial] = stretch
        let embedding = embedder.embeddings(samples: buffer, ranges: [offset..<(offset + length)], threads: threads)
        let labels = clustering.add(embedding, window: serial)
        serial += 1
        return labelled(labels)
    }

    private func labelled(_ labels: [OnlineSpeakerClustering.Label]) -> [Stretch] {
        labels.compactMap { label in pending.removeValue(forKey: label.window).map { Stretch(range: $0, speaker: label.speaker) } }
    }
}
