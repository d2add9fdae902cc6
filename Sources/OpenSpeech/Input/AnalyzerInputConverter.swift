import Foundation
import SpeechAssets
import SpeechAudio

/// Converts audio buffers to a format the analyzer's modules take, as `AnalyzerInput`s, as in Apple's Speech
/// (macOS/iOS 27).
///
/// Give it buffers in any PCM format, in order; formats may change from one buffer to the next. A buffer already in
/// the analyzer's format passes through unchanged; others are resampled and mixed down with an `AVAudioConverter`
/// kept between buffers, so the output is the same however the audio is cut. Resampling holds back a few samples
/// until the next buffer: call `flush()` after the last one, or the end of the audio is lost.
///
/// Times: a buffer given without a time follows the previous one (the first starts at zero); a buffer whose time
/// says it starts elsewhere (skipped audio) gets that time as its first input's `bufferStartTime`. A sample time is
/// read at its rate; a host time alone is read against the first host time given (OpenSpeech's reading: Apple's
/// documentation does not say). Use it from one task at a time.
public final class AnalyzerInputConverter {
    private let analyzerFormat: AVAudioFormat
    private let configurationHandler: ((AVAudioConverter) -> Void)?
    private var timeline = InputTimeline()
    /// The converter for the current input format; nil while buffers arrive in the analyzer's format.
    private var converter: AVAudioConverter?
    /// A time to give the next input made, after skipped audio.
    private var pendingStart: CMTime?

    /// A converter to the format the modules take (`SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith:)`).
    /// Throws `SFSpeechError` `.noModel` when a module's model is not installed (the format is known only then) and
    /// `.incompatibleAudioFormats` when the modules share no format.
    public static func converter(compatibleWith modules: [any SpeechModule]) async throws -> AnalyzerInputConverter {
        AnalyzerInputConverter(analyzerFormat: try await analyzerFormat(compatibleWith: modules))
    }

    /// The format the modules take, or a typed error saying why there is none.
    static func analyzerFormat(compatibleWith modules: [any SpeechModule]) async throws -> AVAudioFormat {
        if let format = await SpeechAnalyzer.bestAvailableAudioFormat(compatibleWith: modules) { return format }
        if await AssetInventory.status(forModules: modules) != .installed {
            throw SFSpeechError(.noModel, "A module's model is not installed, so the audio format it takes is not "
                + "known yet. Install it first: AssetInventory.assetInstallationRequest(supporting:) and "
                + "downloadAndInstall(), or `openspeech models install`.")
        }
        throw SFSpeechError(.incompatibleAudioFormats, "The modules take no audio format in common, so audio "
            + "cannot be converted for all of them. Analyze with modules that share a format "
            + "(every OpenSpeech module takes 16 kHz mono Float32).")
    }

    /// A converter to `analyzerFormat`. `configurationHandler` is called with each `AVAudioConverter` made (one per
    /// input format), before it converts anything: to set its quality, for example.
    public init(analyzerFormat: AVAudioFormat, configurationHandler: ((AVAudioConverter) -> Void)? = nil) {
        self.analyzerFormat = analyzerFormat
        self.configurationHandler = configurationHandler
    }

    /// Converts `buffer` (a PCM buffer), which starts at `audioTime` (nil: right after the previous buffer, or at
    /// zero for the first). Returns the inputs ready so far: some of this buffer's audio may come with the next
    /// call or with `flush()`. The buffer may be kept until then: do not reuse it. Throws `SFSpeechError`
    /// `.unexpectedAudioFormat` for audio that cannot be converted.
    public func convert(_ buffer: AVAudioBuffer, at audioTime: AVAudioTime?) throws -> [AnalyzerInput] {
        guard let buffer = buffer as? AVAudioPCMBuffer else {
            throw SFSpeechError(.unexpectedAudioFormat, "Only PCM buffers (AVAudioPCMBuffer) can be converted for "
                + "analysis; \(buffer.format) is not PCM. Decode compressed audio first, or read the file with "
                + "AVAudioFile or AssetInputSequenceProvider.")
        }
        let placement = timeline.place(audioTime, frames: buffer.frameLength, sampleRate: buffer.format.sampleRate)
        // Audio held back from another format, or from before skipped audio, goes first.
        var inputs = converter?.inputFormat != buffer.format || placement != .contiguous ? try flush() : []
        if case .startsAt(let seconds) = placement {
            pendingStart = CMTime(seconds: seconds, preferredTimescale: CMTimeScale(analyzerFormat.sampleRate.rounded()))
        }
        guard buffer.frameLength > 0 else { return inputs }
        if buffer.format == analyzerFormat {
            inputs.append(input(buffer))
            return inputs
        }
        let converter = try self.converter ?? makeConverter(from: buffer.format)
        self.converter = converter
        inputs += try run(converter, frames: Int(buffer.frameLength), supplying: buffer)
        return inputs
    }

    /// Converts the audio held back: the end of what was given. Call it after the last buffer; conversion may go
    /// on afterwards, continuing the timeline.
    public func flush() throws -> [AnalyzerInput] {
        guard let converter else { return [] }
        self.converter = nil
        return try run(converter, frames: 0, supplying: nil)
    }

    /// Runs `converter` on `buffer` (nil: the end of the stream) until it has nothing more to give.
    private func run(_ converter: AVAudioConverter, frames: Int, supplying buffer: AVAudioPCMBuffer?) throws
        -> [AnalyzerInput] {
        let ratio = analyzerFormat.sampleRate / converter.inputFormat.sampleRate
        let capacity = AVAudioFrameCount(min(Double(frames) * ratio + 256, Double(AVAudioFrameCount.max / 2)))
        var inputs: [AnalyzerInput] = []
        var supplied = false
        while true {
            guard let output = AVAudioPCMBuffer(pcmFormat: analyzerFormat, frameCapacity: capacity) else {
                throw SFSpeechError(.unexpectedAudioFormat, "Cannot make a buffer of \(analyzerFormat).")
            }
            var failure: NSError?
            let status = converter.convert(to: output, error: &failure) { _, status in
                if let buffer, !supplied {
                    supplied = true
                    status.pointee = .haveData
                    return buffer
                }
                status.pointee = buffer == nil ? .endOfStream : .noDataNow
                return nil
            }
            if status == .error {
                throw SFSpeechError(.unexpectedAudioFormat, "Cannot convert \(converter.inputFormat) to "
                    + "\(analyzerFormat): \(failure?.localizedDescription ?? "the converter failed").")
            }
            if output.frameLength > 0 { inputs.append(input(output)) }
            // A full output buffer may leave more behind; anything less means the converter has given all it can.
            if output.frameLength < output.frameCapacity || status == .endOfStream { return inputs }
        }
    }

    private func makeConverter(from format: AVAudioFormat) throws -> AVAudioConverter {
        guard let converter = AVAudioConverter(from: format, to: analyzerFormat) else {
            throw SFSpeechError(.unexpectedAudioFormat, "Cannot convert \(format) to \(analyzerFormat). Give "
                + "buffers of integer or floating-point PCM.")
        }
        configurationHandler?(converter)
        return converter
    }

    /// An input of `buffer`, carrying the time of skipped audio if one is due.
    private func input(_ buffer: AVAudioPCMBuffer) -> AnalyzerInput {
        defer { pendingStart = nil }
        return AnalyzerInput(buffer: buffer, bufferStartTime: pendingStart)
    }
}
