import Foundation
@testable import OpenSpeech
import SpeechEngine
import Testing
import TestSupport

/// The process-wide Silero model (`LoadedModelCache.silero`): loaded once for every detector of the process (language
/// detection's and each file's gate), each detector still with its own state; a folder without the model is its
/// typed error every time, never a cached failure.
@Suite struct SileroModelCacheTests {
    @Test("one load per folder: detectors made from it share the model and each keeps its own state (interleaved streams score a clip as a fresh load does)")
    func sharedModelOwnState() async throws {
        let directory = try await TestModels.directory(for: "silero-vad")
        let first = try LoadedModelCache.silero.model(in: directory)
        let second = try LoadedModelCache.silero.model(in: directory.appendingPathComponent("."))
        #expect(first === second)

        let clip = try #require(Corpus.item("1089-134686-0002"))
        let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
        let pieces = stride(from: 0, to: audio.count, by: 5_000).map { Array(audio[$0..<min($0 + 5_000, audio.count)]) }
        let fresh = try SileroVAD(directory: directory).makeStream()
        var expected = pieces.flatMap { fresh.process($0) }
        if let last = fresh.finish() { expected.append(last) }
        // Two streams of the cached model fed the same clip in alternating pieces: neither sees the other's audio.
        let a = first.makeStream(), b = second.makeStream()
        var fromA: [Float] = [], fromB: [Float] = []
        for piece in pieces {
            fromA += a.process(piece)
            fromB += b.process(piece)
        }
        if let last = a.finish() { fromA.append(last) }
        if let last = b.finish() { fromB.append(last) }
        #expect(expected.count > 100)
        #expect(fromA == expected)
        #expect(fromB == expected)
    }

    @Test("a folder without the model throws VADError.missingModel on every call (the failure is not kept)")
    func missingModelNotCached() throws {
        let directory = try makeTemporaryDirectory("no-silero")
        defer { try? FileManager.default.removeItem(at: directory) }
        for _ in 0..<2 {
            #expect(throws: VADError.self) { try LoadedModelCache.silero.model(in: directory) }
        }
    }
}
