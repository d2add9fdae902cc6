import CFFmpeg
import Foundation

/// What the container and codec of an audio file say about its first audio stream.
public struct AudioSourceInfo: Sendable, Hashable {
    /// FFmpeg's short name of the container, e.g. "wav", "flac", "mp3", "mp4", "m4a", "ogg", "matroska", "webm".
    public let container: String
    /// FFmpeg's short name of the codec, e.g. "pcm_s16le", "flac", "mp3", "aac", "vorbis", "opus".
    public let codec: String
    /// The stream's sample rate in hertz.
    public let sampleRate: Double
    /// The stream's channel count.
    public let channelCount: AVAudioChannelCount
    /// The decoder's native sample type, `.otherFormat` for types with no AVFoundation equivalent.
    public let sampleFormat: AVAudioCommonFormat
    /// Bits per sample as stored (PCM, FLAC), when the codec has such a notion.
    public let bitsPerSample: Int?
    /// Whether the codec is uncompressed PCM.
    public let isPCM: Bool
    /// The duration the container declares, in frames at `sampleRate`, when it declares one.
    public let declaredFrames: Int64?
    /// The encoded bit rate in bits per second: the stream's, else the container's; nil when neither says.
    public let bitRate: Int64?
}

/// Demuxes and decodes the first audio stream of a file with FFmpeg, one decoded frame at a time.
/// Not thread-safe: one owner at a time.
final class FFmpegAudioDecoder {
    let url: URL
    let info: AudioSourceInfo
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private let streamIndex: Int32
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var demuxerEnded = false
    private var decoderEnded = false
    private var rejectedPackets = 0
    private var decodedAnyFrame = false

    init(url: URL) throws(AudioError) {
        try FFmpegError.prepare()
        self.url = url
        try Self.checkFileExists(url)

        var context: UnsafeMutablePointer<AVFormatContext>?
        let openStatus = avformat_open_input(&context, "file:" + url.path, nil, nil)
        guard openStatus >= 0, let context else {
            throw .unrecognizedFormat(url, detail: FFmpegError.message(openStatus))
        }
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        var codecContext: UnsafeMutablePointer<AVCodecContext>?
        var ownedContext: UnsafeMutablePointer<AVFormatContext>? = context
        func cleanUp() {
            av_packet_free(&packet)
            av_frame_free(&frame)
            avcodec_free_context(&codecContext)
            avformat_close_input(&ownedContext)
        }
        let streamInfoStatus = avformat_find_stream_info(context, nil)
        let containerName = String(cString: context.pointee.iformat.pointee.name)
        guard streamInfoStatus >= 0 else {
            cleanUp()
            throw .unrecognizedFormat(url, detail: FFmpegError.message(streamInfoStatus))
        }
        if containerName == "tty" { // FFmpeg reads any text as ANSI art; that is not audio.
            cleanUp()
            throw .unrecognizedFormat(url, detail: "it looks like a text file")
        }
        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard index >= 0, let stream = context.pointee.streams[Int(index)] else {
            cleanUp()
            throw .noAudioStream(url)
        }
        let parameters = stream.pointee.codecpar!
        let codecName = String(cString: avcodec_get_name(parameters.pointee.codec_id))
        guard let decoder else {
            cleanUp()
            throw .unsupportedCodec(url, codec: codecName)
        }
        codecContext = avcodec_alloc_context3(decoder)
        guard let codecContext, avcodec_parameters_to_context(codecContext, parameters) >= 0 else {
            cleanUp()
            throw .unsupportedCodec(url, codec: codecName)
        }
        codecContext.pointee.pkt_timebase = stream.pointee.time_base
        let codecOpenStatus = avcodec_open2(codecContext, decoder, nil)
        guard codecOpenStatus >= 0, let packet, let frame else {
            cleanUp()
            throw .unsupportedCodec(url, codec: "\(codecName) (\(FFmpegError.message(codecOpenStatus)))")
        }
        let sampleRate = Double(codecContext.pointee.sample_rate)
        let channels = codecContext.pointee.ch_layout.nb_channels
        guard sampleRate > 0, channels > 0 else {
            cleanUp()
            throw .corruptFile(url, detail: "its audio stream declares \(Int(sampleRate)) Hz and \(channels) channels")
        }
        // An AVAudioFormat holds at most 64 channels (as on Apple's platforms).
        guard channels <= 64 else {
            cleanUp()
            throw .unsupportedCodec(url, codec: "\(codecName) with \(channels) channels (at most 64 are supported)")
        }
        // Set for PCM and lossless codecs; lossy codecs have no stored bit depth.
        let isPCM = codecName.hasPrefix("pcm_")
        let bits = Int(parameters.pointee.bits_per_raw_sample != 0 || !isPCM
            ? parameters.pointee.bits_per_raw_sample : parameters.pointee.bits_per_coded_sample)
        self.info = AudioSourceInfo(
            container: Self.containerName(containerName, fileExtension: url.pathExtension), codec: codecName, sampleRate: sampleRate,
            channelCount: AVAudioChannelCount(channels),
            sampleFormat: commonFormat(of: codecContext.pointee.sample_fmt).0,
            bitsPerSample: bits > 0 ? bits : nil, isPCM: isPCM,
            declaredFrames: containerName == "wav" && isPCM
                ? wavDeclaredFrames(url) : Self.declaredFrames(stream: stream, context: context, sampleRate: sampleRate),
            bitRate: [parameters.pointee.bit_rate, context.pointee.bit_rate].first { $0 > 0 })
        self.formatContext = context
        self.codecContext = codecContext
        self.streamIndex = index
        self.packet = packet
        self.frame = frame
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_packet_free(&packet)
        av_frame_free(&frame)
        avcodec_free_context(&codecContext)
        avformat_close_input(&formatContext)
    }

