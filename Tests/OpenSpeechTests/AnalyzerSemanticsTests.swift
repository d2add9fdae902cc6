import Foundation
import OpenSpeech
import Synchronization
import Testing
import TestSupport

/// Apple's session semantics: formats, timeline, ordering, finishing, errors reaching every waiter.
@Suite(.serialized) struct AnalyzerSemanticsTests {
    static let clip = Corpus.item("1221-135766-0002")! // 4.8 s

    func expectSpeechError(_ code: SFSpeechError.Code, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("expected SFSpeechError \(code)")
        } catch let error as SFSpeechError {
            #expect(error.code == code, "\(error)")
            #expect(!error.message.isEmpty)
        } catch {
            Issue.record("expected SFSpeechError \(code), got \(error)")
        }
    }

    @Test func wrongBufferFormatIsAnErrorEverywhere() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let wrong = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!,
                                     frameCapacity: 4_800)!
        wrong.frameLength = 4_800
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        builder.yield(AnalyzerInput(buffer: wrong))
        builder.finish()
        await expectSpeechError(.unexpectedAudioFormat) { _ = try await analyzer.analyzeSequence(stream) }
        // The session is over: its results end with the same error, later calls throw it too.
        await expectSpeechError(.unexpectedAudioFormat) { for try await _ in transcriber.results {} }
        await expectSpeechError(.unexpectedAudioFormat) { try await analyzer.finalize(through: nil) }
    }

    @Test func bufferGoingBackIsDisordered() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let buffers = try TestEnvironment.buffers(of: Self.clip.wav16kURL, seconds: 1)
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        builder.yield(AnalyzerInput(buffer: buffers[0], bufferStartTime: CMTime(value: 2, timescale: 1)))
        builder.yield(AnalyzerInput(buffer: buffers[1], bufferStartTime: CMTime(value: 1, timescale: 1)))
        builder.finish()
        await expectSpeechError(.audioDisordered) { _ = try await analyzer.analyzeSequence(stream) }
    }

    @Test func timelineContinuesAcrossInputsAndSkips() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let collector = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        // First input: the clip as a file. Second: the same clip as buffers placed 10 s after its end.
        let end1 = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: Self.clip.originalURL))
        #expect(abs((end1?.seconds ?? 0) - Self.clip.durationSeconds) < 0.001)
        let skipTo = CMTime(seconds: Self.clip.durationSeconds + 10, preferredTimescale: 16_000)
        let buffers = try TestEnvironment.buffers(of: Self.clip.wav16kURL)
        let (stream, builder) = AsyncStream.makeStream(of: AnalyzerInput.self)
        builder.yield(AnalyzerInput(buffer: buffers[0], bufferStartTime: skipTo))
        for buffer in buffers.dropFirst() { builder.yield(AnalyzerInput(buffer: buffer)) }
        builder.finish()
        let end2 = try await analyzer.analyzeSequence(stream)
        #expect(abs((end2?.seconds ?? 0) - (skipTo.seconds + Self.clip.durationSeconds)) < 0.001)
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let results = try await collector.value
        #expect(results.allSatisfy { $0.isFinal })
        let first = results.filter { $0.range.end.seconds <= Self.clip.durationSeconds + 0.01 }
        let second = results.filter { $0.range.start >= skipTo }
        #expect(!first.isEmpty && !second.isEmpty)
        #expect(first.count + second.count == results.count, "no result spans the skipped audio")
        // After finishing, the analyzer refuses input.
        await expectSpeechError(.moduleOutputFailed) {
            _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: Self.clip.originalURL))
        }
        // Finalizing or finishing again does nothing (apps do after `finishAfterFile: true`).
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        try await analyzer.finalize(through: nil)
    }

    @Test("volatileRange's start follows the finals as they come, before any finalize, and never goes back")
    func volatileRangeFollowsFinals() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                                            reportingOptions: [.volatileResults], attributeOptions: [])
        let starts = Mutex<[Double]>([])
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        await analyzer.setVolatileRangeChangedHandler { range, startChanged, _ in
            if startChanged { starts.withLock { $0.append(range.start.seconds) } }
        }
        let collector = Task { for try await _ in transcriber.results {} }
        let jfk = try #require(Corpus.item("jfk"))
        _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: jfk.originalURL))
        let duringAnalysis = starts.withLock { $0 }
        #expect(duringAnalysis.contains { $0 > 2 }, "\(duringAnalysis)")
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        try await collector.value
        let all = starts.withLock { $0 }
        #expect(all == all.sorted() && abs((all.last ?? 0) - jfk.durationSeconds) < 0.01, "\(all)")
    }

    @Test func missingModelIsNoModel() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription,
                                            engineConfiguration: .init(modelID: "whisper-not-in-the-catalog"))
        #expect(await transcriber.availableCompatibleAudioFormats.isEmpty)
        #expect(await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]) == nil)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        await expectSpeechError(.noModel) { try await analyzer.prepareToAnalyze(in: nil) }
    }

    @Test func formatsAndLocales() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let best = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber])
        #expect(best?.sampleRate == 16_000 && best?.channelCount == 1 && best?.commonFormat == .pcmFormatFloat32)
        let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)
        let considered = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber], considering: int16)
        #expect(considered?.commonFormat == .pcmFormatInt16 && considered?.sampleRate == 16_000)
        #expect(SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en-GB")) != nil)
        #expect(SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "tlh")) == nil)
        #expect(await SpeechTranscriber.installedLocales.contains { $0.language.languageCode == "en" })
        #expect(await SpeechTranscriber.supportedLocales.contains { $0.language.languageCode == "fr" })
    }

    @Test func timeRangesAndConfidenceOnWords() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, transcriptionOptions: [],
                                            reportingOptions: [], attributeOptions: [.audioTimeRange, .transcriptionConfidence])
        let collector = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: Self.clip.originalURL))
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let results = try await collector.value
        var previousEnd = 0.0
        var words = 0
        for result in results {
            for run in result.text.runs {
                let range = try #require(run.audioTimeRange)
                let confidence = try #require(run.transcriptionConfidence)
                #expect((0...1).contains(confidence))
                #expect(range.start.seconds >= previousEnd - 0.05 && range.end >= range.start)
                #expect(result.range.containsTimeRange(range) || range.end <= result.range.end + CMTime(value: 1, timescale: 50))
                previousEnd = range.end.seconds
                words += 1
            }
        }
        #expect(words >= 9, "\(words) words") // "yet these thoughts affected hester prynne less with hope than apprehension"
        #expect(previousEnd <= Self.clip.durationSeconds + 0.05)
        let middle = CMTimeRange(start: CMTime(seconds: 2, preferredTimescale: 100), duration: CMTime(value: 1, timescale: 10))
        let text = results.map(\.text).reduce(AttributedString(), +)
        #expect(text.rangeOfAudioTimeRangeAttributes(intersecting: middle) != nil)
    }

    @Test func cancelAnalysisDropsPendingAudio() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: TestEnvironment.english, preset: .transcription)
        let analyzer = SpeechAnalyzer(modules: [transcriber])
        let collector = Task { try await transcriber.results.reduce(into: [SpeechTranscriber.Result]()) { $0.append($1) } }
        // A first clip whose pending (not yet finalized) audio is cancelled, then a second one.
        let end1 = try #require(try await analyzer.analyzeSequence(from: AVAudioFile(forReading: Self.clip.originalURL)))
        await analyzer.cancelAnalysis(before: end1)
        let other = try #require(Corpus.item("1089-134686-0002"))
        _ = try await analyzer.analyzeSequence(from: AVAudioFile(forReading: other.originalURL))
        try await analyzer.finalizeAndFinishThroughEndOfInput()
        let results = try await collector.value
        #expect(!results.isEmpty)
        #expect(results.allSatisfy { $0.range.start >= end1 - CMTime(value: 1, timescale: 100) }, "nothing from the cancelled audio")
        let text = results.map { String($0.text.characters) }.joined().lowercased()
        #expect(!text.contains("hester") && text.contains("nightfall"), "\(text)")
    }
}
