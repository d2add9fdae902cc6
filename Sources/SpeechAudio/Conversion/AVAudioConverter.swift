import CFFmpeg
import Foundation
import Synchronization

/// What an input block says about the buffer it returns, as in AVFoundation.
public enum AVAudioConverterInputStatus: Int, Sendable {
    /// The returned buffer holds audio.
    case haveData = 0
    /// No audio now; more may come in a later call.
    case noDataNow = 1
    /// The stream has ended. Unlike Apple's converter, a buffer returned with this status is still converted.
    case endOfStream = 2
}

/// How a conversion call ended, as in AVFoundation.
public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer holds converted audio (it may be less than its capacity only if the input ran dry).
    case haveData = 0
    /// The input block had no data now; the output holds what could be converted.
    case inputRanDry = 1
    /// The input ended and everything, including the resampler's delayed tail, has been delivered.
    case endOfStream = 2
    /// The conversion failed; the error pointer describes why.
    case error = 3
}

/// Priming behaviour of a sample-rate converter, as in AVFoundation. libswresample aligns its output with the
/// input whatever the setting (it neither adds leading frames nor drops trailing ones), so this is kept for
/// source compatibility only: `.none`, which Apple's users set to avoid drift, is the behaviour you get.
public enum AVAudioConverterPrimeMethod: Int, Sendable {
    /// Apple's primes with leading frames only. Here the same as `.none`.
    case pre = 0
    /// Apple's primes with leading and trailing frames. Here the same as `.none`.
    case normal = 1
    /// No priming: the output is aligned with the input, as it always is here.
    case none = 2
}

/// Frames of priming, as in AVFoundation; always zero here (see `AVAudioConverterPrimeMethod`).
public struct AVAudioConverterPrimeInfo: Sendable, Equatable {
    /// Frames the converter would prime before the audio: always 0 here.
    public var leadingFrames: AVAudioFrameCount
    /// Frames the converter would prime after the audio: always 0 here.
    public var trailingFrames: AVAudioFrameCount
    /// Priming information with these frame counts.
    public init(leadingFrames: AVAudioFrameCount, trailingFrames: AVAudioFrameCount) {
        self.leadingFrames = leadingFrames
        self.trailingFrames = trailingFrames
    }
}