    /// The next decoded frame, valid until the next call; nil once the stream is fully decoded.
    func nextFrame() throws(AudioError) -> UnsafeMutablePointer<AVFrame>? {
        guard let codecContext, let formatContext else { return nil }
        while !decoderEnded {
            let received = avcodec_receive_frame(codecContext, frame)
            if received >= 0 {
                decodedAnyFrame = true
                return frame
            }
            if received == FFmpegError.endOfFile {
                decoderEnded = true
                break
            }
            guard received == FFmpegError.tryAgain else {
                try rejectPacket(received)
                continue
            }
            if demuxerEnded {
                decoderEnded = true
                break
            }
            let read = av_read_frame(formatContext, packet)
            if read < 0 {
                demuxerEnded = true
                _ = avcodec_send_packet(codecContext, nil) // enter draining mode
                continue
            }
            defer { av_packet_unref(packet) }
            guard packet.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(codecContext, packet)
            if sent < 0 && sent != FFmpegError.tryAgain { try rejectPacket(sent) }
        }
        if !decodedAnyFrame && rejectedPackets > 0 {
            throw .corruptFile(url, detail: "none of its audio could be decoded")
        }
        return nil
    }

    /// A damaged packet is skipped, as FFmpeg's own tools do; a file of nothing but damage is an error.
    private func rejectPacket(_ status: Int32) throws(AudioError) {
        rejectedPackets += 1
        if !decodedAnyFrame && rejectedPackets >= 16 {
            throw .corruptFile(url, detail: "its audio data cannot be decoded (\(FFmpegError.message(status)))")
        }
    }

    /// FFmpeg names some demuxers after a family ("mov,mp4,m4a,3gp,3g2,mj2"): pick the member the file's
    /// extension names, else the first.
    private static func containerName(_ family: String, fileExtension: String) -> String {
        let members = family.split(separator: ",").map(String.init)
        return members.first { $0 == fileExtension.lowercased() } ?? members.first ?? family
    }

    private static func checkFileExists(_ url: URL) throws(AudioError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw .fileNotFound(url)
        }
        // The attributes of what a symbolic link points to (a link to a recording is a recording).
        guard !isDirectory.boolValue,
              let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path),
              attributes[.type] as? FileAttributeType == .typeRegular
        else { throw .notARegularFile(url) }
        if (attributes[.size] as? NSNumber)?.int64Value == 0 { throw .emptyFile(url) }
    }

    private static func declaredFrames(stream: UnsafeMutablePointer<AVStream>,
                                       context: UnsafeMutablePointer<AVFormatContext>,
                                       sampleRate: Double) -> Int64? {
        let noValue = Int64.min // AV_NOPTS_VALUE
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration != noValue, stream.pointee.duration > 0, timeBase.den > 0 {
            let seconds = Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
            return Int64((seconds * sampleRate).rounded())
        }
        if context.pointee.duration != noValue, context.pointee.duration > 0 {
            return Int64((Double(context.pointee.duration) / 1_000_000 * sampleRate).rounded())
        }
        return nil
    }
}
