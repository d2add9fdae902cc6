import SpeechEngine

/// Final-only transcription of an analyzer's audio, wired to the engine: the timeline's audio (all of it, or the
/// stretches `SpeechSpanSelection` chooses from a detector's regions) goes into one `LongFormTranscription`, one
/// stretch after the other, and its segments come back with timeline times (`StreamTimeline`).
///
/// The engine decodes a 30 s window only when all its audio has arrived, so results depend on the audio, the model
/// and the options alone, not on buffer sizes or pacing; nothing is dropped at any boundary, and memory stays
/// bounded (the audio kept is the next window's). Owned by one actor (not `Sendable`, like the session it drives).
final class FinalOnlyTranscription {
    private let session: WhisperSession
    private let options: TranscriptionOptions
    private var stream: LongFormTranscription
    private var timeline = StreamTimeline()
    /// After `finish(at:)`: the audio received after the end, for the next stream (`resume(prompt:)`).
    private var rest: (samples: [Float], ranges: [Range<Int64>])?
    /// With a detector: its regions, how many have been read, and the choice they make.
    private let regions: SpeechRegionLog?
    private var regionsRead = 0
    private var selection: SpeechSpanSelection?
    /// Timeline audio received and not yet chosen or left out (with a detector), from `pendingStart`.
    private var pending: [Float] = []
    private var pendingStart: Int64
    /// Samples given to the engine so far.
    private(set) var samplesTranscribed = 0

    /// A transcription of the audio from timeline sample `start` on.
    /// `prompt`: token ids of the text before (and the context's words).
    init(session: WhisperSession, options: TranscriptionOptions, start: Int64, regions: SpeechRegionLog?,
         prompt: [Int]) {
        self.session = session
        self.options = options
        self.regions = regions
        pendingStart = start
        stream = Self.makeStream(session, options, prompt)
        if regions != nil {
            selection = SpeechSpanSelection(start: start, margin: SpeechRegionTracker.samples(SpeechGate.margin),
                                            joiningSilence: SpeechRegionTracker.samples(Self.joiningSilence))
        }
    }

    /// Silences between speech regions shorter than this stay in what the engine hears (faster-whisper's default
    /// `min_silence_duration_ms`).
    static let joiningSilence = 2.0
    /// Samples per log-mel frame: windows start and end on frames.
    static let frame = 160

    /// The timeline position after the last audio received.
    var end: Int64 { pendingStart + Int64(pending.count) }

    /// Audio from timeline sample `end`; returns the segments now final.
    func append(_ samples: [Float]) throws -> [Segment] {
        precondition(rest == nil, "FinalOnlyTranscription: resume(prompt:) must follow finish(at:)")
        if selection == nil {
            try feed(samples[...], at: end)
            pendingStart += Int64(samples.count)
        } else {
            pending += samples
            try choose()
        }
        return try mapped(stream.decodeAvailable())
    }

    /// Ends the audio at timeline sample `position` (the end of what was received if later): returns the segments
    /// through it. Audio received after it waits for the next stream: call `resume(prompt:)` next.
    func finish(at position: Int64) throws -> [Segment] {
        let position = min(position, end)
        if var selection {
            let (closed, _) = regions?.closedRegions(from: regionsRead) ?? ([], nil)
            regionsRead += closed.count
            // Regions closed through the position are chosen; the span being built ends here.
            try feed(selection.update(closed: closed, frontier: position, available: position))
            try feed(selection.finish(end: position))
            self.selection = selection
            dropPending(before: position)
        }
        let cut = timeline.streamPosition(ofTimeline: position)
        let ranges = timeline.timelineRanges(from: cut)
        rest = (stream.finish(at: cut), ranges)
        return try mapped(stream.decodeAvailable())
    }

    /// Starts the stream after `finish(at:)`, with `prompt` (the text so far), fed the audio received after the end.
    func resume(prompt: [Int]) throws {
        guard let rest else { return }
        self.rest = nil
        stream = Self.makeStream(session, options, prompt)
        timeline = StreamTimeline()
        var offset = 0
        for range in rest.ranges {
            try feed(rest.samples[offset..<(offset + range.count)], at: range.lowerBound, counted: false)
            offset += range.count
        }
    }

