#ifndef OPENSPEECH_CBLAS_SHIM_H
#define OPENSPEECH_CBLAS_SHIM_H
#include <cblas.h>
/* OpenBLAS extras, declared in its cblas.h on Debian. */
#endif
