import Foundation
import Testing
@testable import SpeechEngine
import TestSupport
import SpeechAudio

/// Batched encoding changes no bit: each window of a batch encodes to exactly what it does alone (on this machine's
/// product kernels, at the default and the int8 compute type), and long-form transcription gives the same segments,
/// tokens and times at batch sizes 1, 2 and 4, whole or fed in pieces.
@Suite("Encoder batches", .serialized)
struct EncoderBatchTests {
    static let chapter = "ls-other-chapter-7902-96592"

    @Test("each window of a batch encodes bit for bit as alone",
          arguments: ["whisper-tiny.en", "whisper-base"], [ComputeType.default, .int8])
    func bitIdentical(modelID: String, computeType: ComputeType) async throws {
        let model = try await SharedModels.shared.model(modelID, computeType: computeType)
        let item = try #require(Corpus.item(Self.chapter))
        let samples = try WAV.read(item.wav16kURL)
        try await offCooperativePool {
            let session = WhisperSession(model: model)
            let mel = LogMelSpectrogram(samples: samples, tables: session.melTables)
            let melSize = LogMelSpectrogram.windowFrames * model.dimensions.melBins
            let rows = model.dimensions.audioContext * model.dimensions.modelWidth
            // Three windows of speech and the recording's last, short one (zero-padded).
            let starts = [0, 2960, 9000, mel.contentFrames - 1200]
            var features = [Float](repeating: 0, count: starts.count * melSize)
            features.withUnsafeMutableBufferPointer { f in
                for (i, start) in starts.enumerated() {
                    mel.window(start: start, count: min(3000, mel.contentFrames - start), into: f.baseAddress! + i * melSize)
                }
            }
            var alone: [[Float]] = []
            features.withUnsafeBufferPointer { f in
                for i in starts.indices {
                    alone.append(Array(UnsafeBufferPointer(start: session.encoder.encode(f.baseAddress! + i * melSize),
                                                           count: rows)))
                }
            }
            // What batching saves in the encoder itself (CPU of the process, user + sys, and wall), alternated.
            var cpu = [0.0, 0.0], wall = [0.0, 0.0]
            for _ in 0..<3 {
                for batched in [false, true] {
                    let (c0, w0) = (Self.processCPU(), Date())
                    features.withUnsafeBufferPointer { f in
                        if batched {
                            _ = session.encoder.encode(batch: starts.indices.map { f.baseAddress! + $0 * melSize })
                        } else {
                            for i in starts.indices { _ = session.encoder.encode(f.baseAddress! + i * melSize) }
                        }
                    }
                    cpu[batched ? 1 : 0] += Self.processCPU() - c0
                    wall[batched ? 1 : 0] += Date().timeIntervalSince(w0)
                }
            }
            let windows = Double(3 * starts.count)
            print("\(modelID) \(computeType) encoder, per window: one at a time CPU \(cpu[0] / windows) s wall "
                  + "\(wall[0] / windows) s; batches of \(starts.count) CPU \(cpu[1] / windows) s wall \(wall[1] / windows) s")
            for size in [2, 4] {
                let batched = features.withUnsafeBufferPointer { f in
                    let out = session.encoder.encode(batch: (0..<size).map { f.baseAddress! + $0 * melSize })
                    return Array(UnsafeBufferPointer(start: out, count: size * rows))
                }
                for i in 0..<size {
                    let window = Array(batched[(i * rows)..<((i + 1) * rows)])
                    let differing = zip(window, alone[i]).filter { $0.bitPattern != $1.bitPattern }.count
                    #expect(differing == 0, "\(modelID) \(computeType), batch \(size), window \(i): \(differing) of \(rows) values differ")
                }
            }
        }
    }

    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    @Test("long-form segments, tokens and times identical at batch 1 and 4, whole and in pieces")
    func longFormIdentical() async throws {
        let model = try await SharedModels.tinyEn()
        let item = try #require(Corpus.item(Self.chapter))
        // The chapter, a pause, and its first minute again: windows that end in silence as well as mid-speech.
        let chapter = try WAV.read(item.wav16kURL)
        let samples = chapter + [Float](repeating: 0, count: 12 * 16_000) + chapter.prefix(60 * 16_000)
        // Batches of 4 meet the end of the audio part-filled, whole and (in pieces) at each append.
        let runs: [(batch: Int, piece: Int?)] = [(1, nil), (4, nil), (4, 7 * 16_000 + 123)]
        var results: [[Segment]] = []
        for run in runs {
            let segments = try await offCooperativePool {
                var options = TranscriptionOptions()
                options.encoderBatchSize = run.batch
                let stream = LongFormTranscription(session: WhisperSession(model: model), options: options)
                var segments: [Segment] = []
                var start = 0
                let piece = run.piece ?? samples.count
                while start < samples.count {
                    try stream.append(Array(samples[start..<min(start + piece, samples.count)]))
                    start += piece
                    segments += try stream.decodeAvailable()
                }
                stream.finish()
                return segments + (try stream.decodeAvailable())
            }
            results.append(segments)
        }
        let expected = results[0]
        #expect(expected.count > 20)
        let windows = Set(expected.map(\.seek)).sorted()
        let full = zip(windows, windows.dropFirst()).filter { $1 - $0 == 3000 }.count
        print("tiny.en long-form: \(expected.count) segments, \(windows.count) windows, \(full) of them right after a full window")
        for (run, segments) in zip(runs, results).dropFirst() {
            #expect(segments.count == expected.count, "batch \(run.batch), pieces \(run.piece ?? 0)")
            for (a, b) in zip(segments, expected) {
                #expect(a.text == b.text && a.tokens == b.tokens && a.start == b.start && a.end == b.end && a.seek == b.seek
                        && a.temperature == b.temperature && a.avgLogProb == b.avgLogProb,
                        "batch \(run.batch), pieces \(run.piece ?? 0): \(a.start)–\(a.end) \(a.text) ≠ \(b.start)–\(b.end) \(b.text)")
            }
        }
    }
}
