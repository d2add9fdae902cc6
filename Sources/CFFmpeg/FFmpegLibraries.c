// FFmpeg's functions, resolved from its shared libraries on first use.
//
// Linked directly, libavformat and libavcodec bring some 130 further shared libraries with them (every video codec,
// subtitle renderer and network protocol Debian builds FFmpeg with): about 40 ms of dynamic linking at the start of
// every process, `openspeech --help` included, and most runs read WAV files that never need FFmpeg. Here each
// function this package calls is defined with FFmpeg's own prototype and forwards to the library's, loaded when the
// first one is called. The definitions are hidden: the process exports none of them, so FFmpeg's libraries, once
// loaded, still call each other directly.
#include "CFFmpeg.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

enum { AVUTIL, SWRESAMPLE, AVCODEC, AVFORMAT, LIBRARY_COUNT };

// In dependency order; the major versions are those of the headers this was compiled against (the ABI).
static const char *const library_names[LIBRARY_COUNT] = {
    "libavutil.so." STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    "libswresample.so." STRINGIFY(LIBSWRESAMPLE_VERSION_MAJOR),
    "libavcodec.so." STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    "libavformat.so." STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
};

#define FAILED AVERROR(ENOSYS)

// R(library, return type, name, parameters, arguments, value returned when FFmpeg could not be loaded)
// V(library, name, parameters, arguments): the functions that return nothing.
#define FFMPEG_FUNCTIONS(R, V)                                                                                     \
    V(AVUTIL, av_log_set_level, (int level), (level))                                                              \
    V(AVUTIL, av_max_alloc, (size_t max), (max))                                                                   \
    R(AVUTIL, int, av_strerror, (int errnum, char *errbuf, size_t errbuf_size), (errnum, errbuf, errbuf_size),     \
      FAILED)                                                                                                      \
    R(AVUTIL, int, av_sample_fmt_is_planar, (enum AVSampleFormat sample_fmt), (sample_fmt), 0)                     \
    V(AVUTIL, av_channel_layout_uninit, (AVChannelLayout * channel_layout), (channel_layout))                      \
    V(AVUTIL, av_channel_layout_default, (AVChannelLayout * ch_layout, int nb_channels), (ch_layout, nb_channels)) \
    R(AVUTIL, int, av_channel_layout_copy, (AVChannelLayout * dst, const AVChannelLayout *src), (dst, src),        \
      FAILED)                                                                                                      \
    R(AVUTIL, AVFrame *, av_frame_alloc, (void), (), NULL)                                                         \
    V(AVUTIL, av_frame_free, (AVFrame * *frame), (frame))                                                          \
    R(AVUTIL, int, av_frame_make_writable, (AVFrame * frame), (frame), FAILED)                                     \
    R(AVUTIL, int, av_frame_get_buffer, (AVFrame * frame, int align), (frame, align), FAILED)                      \
    R(AVUTIL, int, av_opt_set_int, (void *obj, const char *name, int64_t val, int search_flags),                   \
      (obj, name, val, search_flags), FAILED)                                                                      \
    R(AVUTIL, int, av_opt_set_double, (void *obj, const char *name, double val, int search_flags),                 \
      (obj, name, val, search_flags), FAILED)                                                                      \
    R(SWRESAMPLE, int, swr_alloc_set_opts2,                                                                        \
      (struct SwrContext * *ps, AVChannelLayout * out_ch_layout, enum AVSampleFormat out_sample_fmt,               \
       int out_sample_rate, AVChannelLayout *in_ch_layout, enum AVSampleFormat in_sample_fmt, int in_sample_rate,  \
       int log_offset, void *log_ctx),                                                                             \
      (ps, out_ch_layout, out_sample_fmt, out_sample_rate, in_ch_layout, in_sample_fmt, in_sample_rate,            \
       log_offset, log_ctx),                                                                                       \
      FAILED)                                                                                                      \
    R(SWRESAMPLE, int, swr_init, (struct SwrContext * s), (s), FAILED)                                             \
    V(SWRESAMPLE, swr_free, (struct SwrContext * *s), (s))                                                         \
    R(SWRESAMPLE, int, swr_get_out_samples, (struct SwrContext * s, int in_samples), (s, in_samples), FAILED)      \
    R(SWRESAMPLE, int, swr_convert,                                                                                \
      (struct SwrContext * s, uint8_t * *out, int out_count, const uint8_t **in, int in_count),                    \
      (s, out, out_count, in, in_count), FAILED)                                                                   \
    R(AVCODEC, AVPacket *, av_packet_alloc, (void), (), NULL)                                                      \
    V(AVCODEC, av_packet_free, (AVPacket * *pkt), (pkt))                                                           \
    V(AVCODEC, av_packet_unref, (AVPacket * pkt), (pkt))                                                           \
    V(AVCODEC, av_packet_rescale_ts, (AVPacket * pkt, AVRational tb_src, AVRational tb_dst), (pkt, tb_src, tb_dst)) \
    R(AVCODEC, const char *, avcodec_get_name, (enum AVCodecID id), (id), "unknown")                               \
    R(AVCODEC, const AVCodec *, avcodec_find_encoder, (enum AVCodecID id), (id), NULL)                             \
    R(AVCODEC, AVCodecContext *, avcodec_alloc_context3, (const AVCodec *codec), (codec), NULL)                    \
    V(AVCODEC, avcodec_free_context, (AVCodecContext * *avctx), (avctx))                                           \
    R(AVCODEC, int, avcodec_open2, (AVCodecContext * avctx, const AVCodec *codec, AVDictionary **options),         \
      (avctx, codec, options), FAILED)                                                                             \
    R(AVCODEC, int, avcodec_parameters_to_context, (AVCodecContext * codec, const AVCodecParameters *par),         \
      (codec, par), FAILED)                                                                                        \
    R(AVCODEC, int, avcodec_parameters_from_context, (AVCodecParameters * par, const AVCodecContext *codec),       \
      (par, codec), FAILED)                                                                                        \
    R(AVCODEC, int, avcodec_send_packet, (AVCodecContext * avctx, const AVPacket *avpkt), (avctx, avpkt), FAILED)  \
    R(AVCODEC, int, avcodec_receive_frame, (AVCodecContext * avctx, AVFrame *frame), (avctx, frame), FAILED)       \
    R(AVCODEC, int, avcodec_send_frame, (AVCodecContext * avctx, const AVFrame *frame), (avctx, frame), FAILED)    \
    R(AVCODEC, int, avcodec_receive_packet, (AVCodecContext * avctx, AVPacket *avpkt), (avctx, avpkt), FAILED)     \
    R(AVFORMAT, int, avformat_open_input,                                                                          \
      (AVFormatContext * *ps, const char *url, const AVInputFormat *fmt, AVDictionary **options),                  \
      (ps, url, fmt, options), FAILED)                                                                             \
    R(AVFORMAT, int, avformat_find_stream_info, (AVFormatContext * ic, AVDictionary **options), (ic, options),     \
      FAILED)                                                                                                      \
    R(AVFORMAT, int, av_find_best_stream,                                                                          \
      (AVFormatContext * ic, enum AVMediaType type, int wanted_stream_nb, int related_stream,                      \
       const AVCodec **decoder_ret, int flags),                                                                    \
      (ic, type, wanted_stream_nb, related_stream, decoder_ret, flags), FAILED)                                    \
    R(AVFORMAT, int, av_read_frame, (AVFormatContext * s, AVPacket *pkt), (s, pkt), FAILED)                        \
    V(AVFORMAT, avformat_close_input, (AVFormatContext * *s), (s))                                                 \
    R(AVFORMAT, int, avformat_alloc_output_context2,                                                               \
      (AVFormatContext * *ctx, const AVOutputFormat *oformat, const char *format_name, const char *filename),      \
      (ctx, oformat, format_name, filename), FAILED)                                                               \
    R(AVFORMAT, AVStream *, avformat_new_stream, (AVFormatContext * s, const AVCodec *c), (s, c), NULL)            \
    R(AVFORMAT, int, avio_open, (AVIOContext * *s, const char *url, int flags), (s, url, flags), FAILED)           \
    R(AVFORMAT, int, avio_closep, (AVIOContext * *s), (s), FAILED)                                                 \
    R(AVFORMAT, int, avformat_write_header, (AVFormatContext * s, AVDictionary **options), (s, options), FAILED)   \
    R(AVFORMAT, int, av_interleaved_write_frame, (AVFormatContext * s, AVPacket *pkt), (s, pkt), FAILED)           \
    R(AVFORMAT, int, av_write_trailer, (AVFormatContext * s), (s), FAILED)                                         \
    V(AVFORMAT, avformat_free_context, (AVFormatContext * s), (s))

