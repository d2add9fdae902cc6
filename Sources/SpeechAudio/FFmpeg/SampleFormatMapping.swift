import CFFmpeg

/// The FFmpeg sample format storing `format`'s samples in the same type and layout.
func ffmpegSampleFormat(_ format: AVAudioCommonFormat, interleaved: Bool) -> AVSampleFormat? {
    switch (format, interleaved) {
    case (.pcmFormatFloat32, true): AV_SAMPLE_FMT_FLT
    case (.pcmFormatFloat32, false): AV_SAMPLE_FMT_FLTP
    case (.pcmFormatFloat64, true): AV_SAMPLE_FMT_DBL
    case (.pcmFormatFloat64, false): AV_SAMPLE_FMT_DBLP
    case (.pcmFormatInt16, true): AV_SAMPLE_FMT_S16
    case (.pcmFormatInt16, false): AV_SAMPLE_FMT_S16P
    case (.pcmFormatInt32, true): AV_SAMPLE_FMT_S32
    case (.pcmFormatInt32, false): AV_SAMPLE_FMT_S32P
    case (.otherFormat, _): nil
    }
}

/// The common format and layout of an FFmpeg sample format, or `.otherFormat` (unsigned 8-bit, 64-bit ints).
func commonFormat(of sampleFormat: AVSampleFormat) -> (AVAudioCommonFormat, interleaved: Bool) {
    switch sampleFormat {
    case AV_SAMPLE_FMT_FLT: (.pcmFormatFloat32, true)
    case AV_SAMPLE_FMT_FLTP: (.pcmFormatFloat32, false)
    case AV_SAMPLE_FMT_DBL: (.pcmFormatFloat64, true)
    case AV_SAMPLE_FMT_DBLP: (.pcmFormatFloat64, false)
    case AV_SAMPLE_FMT_S16: (.pcmFormatInt16, true)
    case AV_SAMPLE_FMT_S16P: (.pcmFormatInt16, false)
    case AV_SAMPLE_FMT_S32: (.pcmFormatInt32, true)
    case AV_SAMPLE_FMT_S32P: (.pcmFormatInt32, false)
    default: (.otherFormat, av_sample_fmt_is_planar(sampleFormat) == 0)
    }
}

/// FFmpeg's default channel layout for `count` channels (mono, stereo, 5.1 ...).
func defaultChannelLayout(_ count: Int32) -> AVChannelLayout {
    var layout = AVChannelLayout()
    av_channel_layout_default(&layout, count)
    return layout
}