/// Supplies input to `AVAudioConverter.convert(to:error:withInputFrom:)`: asked for about `inNumberOfPackets`
/// frames, it sets the status and returns a buffer (or nil).
public typealias AVAudioConverterInputBlock =
    (_ inNumberOfPackets: AVAudioPacketCount,
     _ outStatus: UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?

/// Converts PCM audio between sample types, interleaving, channel counts and sample rates, as in AVFoundation,
/// with libswresample.
///
/// Differences from Apple's: `.endOfStream` returned with a final buffer converts that buffer and then flushes
/// the resampler, so every frame arrives (Apple's drops it, see the seeds' quirk 1); `convert(to:from:)` also
/// resamples, keeping the resampler's state between calls; priming never shifts or drops audio.
///
/// Thread-safe: conversions are serialized by a lock.
public final class AVAudioConverter: Sendable {
    /// The format of the audio the converter takes.
    public let inputFormat: AVAudioFormat
    /// The format of the audio the converter produces.
    public let outputFormat: AVAudioFormat
    private let state: Mutex<State>

    private struct State {
        var resampler: SampleRateConverter
        var ended = false
        var flushed = false
        var primeMethod: AVAudioConverterPrimeMethod = .normal
        var quality: Int = AVAudioQuality.high.rawValue
        var downmix = false
    }

    /// A converter between two PCM formats; nil when either is `.otherFormat`.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard let resampler = Self.makeResampler(from: fromFormat, to: toFormat, quality: AVAudioQuality.high.rawValue)
        else { return nil }
        inputFormat = fromFormat
        outputFormat = toFormat
        state = Mutex(State(resampler: resampler))
    }

    /// Kept for source compatibility; has no effect (see `AVAudioConverterPrimeMethod`).
    public var primeMethod: AVAudioConverterPrimeMethod {
        get { state.withLock { $0.primeMethod } }
        set { state.withLock { $0.primeMethod = newValue } }
    }

    /// Whether to mix the input's channels down to fewer output channels. Kept for source compatibility: ours always
    /// mixes down (averaging the channels, stereo to mono is (L + R) / 2), where Apple's, left `false`, maps
    /// channels instead of mixing them.
    public var downmix: Bool {
        get { state.withLock { $0.downmix } }
        set { state.withLock { $0.downmix = newValue } }
    }

    /// Always zero frames: libswresample does not prime.
    public var primeInfo: AVAudioConverterPrimeInfo {
        get { AVAudioConverterPrimeInfo(leadingFrames: 0, trailingFrames: 0) }
        set {}
    }

    /// Resampling quality (`AVAudioQuality` raw values); higher uses a longer interpolation filter.
    /// Takes effect at the next `reset()`.
    public var sampleRateConverterQuality: Int {
        get { state.withLock { $0.quality } }
        set { state.withLock { $0.quality = newValue } }
    }

    /// Discards buffered audio and the end-of-stream state, ready for an unrelated stream.
    public func reset() {
        state.withLock { state in
            if let fresh = Self.makeResampler(from: inputFormat, to: outputFormat, quality: state.quality) {
                state.resampler = fresh
            }
            state.ended = false
            state.flushed = false
        }
    }

    /// Fills `outputBuffer` (up to its capacity) with converted audio, pulling input from `inputBlock` as needed.
    /// The status may be ignored, as Apple's (an Objective-C method) may.
    @discardableResult
    public func convert(to outputBuffer: AVAudioPCMBuffer, error outError: UnsafeMutablePointer<NSError?>?,
                        withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        do {
            return try convert(to: outputBuffer, withInputFrom: inputBlock)
        } catch {
            outError?.pointee = NSError(domain: "OpenSpeech.AudioError", code: 1,
                                        userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            return .error
        }
    }

    /// Converts all of `inputBuffer` into `outputBuffer`. Output that does not fit stays buffered and comes
    /// first in the next call; resampler state carries over, so a stream converted buffer by buffer matches the
    /// same stream converted at once (but for the tail held back until `convert(to:error:withInputFrom:)` is
    /// told `.endOfStream`).
    public func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        var given = false
        _ = try convert(to: outputBuffer) { _, status in
            if given {
                status.pointee = .noDataNow
                return nil
            }
            given = true
            status.pointee = .haveData
            return inputBuffer
        }
    }

    private func convert(to output: AVAudioPCMBuffer,
                         withInputFrom inputBlock: AVAudioConverterInputBlock) throws -> AVAudioConverterOutputStatus {
        guard output.format == outputFormat else {
            throw AudioError.formatMismatch(expected: outputFormat.description, actual: output.format.description)
        }
        return try state.withLock { state throws -> AVAudioConverterOutputStatus in
            let capacity = Int(output.frameCapacity)
            var produced = 0
            var status = AVAudioConverterOutputStatus.haveData
            while produced < capacity {
                produced += withPlanePointers(output, offset: produced) {
                    state.resampler.drain(into: $0, capacity: capacity - produced)
                }
                if produced >= capacity { break }
                if state.ended {
                    let tail = withPlanePointers(output, offset: produced) {
                        state.resampler.convert(nil, inputFrames: 0, into: $0, capacity: capacity - produced)
                    }
                    produced += tail
                    state.flushed = true
                    if tail == 0 || produced < capacity { status = .endOfStream }
                    break
                }
                let ratio = outputFormat.sampleRate / inputFormat.sampleRate
                let wanted = AVAudioPacketCount(clamping: Int((Double(capacity - produced) / ratio).rounded(.up)))
                var inputStatus = AVAudioConverterInputStatus.noDataNow
                let supplied = inputBlock(wanted, &inputStatus)
                if let supplied, inputStatus != .noDataNow {
                    guard let pcm = supplied as? AVAudioPCMBuffer, pcm.format == inputFormat else {
                        throw AudioError.formatMismatch(expected: inputFormat.description,
                                                        actual: supplied.format.description)
                    }
                    let frames = Int(pcm.frameLength)
                    produced += withPlanePointers(output, offset: produced) { out in
                        withPlanePointers(pcm, offset: 0) { input in
                            input.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 1) {
                                state.resampler.convert($0, inputFrames: frames, into: out, capacity: capacity - produced)
                            }
                        }
                    }
                }
                switch inputStatus {
                case .haveData: continue
                case .endOfStream: state.ended = true
                case .noDataNow:
                    status = produced == 0 ? .inputRanDry : .haveData
                    output.frameLength = AVAudioFrameCount(produced)
                    return status
                }
            }
            output.frameLength = AVAudioFrameCount(produced)
            if state.ended && state.flushed && produced == 0 { status = .endOfStream }
            return status
        }
    }

    private static func makeResampler(from: AVAudioFormat, to: AVAudioFormat, quality: Int) -> SampleRateConverter? {
        guard let inFormat = ffmpegSampleFormat(from.commonFormat, interleaved: from.isInterleaved),
              let outFormat = ffmpegSampleFormat(to.commonFormat, interleaved: to.isInterleaved),
              from.sampleRate <= Double(Int32.max), to.sampleRate <= Double(Int32.max)
        else { return nil }
        // Apple's quality scale (0...127) onto libswresample filter lengths 8...39; `.high` is its default 32.
        let filterLength = Int32(8 + min(max(quality, 0), 127) / 4)
        return SampleRateConverter(
            input: .init(sampleFormat: inFormat, sampleRate: Int32(from.sampleRate.rounded()),
                         channels: Int32(from.channelCount)),
            output: .init(sampleFormat: outFormat, sampleRate: Int32(to.sampleRate.rounded()),
                          channels: Int32(to.channelCount)),
            filterLength: filterLength)
    }
}

/// Quality levels, as in AVFoundation.
public enum AVAudioQuality: Int, Sendable {
    /// The lowest quality: the shortest resampling filter here.
    case min = 0
    /// Low quality.
    case low = 0x20
    /// Medium quality.
    case medium = 0x40
    /// High quality: the converter's default.
    case high = 0x60
    /// The highest quality: the longest resampling filter here.
    case max = 0x7F
}
