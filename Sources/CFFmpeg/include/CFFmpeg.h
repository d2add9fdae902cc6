#ifndef OPENSPEECH_CFFMPEG_H
#define OPENSPEECH_CFFMPEG_H
// FFmpeg's declarations as its headers give them. The functions are defined in FFmpegLibraries.c, which loads
// FFmpeg's libraries on first use instead of at process start.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libavutil/samplefmt.h>
#include <libavutil/error.h>
#include <libavutil/mem.h>
#include <libswresample/swresample.h>

/// Loads libavutil, libswresample, libavcodec and libavformat (the major versions of the headers built against) and
/// resolves every FFmpeg function this package calls; done once per process, thread-safe. Returns 0 when all are
/// there, else -1, and `openspeech_ffmpeg_load_error()` says what is missing. A function called after a failed load
/// does nothing and returns its failure value (a negative error code, NULL).
int openspeech_ffmpeg_load(void);

/// Why `openspeech_ffmpeg_load` failed (dlerror's message), or NULL after a load that succeeded.
const char *openspeech_ffmpeg_load_error(void);

#endif
