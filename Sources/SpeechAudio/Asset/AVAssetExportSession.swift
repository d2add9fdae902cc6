import Foundation
import Synchronization

/// A file type, as AVFoundation's `AVFileType` (a uniform type identifier).
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    /// The file type's uniform type identifier.
    public let rawValue: String
    /// A file type with this identifier.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A file type with this identifier.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// An MPEG-4 audio file (.m4a).
    public static let m4a = AVFileType("com.apple.m4a-audio")
    /// An MPEG-4 file (.mp4).
    public static let mp4 = AVFileType("public.mpeg-4")
    /// A WAVE file (.wav).
    public static let wav = AVFileType("com.microsoft.waveform-audio")
    /// A Core Audio Format file (.caf).
    public static let caf = AVFileType("com.apple.coreaudio-format")
    /// An AIFF file (.aiff).
    public static let aiff = AVFileType("public.aiff-audio")
    /// A QuickTime movie (.mov).
    public static let mov = AVFileType("com.apple.quicktime-movie")
}

/// AAC audio in an .m4a file.
public let AVAssetExportPresetAppleM4A = "AVAssetExportPresetAppleM4A"
/// The best quality (AAC at 256 kbit/s per stereo pair here).
public let AVAssetExportPresetHighestQuality = "AVAssetExportPresetHighestQuality"
/// Medium quality (AAC at 128 kbit/s).
public let AVAssetExportPresetMediumQuality = "AVAssetExportPresetMediumQuality"
/// Low quality (AAC at 64 kbit/s).
public let AVAssetExportPresetLowQuality = "AVAssetExportPresetLowQuality"
/// Copying the media without re-encoding: not supported here (`init?(asset:presetName:)` returns nil).
public let AVAssetExportPresetPassthrough = "AVAssetExportPresetPassthrough"

/// Converts an asset's audio to another file, as AVFoundation's `AVAssetExportSession`: decoded with FFmpeg and
/// encoded as AAC in .m4a (or .mp4), optionally a time range of it. Written to a temporary file renamed into
/// place, so a failed or cancelled export leaves the destination as it was. Export runs off Swift's cooperative
/// pool. Video is not exported.
public final class AVAssetExportSession: Sendable {
    /// The progress of an export, as Apple's `AVAssetExportSession.Status`.
    public enum Status: Int, Sendable {
        /// The export has not started.
        case unknown = 0
        /// The export is waiting to start.
        case waiting = 1
        /// The export is running.
        case exporting = 2
        /// The file was written.
        case completed = 3
        /// The export failed; `error` says why.
        case failed = 4
        /// The export was cancelled.
        case cancelled = 5
    }

    private struct State {
        var outputURL: URL?
        var outputFileType: AVFileType?
        var timeRange = CMTimeRange(start: .zero, duration: .positiveInfinity)
        var shouldOptimizeForNetworkUse = false
        var status = Status.unknown
        var error: (any Error)?
        var progress: Float = 0
        var cancelled = false
    }

    /// The asset whose audio is exported.
    public let asset: AVAsset
    /// The preset the session was created with, which sets the AAC bit rate.
    public let presetName: String
    private let bitRatePerChannel: Int
    private let state = Mutex(State())

    /// A session exporting `asset` with a preset; nil for a preset this platform cannot export (passthrough).
    public init?(asset: AVAsset, presetName: String) {
        let rates = [AVAssetExportPresetAppleM4A: 64_000, AVAssetExportPresetHighestQuality: 128_000,
                     AVAssetExportPresetMediumQuality: 64_000, AVAssetExportPresetLowQuality: 32_000]
        guard let rate = rates[presetName] else { return nil }
        self.asset = asset
        self.presetName = presetName
        bitRatePerChannel = rate
    }

    /// The presets that can export `asset`.
    public class func exportPresets(compatibleWith asset: AVAsset) -> [String] {
        [AVAssetExportPresetAppleM4A, AVAssetExportPresetHighestQuality, AVAssetExportPresetMediumQuality,
         AVAssetExportPresetLowQuality]
    }

    /// The file types this preset writes.
    public var supportedFileTypes: [AVFileType] { presetName == AVAssetExportPresetAppleM4A ? [.m4a] : [.m4a, .mp4] }

