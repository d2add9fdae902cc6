#ifndef OPENSPEECH_COPENCC_SHIM_H
#define OPENSPEECH_COPENCC_SHIM_H
/* Open Chinese Convert's C API (Debian's libopencc-dev): Simplified and Traditional Chinese conversion. */
#include <opencc/opencc.h>
#endif