    /// Drops the audio before timeline sample `position` that the engine has not transcribed yet (best effort: a
    /// window already decoded stays). Call `resume(prompt:)` next.
    func cancel(before position: Int64) {
        if var selection {
            dropPending(before: position)
            _ = selection.finish(end: max(position, selection.decidedThrough))
            self.selection = selection
        }
        let cut = max(timeline.streamPosition(ofTimeline: position), stream.decodedThrough)
        let ranges = timeline.timelineRanges(from: stream.decodedThrough)
        let samples = stream.finish(at: stream.decodedThrough)
        // Keep what lies after the position.
        var kept: (samples: [Float], ranges: [Range<Int64>]) = ([], [])
        var offset = 0, streamPosition = stream.decodedThrough
        for range in ranges {
            let skip = max(0, min(range.count, cut - streamPosition))
            if skip < range.count {
                kept.samples += samples[(offset + skip)..<(offset + range.count)]
                kept.ranges.append((range.lowerBound + Int64(skip))..<range.upperBound)
            }
            offset += range.count
            streamPosition += range.count
        }
        rest = kept
    }

    /// Reads the detector's newly closed regions and feeds the audio they choose.
    private func choose() throws {
        guard var selection else { return }
        let (closed, frontier) = regions?.closedRegions(from: regionsRead) ?? ([], nil)
        regionsRead += closed.count
        let chosen = selection.update(closed: closed, frontier: frontier ?? pendingStart, available: end)
        self.selection = selection
        try feed(chosen)
        dropPending(before: selection.decidedThrough)
    }

    private func feed(_ ranges: [Range<Int64>]) throws {
        for range in ranges {
            let lower = Int(range.lowerBound - pendingStart), upper = Int(range.upperBound - pendingStart)
            try feed(pending[lower..<upper], at: range.lowerBound)
        }
    }

    /// Appends timeline audio from `start` to the stream; a stretch not contiguous with the last begins a new one.
    private func feed(_ samples: ArraySlice<Float>, at start: Int64, counted: Bool = true) throws {
        guard !samples.isEmpty else { return }
        if let last = timeline.pieces.last, last.timeline + Int64(last.count) != start {
            // The stretch before ends on a whole 10 ms frame (silence added), so that windows, which start and end
            // on frames, and the times in them fall on one side of the boundary or the other, never across it.
            let pad = (Self.frame - timeline.length % Self.frame) % Self.frame
            if pad > 0 {
                try stream.append([Float](repeating: 0, count: pad))
                timeline.append((last.timeline + Int64(last.count))..<(last.timeline + Int64(last.count + pad)))
            }
            stream.markBoundary()
        }
        try stream.append(Array(samples))
        timeline.append(start..<(start + Int64(samples.count)))
        if counted { samplesTranscribed += samples.count }
    }

    private func dropPending(before position: Int64) {
        let count = Int(min(max(0, position - pendingStart), Int64(pending.count)))
        pending.removeFirst(count)
        pendingStart += Int64(count)
    }

    /// Segments of the stream with timeline times, clamped to the stream's audio.
    private func mapped(_ segments: [Segment]) -> [Segment] {
        defer { timeline.discard(before: stream.decodedThrough) }
        return segments.map { segment in
            var segment = segment
            segment.start = timeline.timeline(ofSeconds: segment.start, isEnd: false)
            segment.end = max(timeline.timeline(ofSeconds: segment.end, isEnd: true), segment.start)
            segment.words = segment.words?.map { word in
                var word = word
                word.start = timeline.timeline(ofSeconds: word.start, isEnd: false)
                word.end = max(timeline.timeline(ofSeconds: word.end, isEnd: true), word.start)
                return word
            }
            return segment
        }
    }

    private static func makeStream(_ session: WhisperSession, _ options: TranscriptionOptions,
                                   _ prompt: [Int]) -> LongFormTranscription {
        var options = options
        options.initialPromptTokens = prompt
        return LongFormTranscription(session: session, options: options)
    }
}
