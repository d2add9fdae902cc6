import Foundation
import SpeechAssets
import SpeechAudio

/// An analysis session: audio in, modules' results out, as Apple's `SpeechAnalyzer`.
///
/// One input (sequence or file) is analyzed at a time; its end does not end the session, so another can
/// follow on the same timeline, which never resets. Buffers must already be in a module's format
/// (`bestAvailableAudioFormat(compatibleWith:)`: 16 kHz mono Float32 or Int16); another format is an
/// `SFSpeechError` `.unexpectedAudioFormat`, never silence. Files are converted automatically. An error ends the
/// session: every waiting method and every module's results throw it. After the session finishes, results end
/// and further input is refused.
///
/// The analyzer's own tasks (the input of `start`, of `init(inputSequence:...)` and `init(inputAudioFile:...)`,
/// and `cancelAndFinishNow()`'s) run at `Options.priority`, modules' work included; methods awaited by the caller
/// (`analyzeSequence`, `finalize`...) run in the caller's task at its priority, as Apple advises calling them.
///
/// Differs from Apple's: `cancelAndFinishNow()` is synchronous and not isolated (the seeds call it without
/// `await`); it takes effect at once for input and ends results shortly after.
public final actor SpeechAnalyzer {
    /// The formats every module of this package takes: 16 kHz mono Float32 (preferred) or Int16.
    static let speechFormats: [AVAudioFormat] = [
        AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1, interleaved: false)!,
        AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 16_000, channels: 1, interleaved: false)!,
    ]
    static let rate: Int32 = 16_000

    /// The modules the analyzer feeds, in order; change them with `setModules(_:)`.
    public private(set) var modules: [any SpeechModule]
    /// The context given to the modules; change it with `setContext(_:)`.
    public private(set) var context: AnalysisContext
    private let options: Options
    private var prepared: Set<ObjectIdentifier> = []
    /// The timeline position just after the last audio received, in 16 kHz samples.
    private var nextSample: Int64 = 0
    private var analyzingInput = false
    private var inputTask: Task<Void, Never>?
    private var finished = false
    private var failure: (any Error)?
    private var waiters: [(target: Int64?, continuation: CheckedContinuation<Void, any Error>)] = []
    /// The audio whose results may still change: from the last finalized time to the end of the audio received;
    /// nil before any audio.
    public private(set) var volatileRange: CMTimeRange?
    private var volatileRangeChanged: ((CMTimeRange, Bool, Bool) -> Void)?

    /// A session with the given modules; analysis starts with `start` or `analyzeSequence`.
    public init(modules: [any SpeechModule], options: Options? = nil) {
        self.modules = modules
        self.options = options ?? .default
        self.context = AnalysisContext()
    }

    /// A session that starts analyzing `inputSequence` at once.
    public init<InputSequence: AsyncSequence & Sendable>(
        inputSequence: InputSequence, modules: [any SpeechModule], options: Options? = nil,
        analysisContext: AnalysisContext = AnalysisContext(),
        volatileRangeChangedHandler: sending ((CMTimeRange, Bool, Bool) -> Void)? = nil
    ) where InputSequence.Element == AnalyzerInput {
        self.modules = modules
        self.options = options ?? .default
        self.context = analysisContext
        self.volatileRangeChanged = volatileRangeChangedHandler
        self.analyzingInput = true
        Task(priority: self.options.priority) { await self.adoptInput(inputSequence) }
    }

    /// Runs the initializer's input sequence in a task the analyzer can cancel.
    private func adoptInput<InputSequence: AsyncSequence & Sendable>(_ inputSequence: InputSequence)
    where InputSequence.Element == AnalyzerInput {
        inputTask = Task(priority: options.priority) { await self.runInput { try await self.consume(inputSequence) } }
    }

    /// A session that starts analyzing `inputAudioFile` at once; with `finishAfterFile`, it finishes (finalizing
    /// everything) when the file ends.
    public init(inputAudioFile: AVAudioFile, modules: [any SpeechModule], options: Options? = nil,
                analysisContext: AnalysisContext = AnalysisContext(), finishAfterFile: Bool = false,
                volatileRangeChangedHandler: sending ((CMTimeRange, Bool, Bool) -> Void)? = nil) async throws {
        self.init(modules: modules, options: options)
        self.context = analysisContext
        self.volatileRangeChanged = volatileRangeChangedHandler
        try await start(inputAudioFile: inputAudioFile, finishAfterFile: finishAfterFile)
    }

    // MARK: Modules and context

    /// Replaces the modules mid-session: new ones are prepared, removed ones' results end.
    public func setModules(_ newModules: [any SpeechModule]) async throws {
        try checkOpen()
        let kept = Set(newModules.map { ObjectIdentifier($0) })
        for module in modules where !kept.contains(ObjectIdentifier(module)) {
            await Self.processor(of: module)?.finish(throwing: nil)
            prepared.remove(ObjectIdentifier(module))
        }
        modules = newModules
        if analyzingInput || !prepared.isEmpty { try await prepareModules() }
    }

    /// Replaces the analysis context and passes it to every module, for the audio analyzed from now on.
    /// Throws if the analyzer has finished.
    public func setContext(_ newContext: AnalysisContext) async throws {
        try checkOpen()
        context = newContext
        for module in modules { await Self.processor(of: module)?.setContext(newContext) }
    }

    // MARK: Analysis

    /// Analyzes a sequence to its end and returns the time just after its last audio (nil if it had none).
    /// The session stays open.
    public func analyzeSequence<InputSequence: AsyncSequence>(_ inputSequence: InputSequence) async throws -> CMTime?
    where InputSequence.Element == AnalyzerInput {
        try beginInput()
        let before = nextSample
        try await runInputThrowing { try await self.consume(inputSequence) }
        return nextSample > before ? time(nextSample) : nil
    }

    /// Analyzes a whole file, converted to the modules' format, and returns the time just after its end.
    public func analyzeSequence(from audioFile: AVAudioFile) async throws -> CMTime? {
        try beginInput()
        let before = nextSample
        try await runInputThrowing { try await self.consume(audioFile) }
        return nextSample > before ? time(nextSample) : nil
    }

    /// Analyzes the samples of a pass over a file (16 kHz mono, decoded once) to the end of its stream; returns how
    /// many it gave and how the file was cut short, if it was. The file workflow's input (`FileTranscriber`).
    func analyzeSequence(from audio: FileAudioPass) async throws
        -> (samples: Int64, truncation: AudioTruncation?) {
        try beginInput()
        let before = nextSample
        var truncation: AudioTruncation?
        try await runInputThrowing {
            while !self.finished {
                let samples = try audio.read()
                if samples.isEmpty { break }
                try await self.deliver(samples, at: self.nextSample)
            }
            truncation = audio.truncation
        }
        return (nextSample - before, truncation)
    }

    /// Starts analyzing a sequence in the analyzer's own task and returns at once.
    public func start<InputSequence: AsyncSequence & Sendable>(inputSequence: InputSequence) async throws
    where InputSequence.Element == AnalyzerInput {
        try beginInput()
        inputTask = Task(priority: options.priority) { await self.runInput { try await self.consume(inputSequence) } }
    }

    /// Starts analyzing a file in the analyzer's own task and returns at once.
    public func start(inputAudioFile audioFile: AVAudioFile, finishAfterFile: Bool) async throws {
        try beginInput()
        inputTask = Task(priority: options.priority) {
            await self.runInput { try await self.consume(audioFile) }
            if finishAfterFile { try? await self.finalizeAndFinishThroughEndOfInput() }
        }
    }

    // MARK: Finalizing and finishing

    /// Makes results final through `time` (all audio received if nil), waiting for that audio to arrive.
    public func finalize(through time: CMTime?) async throws {
        if try hasFinished() { return }
        let target = try time.map(sample(of:))
        try await waitForInput(through: target)
        try await finalizeModules(through: target)
    }

    /// Drops pending work on audio before `time` (best effort).
    public func cancelAnalysis(before time: CMTime) async {
        guard !finished, let target = try? sample(of: time) else { return }
        for module in modules { await Self.processor(of: module)?.cancel(before: target) }
    }

    /// Stops at once: input stops, pending work is dropped, results end.
    public nonisolated func cancelAndFinishNow() {
        Task(priority: options.priority) { await self.finishNow() }
    }

    /// Waits for the current input to end, finalizes everything, and finishes. Does nothing once finished.
    public func finalizeAndFinishThroughEndOfInput() async throws {
        if try hasFinished() { return }
        try await waitForInput(through: nil)
        try await finalizeModules(through: nil)
        await finishSession(error: nil)
    }

    /// Waits for audio through `time`, finalizes through it, and finishes.
    public func finalizeAndFinish(through time: CMTime) async throws {
        if try hasFinished() { return }
        let target = try sample(of: time)
        try await waitForInput(through: target)
        try await finalizeModules(through: target)
        await finishSession(error: nil)
    }

    /// Finishes once audio through `time` has been analyzed; results through it are finalized.
    public func finish(after time: CMTime) async throws {
        try await finalizeAndFinish(through: time)
    }

    // MARK: Formats and preparation

    /// The best format for buffers given to these modules (16 kHz mono Float32), nil if a module's model is not
    /// installed or a module is not one of this package's.
    public static func bestAvailableAudioFormat(compatibleWith modules: [any SpeechModule]) async -> AVAudioFormat? {
        await bestAvailableAudioFormat(compatibleWith: modules, considering: nil)
    }

    /// Like `bestAvailableAudioFormat(compatibleWith:)`, preferring the compatible format closest to `format`
    /// (Int16 when it is Int16).
    public static func bestAvailableAudioFormat(compatibleWith modules: [any SpeechModule],
                                                considering format: AVAudioFormat?) async -> AVAudioFormat? {
        var common = speechFormats
        for module in modules {
            let formats = await module.availableCompatibleAudioFormats
            common = common.filter { formats.contains($0) }
        }
        if let format, let match = common.first(where: { $0.commonFormat == format.commonFormat }) { return match }
        return common.first
    }

    /// Loads the modules' models now rather than with the first audio.
    public func prepareToAnalyze(in audioFormat: AVAudioFormat?) async throws {
        try await prepareToAnalyze(in: audioFormat, withProgressReadyHandler: nil)
    }

    /// Loads the modules' models now; `handler` receives a `Progress` counting modules prepared.
    public func prepareToAnalyze(in audioFormat: AVAudioFormat?,
                                 withProgressReadyHandler handler: sending ((Progress) -> Void)?) async throws {
        try checkOpen()
        if let audioFormat, !Self.speechFormats.contains(audioFormat) {
            throw SFSpeechError(.unexpectedAudioFormat, "Cannot analyze \(audioFormat): the modules take "
                + "16 kHz mono Float32 or Int16. Convert with AVAudioConverter to bestAvailableAudioFormat(compatibleWith:).")
        }
        let progress = Progress(totalUnitCount: Int64(max(modules.count, 1)))
        handler?(progress)
        try await prepareModules { progress.completedUnitCount += 1 }
        progress.completedUnitCount = progress.totalUnitCount
    }

    /// Sets the handler told when `volatileRange` changes: the range, whether its start and its end changed.
    public func setVolatileRangeChangedHandler(_ handler: sending ((CMTimeRange, Bool, Bool) -> Void)?) {
        volatileRangeChanged = handler
    }

    // MARK: Input

    private func beginInput() throws {
        try checkOpen()
        guard !analyzingInput else {
            throw SFSpeechError(.moduleOutputFailed, "The analyzer is already analyzing an input; it takes one at a "
                + "time. Wait for analyzeSequence to return (or the input sequence to end) before starting another.")
        }
        analyzingInput = true
    }

    /// Runs an input to its end in the background; an error ends the session.
    private func runInput(_ body: () async throws -> Void) async {
        try? await runInputThrowing(body)
    }

    private func runInputThrowing(_ body: () async throws -> Void) async throws {
        defer {
            analyzingInput = false
            resumeWaiters()
        }
        do {
            try await prepareModules()
            try await body()
        } catch {
            if finished && failure == nil { return } // cancelled by finishing
            await finishSession(error: error)
            throw error
        }
    }

    private func consume<InputSequence: AsyncSequence>(_ sequence: InputSequence) async throws
    where InputSequence.Element == AnalyzerInput {
        for try await input in sequence {
            if finished { return }
            try await ingest(input)
        }
    }

    private func consume(_ file: AVAudioFile) async throws {
        let converter = try MonoStreamConverter(inputFormat: file.processingFormat)
        let chunk = AVAudioFrameCount(file.processingFormat.sampleRate) // one second
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: chunk)!
        while !finished {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            try await deliver(try converter.convert(buffer), at: nextSample)
        }
        if !finished { try await deliver(converter.finish(), at: nextSample) }
    }

    private func ingest(_ input: AnalyzerInput) async throws {
        let buffer = input.buffer
        guard let format = Self.speechFormats.first(where: { $0 == buffer.format }) else {
            throw SFSpeechError(.unexpectedAudioFormat, "A buffer arrived as \(buffer.format), but the modules take "
                + "16 kHz mono Float32 or Int16. Convert buffers with AnalyzerInputConverter, or with AVAudioConverter to "
                + "SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith:).")
        }
        var start = nextSample
        if let bufferStart = input.bufferStartTime {
            let requested = try sample(of: bufferStart)
            guard requested >= nextSample else {
                throw SFSpeechError(.audioDisordered, String(
                    format: "A buffer starts at %.3f s, before the end of audio already given (%.3f s). "
                        + "Give buffers in time order without overlap.",
                    bufferStart.seconds, Double(nextSample) / Double(Self.rate)))
            }
            start = requested
        }
        let count = Int(buffer.frameLength)
        let samples: [Float] = format.commonFormat == .pcmFormatFloat32
            ? Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: count))
            : UnsafeBufferPointer(start: buffer.int16ChannelData![0], count: count).map { Float($0) / 32_768 }
        try await deliver(samples, at: start)
    }

    private func deliver(_ samples: [Float], at start: Int64) async throws {
        if let bad = samples.first(where: { !$0.isFinite }) {
            throw SFSpeechError(.unexpectedAudioFormat, "The audio contains a sample that is not a finite number "
                + "(\(bad)). Check the code that fills the buffers.")
        }
        var finalThrough: Int64?
        for module in processingOrder {
            guard let processor = Self.processor(of: module) else { continue }
            try await processor.append(samples, at: start)
            if let through = await processor.resultsFinalThrough { finalThrough = min(finalThrough ?? through, through) }
        }
        nextSample = max(nextSample, start + Int64(samples.count))
        resumeWaiters()
        updateVolatileRange(finalizedThrough: finalThrough)
    }

    // MARK: Session state

    /// The modules in the order they get audio and finalize: those publishing speech regions (detectors) first, so
    /// the others read the regions of the audio they are given.
    private var processingOrder: [any SpeechModule] {
        let publishes = { (module: any SpeechModule) in Self.processor(of: module)?.publishedSpeechRegions != nil }
        return modules.filter(publishes) + modules.filter { !publishes($0) }
    }

    private func prepareModules(each done: (() -> Void)? = nil) async throws {
        // Transcribers skip what a detector among the modules calls silence, reading its regions.
        let regions = modules.lazy.compactMap { Self.processor(of: $0)?.publishedSpeechRegions }.first
        for module in modules { await Self.processor(of: module)?.follow(speechRegions: regions) }
        for module in modules where !prepared.contains(ObjectIdentifier(module)) {
            guard let processor = Self.processor(of: module) else {
                throw SFSpeechError(.moduleOutputFailed, "\(type(of: module)) is not a module of this package; "
                    + "use SpeechTranscriber, DictationTranscriber or SpeechDetector.")
            }
            try await processor.prepare(context: context, retention: options.modelRetention)
            prepared.insert(ObjectIdentifier(module))
            done?()
        }
    }

    private func finalizeModules(through target: Int64?) async throws {
        do {
            try await prepareModules()
            for module in processingOrder { try await Self.processor(of: module)?.finalize(through: target) }
        } catch {
            await finishSession(error: error)
            throw error
        }
        updateVolatileRange(finalizedThrough: target ?? nextSample)
    }

    private func finishNow() async {
        inputTask?.cancel()
        await finishSession(error: nil)
    }

    private func finishSession(error: (any Error)?) async {
        guard !finished else { return }
        finished = true
        failure = error
        inputTask?.cancel()
        for module in modules { await Self.processor(of: module)?.finish(throwing: error) }
        resumeWaiters()
    }

    /// Whether the session has finished; throws the error that ended it, if one did. Finalizing or finishing a
    /// finished session does nothing, as apps expect after `finishAfterFile: true` (they call
    /// `finalizeAndFinishThroughEndOfInput()` again before reading their results).
    private func hasFinished() throws -> Bool {
        if let failure { throw failure }
        return finished
    }

    private func checkOpen() throws {
        if try hasFinished() {
            throw SFSpeechError(.moduleOutputFailed, "The analysis session has finished; create a new SpeechAnalyzer.")
        }
    }

    /// Waits until audio through `target` (the end of the current input if nil) has been analyzed.
    private func waitForInput(through target: Int64?) async throws {
        while !finished && analyzingInput && (target.map { nextSample < $0 } ?? true) {
            try await withCheckedThrowingContinuation { waiters.append((target, $0)) }
        }
        if let failure { throw failure }
    }

    private func resumeWaiters() {
        let isReady = { (target: Int64?) in
            self.finished || !self.analyzingInput || (target.map { self.nextSample >= $0 } ?? false)
        }
        let ready = waiters.filter { isReady($0.target) }
        waiters.removeAll { isReady($0.target) }
        for waiter in ready {
            if let failure { waiter.continuation.resume(throwing: failure) } else { waiter.continuation.resume() }
        }
    }

    /// The unfinalized stretch: from what was last finalized to the end of the audio received.
    private var finalizedSample: Int64 = 0

    private func updateVolatileRange(finalizedThrough: Int64? = nil) {
        if let finalizedThrough { finalizedSample = max(finalizedSample, min(finalizedThrough, nextSample)) }
        let range = CMTimeRange(start: time(finalizedSample), end: time(nextSample))
        let old = volatileRange
        guard old != range else { return }
        volatileRange = range
        volatileRangeChanged?(range, old?.start != range.start, old?.end != range.end)
    }

    private func time(_ sample: Int64) -> CMTime { CMTime(value: sample, timescale: Self.rate) }

    private func sample(of time: CMTime) throws -> Int64 {
        guard time.isNumeric else {
            if time.isPositiveInfinity { return Int64.max / 2 }
            throw SFSpeechError(.audioDisordered, "The time \(time) is not a valid audio time.")
        }
        return max(0, time.convertScale(Self.rate).value)
    }

    private static func processor(of module: any SpeechModule) -> (any ModuleProcessor)? {
        (module as? any AnalyzerDrivenModule)?.processor
    }
}

extension SpeechAnalyzer {
    /// Analyzes the audio file at `url` (opened as an `AVAudioFile`). Not in Apple's API; early guides (and the
    /// seeds) call `analyzeSequence(from:)` with a URL.
    public func analyzeSequence(from url: URL) async throws -> CMTime? {
        try await analyzeSequence(from: AVAudioFile(forReading: url))
    }
}
