// The macOS/iOS 27 input helpers: `AnalyzerInputConverter` (its timeline policy and its conversion, without a
// model), then both helpers feeding a real transcription, written as Apple's documentation uses them.
import Foundation
@testable import OpenSpeech
import SpeechEvaluation
import Testing
import TestSupport

// MARK: Apple's example as its macOS 27 documentation gives it, with "audio remains" filled from a file

/// Transcribes `audioFile`, read in buffers of `piece` frames and converted by `AnalyzerInputConverter`.
func appleConverterExample(audioFile: URL, piece: AVAudioFrameCount) async throws -> String {
    // Step 1: Modules
    guard let locale = await SpeechTranscriber.supportedLocale(equivalentTo: Locale(identifier: "en-US")) else {
        return ""
    }
    let transcriber = SpeechTranscriber(locale: locale, preset: .transcription)

    // Step 2: Assets
    if let installationRequest = try await AssetInventory.assetInstallationRequest(supporting: [transcriber]) {
        try await installationRequest.downloadAndInstall()
    }

    // Step 3: Input sequence
    let (inputSequence, inputBuilder) = AsyncStream.makeStream(of: AnalyzerInput.self)

    // Step 4: Analyzer
    let audioFormat = try #require(await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: [transcriber]))
    let analyzer = SpeechAnalyzer(modules: [transcriber])

    // Step 5: Supply audio
    let converter = AnalyzerInputConverter(analyzerFormat: audioFormat)
    let file = try AVAudioFile(forReading: audioFile)
    let feeding = Task {
        while true { /* audio remains */
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: piece)!
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            for input in try converter.convert(buffer, at: nil) {
                inputBuilder.yield(input)
            }
        }
        for input in try converter.flush() {
            inputBuilder.yield(input)
        }
        inputBuilder.finish()
    }

    // Step 7: Act on results
    let collector = Task {
        var text = ""
        for try await result in transcriber.results {
            text += String(result.text.characters)
        }
        return text
    }

    // Step 6: Perform analysis
    let lastSampleTime = try await analyzer.analyzeSequence(inputSequence)

    // Step 8: Finish analysis
    if let lastSampleTime {
        try await analyzer.finalizeAndFinish(through: lastSampleTime)
    } else {
        await analyzer.cancelAndFinishNow()
    }
    try await feeding.value
    return try await collector.value
}

/// Transcribes `url` through `AssetInputSequenceProvider`, as Apple's documentation shows for files.
func transcribeWithAssetProvider(_ url: URL) async throws -> String {
    let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription)
    let modules: [any SpeechModule] = [transcriber]
    let provider = try await AssetInputSequenceProvider.provider(from: AVURLAsset(url: url), compatibleWith: modules)
    let analyzer = SpeechAnalyzer(modules: modules)
    let collector = Task {
        var text = ""
        for try await result in transcriber.results { text += String(result.text.characters) }
        return text
    }
    if let lastAudioTime = try await analyzer.analyzeSequence(provider.analyzerInputs) {
        try await analyzer.finalizeAndFinish(through: lastAudioTime)
    } else {
        await analyzer.cancelAndFinishNow()
    }
    return try await collector.value
}

// MARK: The timeline policy

@Suite struct InputTimelineTests {
    @Test func buffersWithoutTimesFollowEachOther() {
        var timeline = InputTimeline()
        #expect(timeline.place(nil, frames: 16_000, sampleRate: 16_000) == .contiguous)
        #expect(timeline.place(nil, frames: 8_000, sampleRate: 16_000) == .contiguous)
        #expect(timeline.end == 1.5)
    }

    @Test func aSampleTimeAfterTheEndSkipsAudio() {
        var timeline = InputTimeline()
        // The first buffer at zero is where the timeline starts: nothing skipped.
        #expect(timeline.place(AVAudioTime(sampleTime: 0, atRate: 48_000), frames: 48_000, sampleRate: 48_000) == .contiguous)
        // Exactly where the last one ended: contiguous, whatever the rate the time is counted in.
        #expect(timeline.place(AVAudioTime(sampleTime: 44_100, atRate: 44_100), frames: 48_000, sampleRate: 48_000)
            == .contiguous)
        #expect(timeline.place(AVAudioTime(sampleTime: 48_000 * 5, atRate: 48_000), frames: 4_800, sampleRate: 48_000)
            == .startsAt(5))
        #expect(abs(timeline.end - 5.1) < 1e-9)
        // A time before the end is placed there too (the analyzer then refuses the overlap).
        #expect(timeline.place(AVAudioTime(sampleTime: 0, atRate: 48_000), frames: 10, sampleRate: 48_000) == .startsAt(0))
    }

    @Test func aFirstBufferLaterThanZeroStartsThere() {
        var timeline = InputTimeline()
        #expect(timeline.place(AVAudioTime(sampleTime: 32_000, atRate: 16_000), frames: 160, sampleRate: 16_000)
            == .startsAt(2))
    }

    @Test func hostTimesAreReadAgainstTheFirst() {
        var timeline = InputTimeline()
        let base: UInt64 = 7_000_000_000_000
        #expect(timeline.place(nil, frames: 16_000, sampleRate: 16_000) == .contiguous)
        // The first host time marks where the audio had reached (1 s), whatever the clock says.
        #expect(timeline.place(AVAudioTime(hostTime: base), frames: 16_000, sampleRate: 16_000) == .contiguous)
        // One second later on the host clock, give or take jitter: contiguous.
        #expect(timeline.place(AVAudioTime(hostTime: base + 1_002_000_000), frames: 16_000, sampleRate: 16_000)
            == .contiguous)
        // Two seconds more than the audio given: skipped.
        #expect(timeline.place(AVAudioTime(hostTime: base + 5_000_000_000), frames: 16_000, sampleRate: 16_000)
            == .startsAt(6))
    }
}

