import Foundation
import OpenSpeech
import TestSupport

/// Points the library at the test model store and installs the English models once.
enum TestEnvironment {
    static let english = Locale(identifier: "en-US")

    /// Call first in every test that transcribes: English's default (Moonshine) and the Whisper model English
    /// requests with an initial prompt or alternatives run, both installed whatever ran before.
    static func ready() async throws {
        setenv("OPENSPEECH_HOME", TestModels.home.path, 1)
        _ = try await TestModels.directory(for: "moonshine-base-en")
        _ = try await TestModels.directory(for: "whisper-tiny.en")
    }

    /// Options for a test that runs one analyzer after another on the same model: it stays loaded between them
    /// (`.lingering`), as an app transcribing utterance after utterance would ask, instead of loading again for each.
    static let backToBack = SpeechAnalyzer.Options(priority: .medium, modelRetention: .lingering)

    /// The corpus clips of a subset.
    static func clips(_ subset: String) -> [CorpusItem] { Corpus.items.filter { $0.subset == subset } }

    /// 16 kHz mono Float32 buffers of `seconds` each holding a clip's audio.
    static func buffers(of url: URL, seconds: Double = 0.1) throws -> [AVAudioPCMBuffer] {
        let samples = try MonoAudio.load(contentsOf: url)
        let size = Int(16_000 * seconds)
        return stride(from: 0, to: samples.count, by: size).map { start in
            let count = min(size, samples.count - start)
            let buffer = AVAudioPCMBuffer(pcmFormat: MonoAudio.format(), frameCapacity: AVAudioFrameCount(count))!
            samples.withUnsafeBufferPointer {
                buffer.floatChannelData![0].update(from: $0.baseAddress! + start, count: count)
            }
            buffer.frameLength = AVAudioFrameCount(count)
            return buffer
        }
    }
}
