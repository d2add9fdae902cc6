import SpeechEngine

/// Final-only transcription of an analyzer's audio, wired to the engine: the timeline's audio (all of it, or the
/// stretches `SpeechSpanSelection` chooses from a detector's regions) goes into one `LongFormStream` of the model
/// family's engine (Whisper's: `LongFormTranscription`), one stretch after the other, and its segments come back with
/// timeline times (`StreamTimeline`).
///
/// The engine decodes a 30 s window only when all its audio has arrived, so results depend on the audio, the model
/// and the options alone, not on buffer sizes or pacing; nothing is dropped at any boundary, and memory stays
/// bounded (the audio kept is the next window's). Owned by one actor (not `Sendable`, like the session it drives).
final class FinalOnlyTranscription {
    private let session: any LongFormDecoder
    private let options: TranscriptionOptions
    private var stream: any LongFormStream
    private var timeline = StreamTimeline()
    /// After `finish(at:)`: the audio received after the end, for the next stream (`resume(prompt:)`).
    private var rest: (samples: [Float], ranges: [Range<Int64>])?
    /// With a detector: its regions, how many have been read, and the choice they make.
    private let regions: SpeechRegionLog?
    private var regionsRead = 0
    /// The regions read that may lie in audio the engine has not decoded yet (timeline samples, in order).
    private var speechRegions: [Range<Int64>] = []
    private var selection: SpeechSpanSelection?
    /// Timeline audio received and not yet chosen or left out (with a detector), from `pendingStart`.
    private var pending: [Float] = []
    private var pendingStart: Int64
    /// Samples given to the engine so far.
    private(set) var samplesTranscribed = 0

    /// A transcription of the audio from timeline sample `start` on.
    /// `prompt`: token ids of the text before (and the context's words).
    init(session: any LongFormDecoder, options: TranscriptionOptions, start: Int64, regions: SpeechRegionLog?,
         prompt: [Int]) {
        self.session = session
        self.options = options
        self.regions = regions
        pendingStart = start
        stream = Self.makeStream(session, options, prompt)
        followBreaks()
        if regions != nil {
            selection = SpeechSpanSelection(start: start, margin: SpeechRegionTracker.samples(SpeechGate.margin),
                                            joiningSilence: SpeechRegionTracker.samples(Self.joiningSilence))
        }
    }

    /// Seconds a segment may extend before its first word and after its last (Whisper's segment times are coarser).
    static let wordSlack = 0.5

    /// Silences between speech regions shorter than this stay in what the engine hears (faster-whisper's default
    /// `min_silence_duration_ms`).
    static let joiningSilence = 2.0

    /// The language of the stream now running (detected on its first window when the options name none).
    var language: String? { stream.language }

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
            read(closed)
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
        followBreaks()
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
        read(closed)
        let chosen = selection.update(closed: closed, frontier: frontier ?? pendingStart, available: end)
        self.selection = selection
        try feed(chosen)
        dropPending(before: selection.decidedThrough)
    }

    private func read(_ closed: [Range<Int64>]) {
        regionsRead += closed.count
        speechRegions += closed
    }

    /// The detector's speech (samples) in stream positions `range`.
    private func speechSamples(in range: Range<Int>) -> Int {
        timeline.timelineRanges(of: range).reduce(0) { total, piece in
            speechRegions.reduce(total) { $0 + max(0, Int(min($1.upperBound, piece.upperBound) - max($1.lowerBound, piece.lowerBound))) }
        }
    }

    private func feed(_ ranges: [Range<Int64>]) throws {
        for range in ranges {
            let lower = Int(range.lowerBound - pendingStart), upper = Int(range.upperBound - pendingStart)
            try feed(pending[lower..<upper], at: range.lowerBound)
        }
    }

    /// Appends timeline audio from `start` to the stream.
    private func feed(_ samples: ArraySlice<Float>, at start: Int64, counted: Bool = true) throws {
        guard !samples.isEmpty else { return }
        try stream.append(Array(samples))
        timeline.append(start..<(start + Int64(samples.count)))
        if counted { samplesTranscribed += samples.count }
    }

    private func dropPending(before position: Int64) {
        let count = Int(min(max(0, position - pendingStart), Int64(pending.count)))
        pending.removeFirst(count)
        pendingStart += Int64(count)
    }

    /// Segments of the stream with timeline times, clamped to the stream's audio. A segment whose words lie in two
    /// stretches of the timeline (a left-out silence between them) becomes one segment per stretch, so no result
    /// spans a silence (windows that join two stretches always have word times); words keep out of the detector's
    /// pauses (`WordsInSpeech`).
    private func mapped(_ segments: [Segment]) -> [Segment] {
        defer {
            timeline.discard(before: stream.decodedThrough)
            let decoded = timeline.timeline(of: stream.decodedThrough, isEnd: false)
            speechRegions.removeFirst(speechRegions.prefix { $0.upperBound <= decoded }.count)
        }
        return segments.flatMap { segment -> [Segment] in
            var segment = segment
            segment.start = timeline.timeline(ofSeconds: segment.start, isEnd: false)
            segment.end = max(timeline.timeline(ofSeconds: segment.end, isEnd: true), segment.start)
            guard let words = segment.words, !words.isEmpty else { return [segment] }
            var stretches: [[Word]] = []
            var lastStretch: Int?
            for word in words {
                // A word belongs to the stretch of its middle, and lies within it.
                let middle = Int(((word.start + word.end) / 2 * 16_000).rounded())
                let stretch = timeline.pieceIndex(of: middle)
                var word = word
                word.start = timeline.timeline(ofSeconds: word.start, inPiece: stretch)
                word.end = max(timeline.timeline(ofSeconds: word.end, inPiece: stretch), word.start)
                if stretch == lastStretch { stretches[stretches.count - 1].append(word) } else { stretches.append([word]) }
                lastStretch = stretch
            }
            // Times out of the detector's pauses (no regions without a detector: unchanged).
            stretches = stretches.map { WordsInSpeech.limit($0, to: speechRegions, rate: 16_000) }
            guard stretches.count > 1 else {
                // The segment covers its words, and not much more (not the audio of another stretch).
                let first = stretches[0][0].start, last = stretches[0].last!.end
                segment.words = stretches[0]
                segment.start = min(max(segment.start, first - Self.wordSlack), first)
                segment.end = max(min(segment.end, last + Self.wordSlack), last)
                return [segment]
            }
            return stretches.map { words in
                var piece = segment
                piece.words = words
                piece.text = words.map(\.word).joined()
                piece.start = words[0].start
                piece.end = words.last!.end
                return piece
            }
        }
    }

    /// Word times in the windows that join two stretches, so that `mapped` puts each word in its own. With a
    /// detector, word times in every window, and the stream reads the detector's speech: a window whose words step
    /// over speech is cut before it or decoded again (`SkippedSpeech`; a segment's timestamps often span a sentence
    /// its text leaves out, its words' times do not).
    private func followBreaks() {
        stream.breaks = { [unowned self] range in timeline.firstBreak(in: range) }
        if regions == nil {
            stream.wordTimestampsWhere = { [unowned self] range in timeline.hasBreak(in: range) }
        } else {
            stream.wordTimestampsWhere = { _ in true }
            stream.speechSamples = { [unowned self] range in speechSamples(in: range) }
        }
    }

    private static func makeStream(_ session: any LongFormDecoder, _ options: TranscriptionOptions,
                                   _ prompt: [Int]) -> any LongFormStream {
        var options = options
        options.initialPromptTokens = prompt
        return session.longFormStream(options: options)
    }
}
