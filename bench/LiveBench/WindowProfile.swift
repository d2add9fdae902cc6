// `live-bench window`: what one volatile step costs. Each clip of the latency run is decoded as volatile mode decodes
// its window (greedy, word times, no fallback) at growing lengths (its first 1, 2.5, 4 ... seconds, and whole), with
// the encoder over the padded 30 s (as agreement decodings, whose words become finals) and over the window's audio
// and three seconds of padding rounded up to whole seconds (as previews: `PreviewDecoding`; without its token cap
// and loop cut, so a looping decoding costs its full length here), in float32 and int8.
// Prints wall and process CPU time per decoding by window length, the encoder's share, and how far each shortened
// decoding's words are from the full one's at the same length (WER against it), and each configuration's WER over
// the whole clips against the references.
import Foundation
import OpenSpeech
import SpeechEngine
import SpeechEvaluation
import TestSupport

/// CPU seconds of the whole process (all threads).
func processCPUSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

func wallSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

/// Encoder positions for a preview of `samples` samples with `padding` positions after the audio (`PreviewDecoding`'s
/// rule).
func previewPositions(samples: Int, padding: Int) -> Int {
    var decoding = PreviewDecoding()
    decoding.paddingPositions = padding
    return decoding.positions(forSamples: samples)
}

/// One greedy pass at temperature 0 with word times, as the live path's decodings run here.
let greedyWithWords: TranscriptionOptions = {
    var options = TranscriptionOptions()
    options.beamSize = 1
    options.bestOf = 1
    options.wordTimestamps = true
    options.temperatures = [0]
    return options
}()

func runWindowProfile(clips: [CorpusItem], modelDirectory: URL) throws {
    let audios = try clips.map { try MonoAudio.load(contentsOf: $0.wav16kURL) }
    print("window profile: whisper-tiny.en, greedy, word times; load average at start \(loadAverage())")
    print("config | window s | decodings | wall ms (median) | CPU ms (median) | encoder share | words off vs full (WER)")
    var wholeTexts: [String: [String]] = [:]
    // LIVE_BENCH_PADDINGS: the preview paddings to try, in encoder positions (default "150", `PreviewDecoding`'s).
    let paddings = (ProcessInfo.processInfo.environment["LIVE_BENCH_PADDINGS"] ?? "150").split(separator: ",").compactMap { Int($0) }
    for type in [ComputeType.float32, .auto] {
        let model = try WhisperModel(directory: modelDirectory, computeType: type)
        let session = WhisperSession(model: model, maxBeams: 1)
        let options = greedyWithWords
        for padding in [nil] + paddings.map(Optional.some) {
            let short = padding != nil
            let name = "\(type.resolved)\(padding.map { " short \($0)" } ?? " full")"
            // Bins by window length: ≤ 5 s, 5–10 s, > 10 s.
            var walls: [[Double]] = [[], [], []], cpus: [[Double]] = [[], [], []], encoder: [Double] = [0, 0, 0]
            var errors = [ErrorCounts(), ErrorCounts(), ErrorCounts()]
            var fullTexts: [String: String] = [:]
            for (index, audio) in audios.enumerated() {
                var lengths = Array(stride(from: 16_000, to: audio.count, by: 24_000))
                lengths.append(audio.count)
                for length in lengths {
                    let window = Array(audio.prefix(length))
                    let bin = length <= 80_000 ? 0 : length <= 160_000 ? 1 : 2
                    StageTimes.reset()
                    let wall = wallSeconds(), cpu = processCPUSeconds()
                    let segments = try session.decodeWindow(
                        samples: window, previousTokens: [], timeOffset: 0, options: options,
                        encodedPositions: padding.map { previewPositions(samples: length, padding: $0) })
                    let elapsed = wallSeconds() - wall
                    walls[bin].append(elapsed)
                    cpus[bin].append(processCPUSeconds() - cpu)
                    encoder[bin] += StageTimes.seconds.first { $0.stage == .encoder }?.seconds ?? 0
                    let text = segments.map(\.text).joined()
                    let key = "\(index)/\(length)"
                    if short, let full = wholeTexts["\(type.resolved) full"]?.first(where: { $0.hasPrefix(key + "|") }) {
                        errors[bin] = errors[bin] + WordErrorRate.score(
                            reference: String(full.dropFirst(key.count + 1)), hypothesis: text, language: "en")
                    }
                    fullTexts[key] = text
                    if length == audio.count { wholeTexts[name + " whole", default: []].append(text) }
                }
            }
            wholeTexts[name] = fullTexts.map { "\($0.key)|\($0.value)" }
            for bin in 0..<3 where !walls[bin].isEmpty {
                let label = ["≤ 5", "5–10", "> 10"][bin]
                let share = encoder[bin] / walls[bin].reduce(0, +)
                print(String(format: "%@ | %@ | %d | %.0f | %.0f | %.0f %% | %@", name, label, walls[bin].count,
                             percentile(walls[bin], 0.5) * 1000, percentile(cpus[bin], 0.5) * 1000, share * 100,
                             short ? String(format: "%.1f %%", errors[bin].rate * 100) : "-"))
            }
        }
    }
    print("whole clips' WER against the references (\(clips.count) clips):")
    for (name, texts) in wholeTexts.sorted(by: { $0.key < $1.key }) where name.hasSuffix(" whole") {
        var counts = ErrorCounts()
        for (clip, text) in zip(clips, texts) {
            counts = counts + WordErrorRate.score(reference: clip.transcript, hypothesis: text, language: "en")
        }
        print(String(format: "  %@: %.2f %%", name, counts.rate * 100))
    }
    print("load average at end \(loadAverage()); StageTimes need OPENSPEECH_STAGE_TIMES=1 for the encoder share")
}

/// `live-bench window-text`: each clip whole, with the encoder over the padded 30 s and over the audio and a padding
/// of 1, 2 or 5 s (a look at what shortening does to the words).
func runWindowText(clips: [CorpusItem], modelDirectory: URL) throws {
    let model = try WhisperModel(directory: modelDirectory)
    let session = WhisperSession(model: model, maxBeams: 1)
    let options = greedyWithWords
    for clip in clips {
        let audio = try MonoAudio.load(contentsOf: clip.wav16kURL)
        for length in stride(from: 16_000, to: audio.count, by: 24_000) {
            let window = Array(audio.prefix(length))
            let full = try session.decodeWindow(samples: window, previousTokens: [], timeOffset: 0, options: options)
                .map(\.text).joined()
            let short = try session.decodeWindow(samples: window, previousTokens: [], timeOffset: 0, options: options,
                                                 encodedPositions: previewPositions(samples: length, padding: 150))
                .map(\.text).joined()
            guard short != full else { continue }
            print("\(clip.id) first \(Double(length) / 16_000) s\n  full:  \(full)\n  short: \(short.prefix(300))")
        }
    }
}
