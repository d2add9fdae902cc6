import ArgumentParser
import Foundation
import SpeechAudio

/// `openspeech audio-info FILE...`: what each file holds, decoded end to end to give the exact duration (of the
/// audio present, for a file cut short, which it says).
struct AudioInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio-info",
        abstract: "Show container, codec, sample rate, channels and exact duration of audio files.")

    @Argument(help: "Audio or video files.", completion: .file())
    var files: [String]

    @Flag(help: "Print one JSON object per file instead of text.")
    var json = false

    func run() throws {
        var failures = 0
        for path in files {
            do {
                let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
                let info = file.sourceInfo!
                let (frames, truncation) = try file.measuredLength()
                let seconds = Double(frames) / file.fileFormat.sampleRate
                if json {
                    var object: [String: Any] = [
                        "file": path, "container": info.container, "codec": info.codec,
                        "sample_rate": Int(info.sampleRate), "channels": Int(info.channelCount),
                        "frames": frames, "duration": seconds, "truncated": truncation != nil,
                    ]
                    if let truncation { object["declared_duration"] = truncation.declaredDuration }
                    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    print(String(decoding: data, as: UTF8.self))
                } else {
                    let bits = info.bitsPerSample.map { ", \($0)-bit" } ?? ""
                    print("\(path): \(info.container), \(info.codec)\(bits), \(Int(info.sampleRate)) Hz, "
                          + "\(info.channelCount) channel\(info.channelCount == 1 ? "" : "s"), "
                          + String(format: "%.3f s (%lld frames)", seconds, frames)
                          + (truncation.map { String(format: "; truncated: its header declares %.3f s", $0.declaredDuration) } ?? ""))
                }
            } catch {
                failures += 1
                FileHandle.standardError.write(Data("openspeech: \(error)\n".utf8))
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }
}
