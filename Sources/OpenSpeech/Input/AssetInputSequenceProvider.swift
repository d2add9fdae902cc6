import Foundation
import SpeechAssets
import SpeechAudio

/// Reads an audio file or asset as `AnalyzerInput`s in a format the analyzer's modules take, as in Apple's Speech
/// (macOS/iOS 27): pass `analyzerInputs` to `SpeechAnalyzer.analyzeSequence(_:)` or `start(inputSequence:)`.
///
/// Differs from Apple's: an asset here is a local file FFmpeg reads (`AVURLAsset`), with one track, its audio
/// stream; the audio is decoded as the analyzer asks for it (a second at a time, so memory stays flat whatever the
/// length), in the task that iterates, so `priority` is that task's. Inputs carry no times: the file's audio follows
/// whatever the analyzer heard before, as `analyzeSequence(from:)` places a file.
public final class AssetInputSequenceProvider: Sendable {
    private let url: URL
    private let analyzerFormat: AVAudioFormat

    /// A provider of the asset's first audio track, converted to the format the modules take. Throws `AudioError`
    /// for a file that cannot be read and `SFSpeechError` `.incompatibleAudioFormats` for modules that share no
    /// format.
    public static func provider(from asset: AVAsset, compatibleWith modules: [any SpeechModule],
                                priority: TaskPriority? = nil) async throws -> AssetInputSequenceProvider {
        guard let track = try await asset.loadTracks(withMediaType: .audio).first else {
            throw AudioError.noAudioStream(asset.fileURL)
        }
        return try await provider(from: asset, track: track, compatibleWith: modules, priority: priority)
    }

    /// A provider of `track` of `asset` (here always its audio stream), converted to the format the modules take.
    public static func provider(from asset: AVAsset, track: AVAssetTrack, compatibleWith modules: [any SpeechModule],
                                priority: TaskPriority? = nil) async throws -> AssetInputSequenceProvider {
        let format = try await AnalyzerInputConverter.analyzerFormat(compatibleWith: modules)
        return AssetInputSequenceProvider(asset: asset, track: track, analyzerFormat: format, priority: priority)
    }

    /// A provider of `track` of `asset` in `analyzerFormat`. A file that cannot be read fails the sequence.
    public init(asset: AVAsset, track: AVAssetTrack, analyzerFormat: AVAudioFormat, priority: TaskPriority? = nil) {
        url = asset.fileURL
        self.analyzerFormat = analyzerFormat
    }

    /// A new sequence of the asset's audio, from its start, as inputs for an analyzer. It throws `AudioError` when
    /// the file cannot be read or decoded.
    public var analyzerInputs: some Sendable & AsyncSequence<AnalyzerInput, any Error> {
        AssetInputs(url: url, analyzerFormat: analyzerFormat)
    }
}

/// The audio of a file as analyzer inputs, read a second at a time as they are asked for.
struct AssetInputs: AsyncSequence, Sendable {
    typealias Element = AnalyzerInput
    let url: URL
    let analyzerFormat: AVAudioFormat

    func makeAsyncIterator() -> Iterator {
        Iterator(url: url, converter: AnalyzerInputConverter(analyzerFormat: analyzerFormat))
    }

    struct Iterator: AsyncIteratorProtocol {
        let url: URL
        let converter: AnalyzerInputConverter
        /// Opened with the first `next()`, so that an unreadable file fails the sequence, not its creation.
        var file: AVAudioFile?
        var ready: [AnalyzerInput] = []
        var ended = false

        init(url: URL, converter: AnalyzerInputConverter) {
            self.url = url
            self.converter = converter
        }

        mutating func next() async throws -> AnalyzerInput? {
            while ready.isEmpty, !ended {
                try Task.checkCancellation()
                let file = try self.file ?? AVAudioFile(forReading: url)
                self.file = file
                // A new buffer each second: the converter may keep the one it is given.
                let format = file.processingFormat
                guard let chunk = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(format.sampleRate))
                else { throw AudioError.unsupportedConversion(from: "\(format)", to: "a buffer of one second") }
                try file.read(into: chunk)
                if chunk.frameLength == 0 {
                    ended = true
                    ready = try converter.flush()
                } else {
                    ready = try converter.convert(chunk, at: nil)
                }
            }
            return ready.isEmpty ? nil : ready.removeFirst()
        }
    }
}
