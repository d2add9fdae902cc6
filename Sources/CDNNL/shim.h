#ifndef OPENSPEECH_CDNNL_SHIM_H
#define OPENSPEECH_CDNNL_SHIM_H
/* oneDNN 2.x C API (Debian's libdnnl-dev). Argument indices are re-exported as constants because some are
   macros defined through other macros, which Swift does not import. */
#include <oneapi/dnnl/dnnl.h>

static const int openspeech_dnnl_arg_src = DNNL_ARG_SRC;
static const int openspeech_dnnl_arg_weights = DNNL_ARG_WEIGHTS;
static const int openspeech_dnnl_arg_bias = DNNL_ARG_BIAS;
static const int openspeech_dnnl_arg_dst = DNNL_ARG_DST;
static const int openspeech_dnnl_arg_from = DNNL_ARG_FROM;
static const int openspeech_dnnl_arg_to = DNNL_ARG_TO;
static const int openspeech_dnnl_arg_scratchpad = DNNL_ARG_SCRATCHPAD;
#endif
