import Foundation
import Synchronization
import Testing
@testable import SpeechEngine
import TestSupport
import SpeechAudio

/// Sessions share their model's weights and its products' oneDNN primitives: a session's output must not depend on
/// what another session does with the same model at the same time (as a live stream and a file transcription do in
/// one process, or two clients of the server).
@Suite("Concurrent sessions on one model", .serialized)
struct ConcurrentSessionsTests {
    /// What a live stream decodes: the clip's growing prefixes, every 4 s, as agreement decodings (beam, word times,
    /// the padded 30 s) and as previews (greedy, the encoder over the audio and 1 s).
    static func windows(_ samples: [Float], session: WhisperSession) throws -> [[Int]] {
        var agreement = TranscriptionOptions(beamSize: 5)
        agreement.wordTimestamps = true
        agreement.temperatures = [0]
        var preview = TranscriptionOptions.greedy
        preview.wordTimestamps = true
        var tokens: [[Int]] = []
        for end in stride(from: 64_000, through: samples.count, by: 64_000) {
            let window = Array(samples[..<end])
            tokens.append(try session.decodeWindow(samples: window, previousTokens: [], timeOffset: 0, options: agreement)
                .flatMap(\.tokens))
            tokens.append(try session.decodeWindow(samples: window, previousTokens: [], timeOffset: 0, options: preview,
                                                   encodedPositions: end / 320 + 50).flatMap(\.tokens))
        }
        return tokens
    }

    @Test("sessions decoding at once, on a float32 and an int8 model: each the tokens it gets alone")
    func sameTokensAsAlone() async throws {
        let directory = try await TestModels.directory(for: "whisper-tiny.en")
        let models = try [ComputeType.float32, .int8].map { try WhisperModel(directory: directory, computeType: $0) }
        let clips = try ["1221-135766-0001", "1995-1837-0001"].map { try WAV.read(try #require(Corpus.item($0)).wav16kURL) }
        // Two sessions on each model: the same products' primitives run from two threads at once.
        let jobs = models.flatMap { model in clips.map { (model, $0) } }
        let alone = try await offCooperativePool {
            try jobs.map { try Self.windows($0.1, session: WhisperSession(model: $0.0)) }
        }
        // Each job on a thread of its own, its products split over the model's threads as in a live stream.
        let together = try await offCooperativePool {
            let results = Mutex<[Int: Result<[[Int]], any Error>]>([:])
            let group = DispatchGroup()
            for (index, job) in jobs.enumerated() {
                DispatchQueue.global().async(group: group) {
                    let result = Result { try Self.windows(job.1, session: WhisperSession(model: job.0)) }
                    results.withLock { $0[index] = result }
                }
            }
            group.wait()
            return try results.withLock { all in try jobs.indices.map { try all[$0]!.get() } }
        }
        for index in jobs.indices {
            let differing = together[index].indices.filter { together[index][$0] != alone[index][$0] }
            #expect(differing.isEmpty, "job \(index): decodings \(differing) differ")
        }
    }
}
