import Foundation

/// The kind of media a track holds, as AVFoundation's `AVMediaType`.
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    /// The media type's four-character code, such as `soun`.
    public let rawValue: String
    /// A media type with this code.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A media type with this code.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    /// Audio; the only kind of track OpenSpeech's assets list.
    public static let audio = AVMediaType("soun")
    /// Video. OpenSpeech's assets list no video tracks.
    public static let video = AVMediaType("vide")
}

/// A property of an asset that is loaded asynchronously, as AVFoundation's `AVAsyncProperty`: pass it to
/// `AVAsset.load(_:)`, as in `try await asset.load(.duration)`.
public struct AVAsyncProperty<Root, Value>: Sendable {
    let read: @Sendable (AVAsset) throws -> Value
}

extension AVAsyncProperty where Root == AVAsset, Value == CMTime {
    /// The duration the container declares; the decoded length where it declares none.
    public static var duration: AVAsyncProperty<AVAsset, CMTime> { .init { try $0.measuredDuration() } }
}

extension AVAsyncProperty where Root == AVAsset, Value == Bool {
    /// Whether the asset has audio that can be decoded.
    public static var isPlayable: AVAsyncProperty<AVAsset, Bool> { .init { $0.audioInfo() != nil } }
    /// Whether the asset's audio can be exported with `AVAssetExportSession`.
    public static var isExportable: AVAsyncProperty<AVAsset, Bool> { .init { $0.audioInfo() != nil } }
    /// Whether the asset's media can be read.
    public static var isReadable: AVAsyncProperty<AVAsset, Bool> { .init { $0.audioInfo() != nil } }
}

extension AVAsyncProperty where Root == AVAsset, Value == [AVAssetTrack] {
    /// The asset's tracks: its first audio track (OpenSpeech reads one audio stream per file).
    public static var tracks: AVAsyncProperty<AVAsset, [AVAssetTrack]> {
        .init { asset in try [AVAssetTrack(asset: asset, info: asset.readableInfo())] }
    }
}

/// Timed audio and video, as AVFoundation's `AVAsset`; on Linux only the audio of files (`AVURLAsset`), read with
/// FFmpeg. `@unchecked Sendable`: its only state is the immutable URL.
public class AVAsset: NSObject, @unchecked Sendable {
    package let fileURL: URL

    init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// Loads a property: `try await asset.load(.duration)`. Throws `AudioError` for a file that cannot be read.
    public func load<T>(_ property: AVAsyncProperty<AVAsset, T>) async throws -> T {
        try await offCooperativePool { try property.read(self) }
    }

    /// Loads two properties: `let (duration, tracks) = try await asset.load(.duration, .tracks)`.
    public func load<A, B>(_ first: AVAsyncProperty<AVAsset, A>, _ second: AVAsyncProperty<AVAsset, B>) async throws -> (A, B) {
        (try await load(first), try await load(second))
    }

    /// The tracks of one media type.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try await load(.tracks).filter { $0.mediaType == mediaType }
    }

    /// The duration, read synchronously (deprecated by Apple in favour of `load(.duration)`); `.invalid` for a file
    /// that cannot be read.
    public var duration: CMTime { (try? measuredDuration()) ?? .invalid }

    func readableInfo() throws -> AudioSourceInfo {
        try FFmpegAudioDecoder(url: fileURL).info
    }

    func audioInfo() -> AudioSourceInfo? { try? readableInfo() }

    func measuredDuration() throws -> CMTime {
        let info = try readableInfo()
        let frames = try info.declaredFrames ?? DecodedAudioReader(url: fileURL).skipToEnd()
        return CMTime(value: frames, timescale: CMTimeScale(info.sampleRate.rounded()))
    }
}

/// An asset at a URL, as AVFoundation's `AVURLAsset`: a local audio or video file (any container FFmpeg reads).
public final class AVURLAsset: AVAsset, @unchecked Sendable {
    /// Options are accepted and ignored (they concern network loading and precise timing, which a local file
    /// read by FFmpeg has).
    public init(url URL: URL, options: [String: any Sendable]? = nil) {
        super.init(fileURL: URL)
    }

    /// The asset's URL.
    public var url: URL { fileURL }
}

/// A track of an asset, as AVFoundation's `AVAssetTrack`: here, its audio stream.
public final class AVAssetTrack: NSObject, Sendable {
    /// The kind of media in the track: always `.audio` here.
    public let mediaType: AVMediaType
    /// The track's identifier in the asset: always 1 here, the audio stream FFmpeg decodes.
    public let trackID: Int32
    /// Samples per second of the audio.
    public let naturalTimeScale: CMTimeScale
    /// The encoded bit rate in bits per second, as the stream (else the container) declares it; 0 when neither does.
    public let estimatedDataRate: Float
    /// Channels of the audio (not in Apple's API, where it comes from the format description).
    public let channelCount: AVAudioChannelCount

    init(asset: AVAsset, info: AudioSourceInfo) {
        mediaType = .audio
        trackID = 1
        naturalTimeScale = CMTimeScale(info.sampleRate.rounded())
        estimatedDataRate = Float(info.bitRate ?? 0)
        channelCount = info.channelCount
    }
}
