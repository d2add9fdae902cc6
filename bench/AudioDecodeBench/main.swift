// Decode + resample to 16 kHz mono Float32: OpenSpeech (`MonoAudio.load`) against the ffmpeg command-line
// tool doing the same work, in the same run, on the same files. Usage: audio-decode-bench [FILE...]
// Without files it makes a 30-minute recording from the corpus's long-form item in FLAC, MP3 and AAC at
// 44.1 kHz stereo. Prints a table and writes bench/results/audio-decode.json.
import Foundation
import SpeechAudio

func run(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CocoaError(.executableLoad) }
}

/// The best of `repeats` wall-clock timings of `body`, in seconds.
func bestTime(repeats: Int = 3, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return best
}

let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let corpus = ProcessInfo.processInfo.environment["OPENSPEECH_CORPUS"].map { URL(fileURLWithPath: $0) }
    ?? repository.deletingLastPathComponent().appendingPathComponent("shared/corpus")

var files = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
if files.isEmpty {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openspeech-audio-bench")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let longform = corpus.appendingPathComponent("audio/ls-other-chapter-7902-96592.flac")
    for (name, codec) in [("long-44k-stereo.flac", ["-c:a", "flac"]), ("long-44k-stereo.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
                          ("long-44k-stereo.m4a", ["-c:a", "aac", "-b:a", "128k"])] {
        let output = folder.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: output.path) {
            FileHandle.standardError.write(Data("making \(name)...\n".utf8))
            try run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-stream_loop", "6", "-i", longform.path,
                     "-ar", "44100", "-ac", "2"] + codec + [output.path])
        }
        files.append(output)
    }
}

print("file                      audio s   OpenSpeech xRT   ffmpeg CLI xRT   ratio")
var rows: [[String: Any]] = []
for file in files {
    var samples = 0
    let ours = try bestTime { samples = try MonoAudio.load(contentsOf: file).count }
    let seconds = Double(samples) / 16_000
    let theirs = try bestTime {
        try run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-threads", "1", "-i", file.path,
                 "-ac", "1", "-ar", "16000", "-f", "f32le", "-y", "/dev/null"])
    }
    let row: [String: Any] = ["file": file.lastPathComponent, "audio_seconds": seconds,
                              "openspeech_rtfx": seconds / ours, "ffmpeg_cli_rtfx": seconds / theirs,
                              "ratio": theirs / ours]
    rows.append(row)
    let name = file.lastPathComponent.padding(toLength: 24, withPad: " ", startingAt: 0)
    print(name + String(format: " %8.1f %16.0f %16.0f %7.2f", seconds, seconds / ours, seconds / theirs, theirs / ours))
}
let results = repository.appendingPathComponent("bench/results")
try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
try JSONSerialization.data(withJSONObject: ["audio_decode": rows], options: [.prettyPrinted, .sortedKeys])
    .write(to: results.appendingPathComponent("audio-decode.json"))