    /// Where the exported file is written; must be set before exporting.
    public var outputURL: URL? {
        get { state.withLock(\.outputURL) }
        set { state.withLock { $0.outputURL = newValue } }
    }
    /// The type of file to write, one of `supportedFileTypes`; must be set before exporting.
    public var outputFileType: AVFileType? {
        get { state.withLock(\.outputFileType) }
        set { state.withLock { $0.outputFileType = newValue } }
    }
    /// The part of the asset to export (default: all of it).
    public var timeRange: CMTimeRange {
        get { state.withLock(\.timeRange) }
        set { state.withLock { $0.timeRange = newValue } }
    }
    /// Accepted; MP4-family files are written with their index at the end.
    public var shouldOptimizeForNetworkUse: Bool {
        get { state.withLock(\.shouldOptimizeForNetworkUse) }
        set { state.withLock { $0.shouldOptimizeForNetworkUse = newValue } }
    }
    /// Where the export is: unknown before it starts, then exporting, then completed, failed or cancelled.
    public var status: Status { state.withLock(\.status) }
    /// Why the export failed.
    public var error: (any Error)? { state.withLock(\.error) }
    /// The fraction exported, 0 to 1.
    public var progress: Float { state.withLock(\.progress) }

    /// Exports to `outputURL` as `outputFileType` on a background thread, then calls `handler` (check `status`).
    public func exportAsynchronously(completionHandler handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.status = .waiting }
        DispatchQueue.global().async { [self] in
            run()
            handler()
        }
    }

    /// Exports to `outputURL` as `outputFileType`; check `status` and `error` after.
    public func export() async {
        await withCheckedContinuation { continuation in
            exportAsynchronously { continuation.resume() }
        }
    }

    /// Exports to `url` as `fileType`; throws the reason when the export fails, `CancellationError` when cancelled.
    public func export(to url: URL, as fileType: AVFileType) async throws {
        outputURL = url
        outputFileType = fileType
        await export()
        switch status {
        case .completed: return
        case .cancelled: throw CancellationError()
        default: throw error ?? AudioError.writeFailed(url, detail: "the export failed")
        }
    }

    /// Stops an export in progress; `status` becomes `.cancelled` and no file is left behind.
    public func cancelExport() {
        state.withLock { $0.cancelled = true }
    }

    private func run() {
        let (url, type, range) = state.withLock { state in
            state.status = .exporting
            return (state.outputURL, state.outputFileType, state.timeRange)
        }
        do {
            guard let url else { throw AudioError.invalidSettings("set outputURL before exporting") }
            guard let type, supportedFileTypes.contains(type) else {
                throw AudioError.invalidSettings("\(presetName) writes \(supportedFileTypes.map(\.rawValue).joined(separator: " or ")); "
                    + "set outputFileType to one of them")
            }
            try encode(to: url, container: type == .mp4 ? "mp4" : "ipod", range: range)
            state.withLock { state in
                state.status = state.cancelled ? .cancelled : .completed
                state.progress = state.cancelled ? state.progress : 1
            }
        } catch {
            state.withLock { state in
                state.status = .failed
                state.error = error
            }
        }
    }

    /// Decodes the asset's audio within `range` and encodes it; returns early (writing nothing) when cancelled.
    private func encode(to url: URL, container: String, range: CMTimeRange) throws {
        let info = try asset.readableInfo()
        let aacRates: Set<Double> = [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000, 64_000, 88_200, 96_000]
        let rate = aacRates.contains(info.sampleRate) ? info.sampleRate : 48_000
        let channels = min(max(Int(info.channelCount), 1), 2)
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: AVAudioChannelCount(channels))!
        let reader = try DecodedAudioReader(url: asset.fileURL, outputFormat: format)
        let encoder = try FFmpegAudioEncoder(url: url, settings: .init(container: container, sampleRate: Int(rate),
                                                                        channels: channels, bitRate: bitRatePerChannel * channels))
        let start = range.start.isNumeric ? max(0, Int64((range.start.seconds * rate).rounded())) : 0
        let end = range.duration.isNumeric ? start + Int64((range.duration.seconds * rate).rounded()) : Int64.max
        let total = info.declaredFrames.map { Double($0) * rate / info.sampleRate } ?? 0
        let chunk = 32_768
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(chunk))!
        var position: Int64 = 0
        while position < end {
            if state.withLock(\.cancelled) { return }
            let count = try reader.read(into: buffer, at: 0, frameCount: chunk)
            if count == 0 { break }
            let from = Int(max(0, start - position)), to = Int(min(Int64(count), end - position))
            if to > from {
                let planes = (0..<channels).map { UnsafePointer(buffer.floatChannelData![$0] + from) }
                try encoder.write(planes, count: to - from)
            }
            position += Int64(count)
            if total > 0 { state.withLock { $0.progress = Float(min(1, Double(position) / total)) } }
            if count < chunk { break }
        }
        try encoder.finish()
    }
}
