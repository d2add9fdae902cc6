import CFFmpeg

/// libswresample converting PCM between sample types, layouts, channel counts and rates.
/// Not thread-safe: one owner at a time.
final class SampleRateConverter {
    struct Side: Equatable {
        var sampleFormat: AVSampleFormat
        var sampleRate: Int32
        var channels: Int32
    }

    let input: Side
    let output: Side
    private var context: OpaquePointer?

    /// libswresample's default interpolation filter length; ≥ 60 dB SNR in band (see ResamplingTests).
    static let defaultFilterLength: Int32 = 32

    /// Quality: the length of the interpolation filter (libswresample's `filter_size`).
    /// Down-mixing averages the channels (stereo to mono is (L + R) / 2), as faster-whisper's decoding does.
    init?(input: Side, output: Side, filterLength: Int32 = defaultFilterLength) {
        self.input = input
        self.output = output
        var inLayout = defaultChannelLayout(input.channels)
        var outLayout = defaultChannelLayout(output.channels)
        defer {
            av_channel_layout_uninit(&inLayout)
            av_channel_layout_uninit(&outLayout)
        }
        var context: OpaquePointer?
        guard swr_alloc_set_opts2(&context, &outLayout, output.sampleFormat, output.sampleRate,
                                  &inLayout, input.sampleFormat, input.sampleRate, 0, nil) >= 0,
              let context
        else { return nil }
        av_opt_set_int(UnsafeMutableRawPointer(context), "filter_size", Int64(filterLength), 0)
        // Normalize the mixing matrix so no output exceeds full scale: mixing becomes averaging.
        av_opt_set_double(UnsafeMutableRawPointer(context), "rematrix_maxval", 1.0, 0)
        guard swr_init(context) >= 0 else {
            var owned: OpaquePointer? = context
            swr_free(&owned)
            return nil
        }
        self.context = context
    }

    deinit { swr_free(&context) }

    /// Converts `inputFrames` frames (0 with a non-nil `input` drains what is buffered) into `output`, which has
    /// room for `capacity` frames; input that does not fit stays buffered. With `input` nil the resampler is
    /// flushed: its delayed tail is written out, as at the end of a stream. Returns the frames written.
    func convert(_ input: UnsafePointer<UnsafePointer<UInt8>?>?, inputFrames: Int,
                 into output: UnsafePointer<UnsafeMutablePointer<UInt8>?>, capacity: Int) -> Int {
        let written = swr_convert(context, UnsafeMutablePointer(mutating: output), Int32(clamping: capacity),
                                  UnsafeMutablePointer(mutating: input), Int32(clamping: inputFrames))
        return max(Int(written), 0)
    }

    /// Drains buffered output without flushing the resampler's filter state.
    func drain(into output: UnsafePointer<UnsafeMutablePointer<UInt8>?>, capacity: Int) -> Int {
        var empty: UnsafePointer<UInt8>? = nil
        return withUnsafePointer(to: &empty) { convert($0, inputFrames: 0, into: output, capacity: capacity) }
    }

    /// An upper bound of the frames the next call could write after `inputFrames` more input.
    func pendingOutput(afterInput inputFrames: Int) -> Int {
        max(Int(swr_get_out_samples(context, Int32(clamping: inputFrames))), 0)
    }
}

/// Plane pointers into a PCM buffer, advanced by `offset` frames, for FFmpeg calls.
func withPlanePointers<R>(_ buffer: AVAudioPCMBuffer, offset: Int,
                          _ body: (UnsafePointer<UnsafeMutablePointer<UInt8>?>) -> R) -> R {
    let format = buffer.format
    let planes = format.isInterleaved ? 1 : Int(format.channelCount)
    let bytesPerFrame = format.commonFormat.bytesPerSample * (format.isInterleaved ? Int(format.channelCount) : 1)
    return withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<UInt8>?.self, capacity: planes) { pointers in
        for plane in 0..<planes {
            pointers[plane] = (buffer.rawChannelPointers[plane] + offset * bytesPerFrame)
                .assumingMemoryBound(to: UInt8.self)
        }
        return body(UnsafePointer(pointers.baseAddress!))
    }
}
