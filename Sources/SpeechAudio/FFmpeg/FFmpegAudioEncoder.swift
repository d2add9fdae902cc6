import CFFmpeg
import Foundation

/// Encodes Float32 PCM into a compressed audio file with FFmpeg (AAC in an MP4-family container), written to a
/// temporary file beside the destination and renamed into place at `finish()`: an interrupted export leaves any
/// file already at the destination as it was. Not thread-safe: one owner at a time.
final class FFmpegAudioEncoder {
    /// What to write.
    struct Settings: Equatable {
        /// FFmpeg's muxer name: "ipod" writes .m4a, "mp4" .mp4.
        var container: String
        var sampleRate: Int
        var channels: Int
        var bitRate: Int
    }

    let url: URL
    private let temporaryURL: URL
    private var formatContext: UnsafeMutablePointer<AVFormatContext>?
    private var codecContext: UnsafeMutablePointer<AVCodecContext>?
    private let stream: UnsafeMutablePointer<AVStream>
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Samples per channel waiting for a whole frame, one array per channel, from `consumed` on.
    private var pending: [[Float]]
    private var consumed = 0
    private let frameSize: Int
    private var nextPTS: Int64 = 0
    private var finished = false

    init(url: URL, settings: Settings) throws(AudioError) {
        try FFmpegError.prepare()
        self.url = url
        temporaryURL = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        func failure(_ detail: String) -> AudioError { .writeFailed(url, detail: detail) }

        var context: UnsafeMutablePointer<AVFormatContext>?
        let allocated = avformat_alloc_output_context2(&context, nil, settings.container, temporaryURL.path)
        guard allocated >= 0, let context else { throw failure("FFmpeg has no \(settings.container) muxer") }
        formatContext = context
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_AAC) else {
            avformat_free_context(context)
            throw failure("the installed FFmpeg has no AAC encoder")
        }
        guard let stream = avformat_new_stream(context, nil), let codecContext = avcodec_alloc_context3(codec) else {
            avformat_free_context(context)
            throw failure("out of memory")
        }
        self.stream = stream
        self.codecContext = codecContext
        codecContext.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
        codecContext.pointee.sample_rate = Int32(settings.sampleRate)
        codecContext.pointee.bit_rate = Int64(settings.bitRate)
        av_channel_layout_default(&codecContext.pointee.ch_layout, Int32(settings.channels))
        codecContext.pointee.time_base = AVRational(num: 1, den: Int32(settings.sampleRate))
        if context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 {
            codecContext.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        frameSize = 1024
        pending = Array(repeating: [], count: settings.channels)

        var status = avcodec_open2(codecContext, codec, nil)
        if status >= 0 { status = avcodec_parameters_from_context(stream.pointee.codecpar, codecContext) }
        if status >= 0 {
            stream.pointee.time_base = codecContext.pointee.time_base
            status = avio_open(&context.pointee.pb, temporaryURL.path, AVIO_FLAG_WRITE)
        }
        if status >= 0 { status = avformat_write_header(context, nil) }
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard status >= 0, let frame else {
            release()
            throw failure(FFmpegError.message(status))
        }
        frame.pointee.format = AV_SAMPLE_FMT_FLTP.rawValue
        frame.pointee.sample_rate = Int32(settings.sampleRate)
        frame.pointee.nb_samples = Int32(frameSize)
        av_channel_layout_copy(&frame.pointee.ch_layout, &codecContext.pointee.ch_layout)
        status = av_frame_get_buffer(frame, 0)
        guard status >= 0 else {
            release()
            throw failure(FFmpegError.message(status))
        }
    }

    deinit {
        release()
    }

    /// Adds `count` frames, one pointer per channel.
    func write(_ channels: [UnsafePointer<Float>], count: Int) throws(AudioError) {
        for (index, samples) in channels.enumerated() where index < pending.count {
            pending[index].append(contentsOf: UnsafeBufferPointer(start: samples, count: count))
        }
        while pending[0].count - consumed >= frameSize { try encodeFrame(samples: frameSize) }
        for index in pending.indices { pending[index].removeFirst(consumed) }
        consumed = 0
    }

    /// Encodes what is left, writes the trailer and moves the file into place.
    func finish() throws(AudioError) {
        guard !finished else { return }
        finished = true
        if pending[0].count > consumed { try encodeFrame(samples: pending[0].count - consumed) }
        try send(nil)
        let status = av_write_trailer(formatContext)
        avio_closep(&formatContext!.pointee.pb)
        guard status >= 0 else { throw .writeFailed(url, detail: FFmpegError.message(status)) }
        do {
            if FileManager.default.fileExists(atPath: url.path) {
                _ = try FileManager.default.replaceItemAt(url, withItemAt: temporaryURL)
            } else {
                try FileManager.default.moveItem(at: temporaryURL, to: url)
            }
        } catch {
            throw .writeFailed(url, detail: error.localizedDescription)
        }
    }

    private func encodeFrame(samples: Int) throws(AudioError) {
        guard let frame else { return }
        let status = av_frame_make_writable(frame)
        guard status >= 0 else { throw .writeFailed(url, detail: FFmpegError.message(status)) }
        frame.pointee.nb_samples = Int32(samples)
        for channel in pending.indices {
            let plane = UnsafeMutableRawPointer(frame.pointee.extended_data[channel]!).assumingMemoryBound(to: Float.self)
            pending[channel].withUnsafeBufferPointer { plane.update(from: $0.baseAddress! + consumed, count: samples) }
        }
        consumed += samples
        frame.pointee.pts = nextPTS
        nextPTS += Int64(samples)
        try send(frame)
    }

    /// Sends a frame (nil: the end) to the encoder and writes the packets it gives.
    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(AudioError) {
        var status = avcodec_send_frame(codecContext, frame)
        guard status >= 0 else { throw .writeFailed(url, detail: FFmpegError.message(status)) }
        while true {
            status = avcodec_receive_packet(codecContext, packet)
            if status == FFmpegError.tryAgain || status == FFmpegError.endOfFile { return }
            guard status >= 0, let packet else { throw .writeFailed(url, detail: FFmpegError.message(status)) }
            av_packet_rescale_ts(packet, codecContext!.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            status = av_interleaved_write_frame(formatContext, packet)
            guard status >= 0 else { throw .writeFailed(url, detail: FFmpegError.message(status)) }
        }
    }

    private func release() {
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codecContext)
        if let context = formatContext {
            if context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
            avformat_free_context(context)
            formatContext = nil
        }
        if !finished || FileManager.default.fileExists(atPath: temporaryURL.path) {
            try? FileManager.default.removeItem(at: temporaryURL)
        }
    }
}
