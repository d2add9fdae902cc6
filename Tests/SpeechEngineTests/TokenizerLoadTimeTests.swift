import Foundation
import Testing
import SpeechEngine
import TestSupport

/// Loading the tokenizer is part of every model load: keep it well under a second.
@Suite struct TokenizerLoadTimeTests {
    @Test func loadsQuickly() async throws {
        let directory = try await TestModels.directory(for: "whisper-base")
        _ = try WhisperTokenizer(modelDirectory: directory)
        let clock = ContinuousClock()
        var best = Duration.seconds(1000)
        for _ in 0..<3 {
            best = min(best, try clock.measure { _ = try WhisperTokenizer(modelDirectory: directory) })
        }
        print("WhisperTokenizer load (whisper-base), best of 3: \(best)")
        #expect(best < .seconds(2))
    }
}