#define DECLARE_R(library, type, name, params, args, failure) static type(*name##_resolved) params;
#define DECLARE_V(library, name, params, args) static void(*name##_resolved) params;
FFMPEG_FUNCTIONS(DECLARE_R, DECLARE_V)

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

static void load_libraries(void) {
    void *handles[LIBRARY_COUNT];
    for (int i = 0; i < LIBRARY_COUNT; i++) {
        handles[i] = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(load_error, sizeof load_error, "FFmpeg's %s could not be loaded: %s", library_names[i], dlerror());
            return;
        }
    }
    const char *missing = NULL;
#define RESOLVE(library, name)                                                                                     \
    if (!missing && !(*(void **)&name##_resolved = dlsym(handles[library], #name))) missing = #name;
#define RESOLVE_R(library, type, name, params, args, failure) RESOLVE(library, name)
#define RESOLVE_V(library, name, params, args) RESOLVE(library, name)
    FFMPEG_FUNCTIONS(RESOLVE_R, RESOLVE_V)
    if (missing) {
        snprintf(load_error, sizeof load_error, "FFmpeg's libraries lack %s (built against other versions)", missing);
#define CLEAR_R(library, type, name, params, args, failure) name##_resolved = NULL;
#define CLEAR_V(library, name, params, args) name##_resolved = NULL;
        FFMPEG_FUNCTIONS(CLEAR_R, CLEAR_V)
        return;
    }
    loaded = 1;
}

int openspeech_ffmpeg_load(void) {
    pthread_once(&load_once, load_libraries);
    return loaded ? 0 : -1;
}

const char *openspeech_ffmpeg_load_error(void) {
    pthread_once(&load_once, load_libraries);
    return loaded ? NULL : load_error;
}

#define DEFINE_R(library, type, name, params, args, failure)                                                       \
    __attribute__((visibility("hidden"))) type name params {                                                       \
        pthread_once(&load_once, load_libraries);                                                                  \
        return name##_resolved ? name##_resolved args : failure;                                                   \
    }
#define DEFINE_V(library, name, params, args)                                                                      \
    __attribute__((visibility("hidden"))) void name params {                                                       \
        pthread_once(&load_once, load_libraries);                                                                  \
        if (name##_resolved) name##_resolved args;                                                                 \
    }
FFMPEG_FUNCTIONS(DEFINE_R, DEFINE_V)
