import Foundation
import Testing
import OpenSpeech
import SpeechEvaluation
import TestSupport

/// A 60-minute recording through `openspeech transcribe`: memory stays flat over the hour and the speech
/// in it is found at its place. The tool runs as its own process so its memory is measured alone.
@Suite(.serialized) struct LongRecordingMemoryTests {
    /// The LibriSpeech-clean sentences spread evenly over 60 minutes, digital silence between.
    static let minutes = 60

    @Test func anHourOfAudioKeepsMemoryFlatAndFindsEverySentence() async throws {
        try await TestEnvironment.ready()
        _ = try await TestModels.directory(for: "silero-vad")
        let folder = try makeTemporaryDirectory("openspeech-hour")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clips = TestEnvironment.clips("ls-clean")
        #expect(clips.count >= 8)
        let url = folder.appendingPathComponent("hour.wav")
        let starts = try Self.writeRecording(to: url, clips: clips, spacing: Double(Self.minutes * 60) / Double(clips.count))

        let log = folder.appendingPathComponent("transcribe.json")
        let process = try OpenSpeechExecutable.start(
            ["transcribe", url.path, "--locale", "en-US", "--format", "json", "--no-download", "--quiet"],
            environment: ["OPENSPEECH_HOME": TestModels.home.path], output: log)
        let samples = await Self.residentMemory(of: process.processIdentifier)
        process.waitUntilExit()
        let output = try Data(contentsOf: log)
        #expect(process.terminationStatus == 0, "\(String(decoding: output, as: UTF8.self).suffix(2000))")

        // Memory: from the middle of the run (model loaded long before) to its end the resident size stays within
        // 40 MB (holding the hour's samples would add 230 MB over the run), and the peak stays that of the model.
        #expect(samples.count >= 20, "the tool ran \(samples.count) tenths of a second")
        let total = samples.last?.seconds ?? 0
        let settled = samples.filter { $0.seconds > total * 0.5 && $0.seconds <= total * 0.7 }.map(\.megabytes)
        let later = samples.filter { $0.seconds > total * 0.7 }.map(\.megabytes)
        let settledPeak = try #require(settled.max()), laterPeak = try #require(later.max())
        print("hour of audio: \(String(format: "%.0f", total)) s, RSS at 50–70 % \(Int(settledPeak)) MB, after \(Int(laterPeak)) MB;",
              stride(from: 0, to: samples.count, by: Swift.max(1, samples.count / 12)).map { "\(Int(samples[$0].seconds)) s: \(Int(samples[$0].megabytes))" })
        #expect(laterPeak <= settledPeak + 40, "resident memory grew from \(settledPeak) MB to \(laterPeak) MB")
        #expect(laterPeak < 500, "whisper-tiny.en and Silero should need under 500 MB, not \(laterPeak) MB")

        // Words: each sentence is found in the segments at its time, most of its words right (tiny.en sometimes adds
        // a "Thank you." after a short sentence followed by digital silence, and int8 may hear a name as other words
        // — "Hester Prynne" as "has to print": allowed per clip), and the whole set's WER is low.
        let json = try #require(try JSONSerialization.jsonObject(with: Self.jsonPart(of: output)) as? [String: Any])
        #expect(abs((json["duration"] as? Double ?? 0) - Double(Self.minutes * 60)) < 1)
        let segments = try #require(json["segments"] as? [[String: Any]])
        var all = ErrorCounts()
        for (clip, start) in zip(clips, starts) {
            let end = start + clip.durationSeconds
            let text = segments.filter {
                let s = $0["start"] as? Double ?? -1, e = $0["end"] as? Double ?? -1
                return e > start - 1 && s < end + 1
            }.compactMap { $0["text"] as? String }.joined(separator: " ")
            let score = WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en")
            all += score
            #expect(score.rate < 0.5, "\(clip.id) at \(start) s: \"\(text)\" (WER \(score.rate))")
        }
        #expect(all.rate < 0.1, "word error rate over the sentences: \(all.rate)")
        let outside = segments.filter { segment in
            let s = segment["start"] as? Double ?? 0, e = segment["end"] as? Double ?? 0
            return !zip(clips, starts).contains { e > $1 - 1 && s < $1 + $0.durationSeconds + 1 }
        }
        #expect(outside.isEmpty, "text in the silence: \(outside.map { $0["text"] ?? "" })")
    }

    /// Writes 60 minutes of 16 kHz mono: clip i starts at `i · spacing + 10` seconds; returns the starts.
    static func writeRecording(to url: URL, clips: [CorpusItem], spacing: Double) throws -> [Double] {
        let rate = 16_000
        let file = try AVAudioFile(forWriting: url, settings: [AVSampleRateKey: Double(rate)])
        let silence = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(rate))!
        var written = 0, starts: [Double] = []
        func writeSilence(until frame: Int) throws {
            while written < frame {
                silence.frameLength = AVAudioFrameCount(min(rate, frame - written))
                try file.write(from: silence)
                written += Int(silence.frameLength)
            }
        }
        for (i, clip) in clips.enumerated() {
            try writeSilence(until: Int((Double(i) * spacing + 10) * Double(rate)))
            starts.append(Double(written) / Double(rate))
            let samples = try MonoAudio.load(contentsOf: clip.wav16kURL)
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(samples.count))!
            samples.withUnsafeBufferPointer { buffer.floatChannelData![0].update(from: $0.baseAddress!, count: samples.count) }
            buffer.frameLength = AVAudioFrameCount(samples.count)
            try file.write(from: buffer)
            written += samples.count
        }
        try writeSilence(until: minutes * 60 * rate)
        file.close()
        return starts
    }

    /// `VmRSS` of process `pid` every 0.1 s until it ends, sampled on a thread of its own (the test's tasks
    /// may wait long on a busy machine).
    static func residentMemory(of pid: Int32) async -> [(seconds: Double, megabytes: Double)] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var samples: [(seconds: Double, megabytes: Double)] = []
                let began = Date()
                while let megabytes = residentMegabytes(of: pid) {
                    samples.append((Date().timeIntervalSince(began), megabytes))
                    usleep(100_000)
                }
                continuation.resume(returning: samples)
            }
        }
    }

    /// `VmRSS` of a running process, in megabytes (nil once it has ended).
    static func residentMegabytes(of pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes / 1024
    }

    /// The JSON document in the tool's combined output (a log line may precede it on stderr).
    static func jsonPart(of output: Data) -> Data {
        guard let brace = output.firstIndex(of: UInt8(ascii: "{")) else { return output }
        return output[brace...]
    }
}