// MARK: Conversion, without a model

@Suite struct AnalyzerInputConverterTests {
    static let analyzerFormat = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 16_000, channels: 1,
                                              interleaved: false)!

    /// `seconds` of a two-tone stereo signal at 44.1 kHz, Float32 deinterleaved.
    static func stereoSignal(seconds: Double) -> AVAudioPCMBuffer {
        let format = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 44_100, channels: 2, interleaved: false)!
        let frames = AVAudioFrameCount(seconds * 44_100)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames)!
        buffer.frameLength = frames
        for i in 0..<Int(frames) {
            let t = Double(i) / 44_100
            buffer.floatChannelData![0][i] = Float(0.4 * sin(2 * .pi * 440 * t))
            buffer.floatChannelData![1][i] = Float(0.3 * sin(2 * .pi * 1_250 * t))
        }
        return buffer
    }

    /// `frames` frames of `buffer` from `start`, in a buffer of their own.
    static func slice(_ buffer: AVAudioPCMBuffer, _ start: Int, _ frames: Int) -> AVAudioPCMBuffer {
        let piece = AVAudioPCMBuffer(pcmFormat: buffer.format, frameCapacity: AVAudioFrameCount(frames))!
        piece.frameLength = AVAudioFrameCount(frames)
        for channel in 0..<Int(buffer.format.channelCount) {
            piece.floatChannelData![channel].update(from: buffer.floatChannelData![channel] + start, count: frames)
        }
        return piece
    }

    static func samples(_ inputs: [AnalyzerInput]) -> [Float] {
        inputs.flatMap { Array(UnsafeBufferPointer(start: $0.buffer.floatChannelData![0], count: Int($0.buffer.frameLength))) }
    }

    @Test func aBufferInTheAnalyzersFormatPassesThrough() throws {
        let converter = AnalyzerInputConverter(analyzerFormat: Self.analyzerFormat)
        let buffer = AVAudioPCMBuffer(pcmFormat: Self.analyzerFormat, frameCapacity: 1_600)!
        buffer.frameLength = 1_600
        let inputs = try converter.convert(buffer, at: nil)
        #expect(inputs.count == 1)
        #expect(inputs.first?.buffer === buffer)
        #expect(inputs.first?.bufferStartTime == nil)
        #expect(inputs.first?.bufferDuration.seconds == 0.1)
        #expect(inputs.first?.bufferFormat == Self.analyzerFormat)
        #expect(try converter.flush().isEmpty)
    }

    @Test("the output is the same however the input is cut", arguments: [441, 1_000, 4_410, 44_099])
    func sameOutputWhateverThePieces(piece: Int) throws {
        let signal = Self.stereoSignal(seconds: 3)
        var handled: [AVAudioConverter] = []
        let whole = AnalyzerInputConverter(analyzerFormat: Self.analyzerFormat) { handled.append($0) }
        let expected = Self.samples(try whole.convert(signal, at: nil) + whole.flush())
        #expect(handled.count == 1, "the configuration handler sees the one converter made")
        #expect(abs(expected.count - 48_000) <= 2, "\(expected.count) samples for 3 s at 16 kHz")
        #expect(expected.allSatisfy { $0.isFinite && abs($0) <= 1 })

        let cut = AnalyzerInputConverter(analyzerFormat: Self.analyzerFormat)
        var inputs: [AnalyzerInput] = []
        var start = 0
        while start < Int(signal.frameLength) {
            let frames = min(piece, Int(signal.frameLength) - start)
            inputs += try cut.convert(Self.slice(signal, start, frames), at: nil)
            start += frames
        }
        inputs += try cut.flush()
        #expect(inputs.allSatisfy { $0.bufferStartTime == nil && $0.bufferFormat == Self.analyzerFormat })
        let pieces = Self.samples(inputs)
        #expect(pieces.count == expected.count)
        #expect(pieces == expected, "\(zip(pieces, expected).filter { $0 != $1 }.count) samples differ")
    }

    @Test func skippedAudioCarriesItsTime() throws {
        let converter = AnalyzerInputConverter(analyzerFormat: Self.analyzerFormat)
        let second = Self.stereoSignal(seconds: 1)
        let first = try converter.convert(second, at: AVAudioTime(sampleTime: 0, atRate: 44_100))
        #expect(first.allSatisfy { $0.bufferStartTime == nil })
        // Three seconds later: the first second's held-back end comes first, untimed; then the new audio, at 4 s.
        let later = try converter.convert(Self.slice(second, 0, 22_050), at: AVAudioTime(sampleTime: 4 * 44_100, atRate: 44_100))
        let timed = later.enumerated().filter { $0.element.bufferStartTime != nil }
        #expect(timed.count == 1)
        #expect(timed.first?.element.bufferStartTime?.seconds == 4)
        let beforeJump = later.prefix(timed.first?.offset ?? 0)
        #expect(abs(Self.samples(first).count + Self.samples(Array(beforeJump)).count - 16_000) <= 1,
                "the whole first second is given before the jump")
        let rest = later.suffix(from: timed.first?.offset ?? 0) + (try converter.flush())
        #expect(abs(Self.samples(Array(rest)).count - 8_000) <= 1)
    }

    @Test func aFormatChangeFinishesTheOldFormatFirst() throws {
        let converter = AnalyzerInputConverter(analyzerFormat: Self.analyzerFormat)
        var inputs = try converter.convert(Self.stereoSignal(seconds: 1), at: nil)
        let native = AVAudioPCMBuffer(pcmFormat: Self.analyzerFormat, frameCapacity: 16_000)!
        native.frameLength = 16_000
        inputs += try converter.convert(native, at: nil)
        #expect(inputs.last?.buffer === native, "the 16 kHz buffer comes after all of the 44.1 kHz audio")
        #expect(abs(Self.samples(inputs).count - 32_000) <= 1)
        #expect(try converter.flush().isEmpty)
    }

    @Test func theModulesFormatIsTheAnalyzers() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription)
        let format = try await AnalyzerInputConverter.analyzerFormat(compatibleWith: [transcriber])
        #expect(format == Self.analyzerFormat)
        _ = try await AnalyzerInputConverter.converter(compatibleWith: [transcriber, SpeechDetector()])
    }

    @Test func aMissingModelIsSaid() async throws {
        try await TestEnvironment.ready()
        let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription,
                                            engineConfiguration: .init(modelID: "whisper-large-v3"))
        await #expect(throws: SFSpeechError.self) {
            do {
                _ = try await AnalyzerInputConverter.converter(compatibleWith: [transcriber])
            } catch let error as SFSpeechError {
                #expect(error.code == .noModel && error.message.contains("Install it first"), "\(error)")
                throw error
            }
        }
    }

    @Test func resourceLimitsOptionIsAccepted() {
        let options = SpeechAnalyzer.Options(priority: .userInitiated, modelRetention: .lingering, ignoresResourceLimits: true)
        #expect(options.ignoresResourceLimits)
        #expect(!SpeechAnalyzer.Options(priority: .low, modelRetention: .whileInUse).ignoresResourceLimits)
    }
}

