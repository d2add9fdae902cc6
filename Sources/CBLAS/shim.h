#ifndef OPENSPEECH_CBLAS_SHIM_H
#define OPENSPEECH_CBLAS_SHIM_H
#include <cblas.h>
/* OpenBLAS extras (openblas_get_corename, openblas_set_num_threads, openblas_get_num_threads) are
   declared in Debian's cblas.h. zlib gives the compression ratio Whisper's decoding fallback uses
   (zlib level 6, exactly as the reference implementation measures it). */
#include <zlib.h>
#endif