// MARK: The helpers feeding a transcription

@Suite(.serialized) struct AudioInputHelpersTranscriptionTests {
    @Test func applesConverterExampleTranscribesTheSameWhateverThePieces() async throws {
        try await TestEnvironment.ready()
        // The JFK clip is 44.1 kHz stereo: the converter resamples and mixes it down.
        let jfk = try #require(Corpus.item("jfk"))
        let small = try await appleConverterExample(audioFile: jfk.originalURL, piece: 441)
        let large = try await appleConverterExample(audioFile: jfk.originalURL, piece: 44_100)
        let score = WordErrorRate.score(reference: jfk.transcript, hypothesis: small, language: "en")
        #expect(score.rate < 0.15, "WER \(score.rate): \(small)")
        #expect(small == large)
    }

    @Test func assetProviderTranscribesFiles() async throws {
        try await TestEnvironment.ready()
        var total = ErrorCounts()
        for clip in TestEnvironment.clips("ls-clean").prefix(3) + [try #require(Corpus.item("jfk"))] {
            let text = try await transcribeWithAssetProvider(clip.originalURL)
            total += WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en")
        }
        #expect(total.rate < 0.10, "WER \(total.rate)")
    }

    @Test func assetProviderRefusesAFileWithoutAudio() async throws {
        try await TestEnvironment.ready()
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-audio-\(UUID()).txt")
        try Data("plain text, no audio".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let transcriber = SpeechTranscriber(locale: Locale(identifier: "en-US"), preset: .transcription)
        do {
            _ = try await AssetInputSequenceProvider.provider(from: AVURLAsset(url: url), compatibleWith: [transcriber])
            Issue.record("a text file was accepted as audio")
        } catch {
            #expect("\(error)".contains(url.lastPathComponent), "\(error)")
        }
    }
}
