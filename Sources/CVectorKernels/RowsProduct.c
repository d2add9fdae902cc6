// A few fp32 rows times a small fp32 matrix (include/VectorKernels.h), per instruction-set level: the step of a
// recurrence over a batch of sequences, whose bits must not depend on the batch (BLAS kernels sum a row differently
// as the number of rows changes).
#include "VectorKernels.h"

// Each lane's sum is a chain of fused multiply-adds (the FMA instruction at AVX2 and AVX-512, libm's exact `fmaf`
// below): every level rounds as the others do. Nothing else is fused.
#pragma clang fp contract(off)
#pragma clang diagnostic ignored "-Wpsabi"

typedef float vr16 __attribute__((vector_size(64)));

enum { panel = OPENSPEECH_VK_PANEL };

/// `rows` rows of x times `vectors` · 16 columns of one panel of w (rows `width` floats apart): each lane's sum over i
/// from 0 up, one fused multiply-add per term, then added to y (or stored). Constants where inlined, so the sums stay
/// in registers.
#define ROWS_TILE(ATTR, NAME)                                                                                          \
    static inline __attribute__((always_inline)) ATTR void NAME(const float *x, long x_stride, long inner,          \
                                                                const float *w, long width, float *y,              \
                                                                long y_stride, int accumulate, const int rows,     \
                                                                const int vectors) {                               \
        vr16 sums[4][8];                                                                                           \
        for (int r = 0; r < rows; r++)                                                                             \
            for (int v = 0; v < vectors; v++) sums[r][v] = (vr16){0};                                              \
        for (long i = 0; i < inner; i++) {                                                                         \
            vr16 weights[8];                                                                                       \
            for (int v = 0; v < vectors; v++) __builtin_memcpy(&weights[v], w + i * width + 16 * v, 64);           \
            for (int r = 0; r < rows; r++) {                                                                       \
                const float value = x[r * x_stride + i];                                                           \
                const vr16 splat = {value, value, value, value, value, value, value, value,                        \
                                    value, value, value, value, value, value, value, value};                       \
                for (int v = 0; v < vectors; v++)                                                                  \
                    sums[r][v] = __builtin_elementwise_fma(splat, weights[v], sums[r][v]);                         \
            }                                                                                                      \
        }                                                                                                          \
        for (int r = 0; r < rows; r++)                                                                             \
            for (int v = 0; v < vectors; v++) {                                                                    \
                float *out = y + r * y_stride + 16 * v;                                                            \
                vr16 result = sums[r][v];                                                                          \
                if (accumulate) {                                                                                  \
                    vr16 previous;                                                                                 \
                    __builtin_memcpy(&previous, out, 64);                                                          \
                    result = previous + result;                                                                    \
                }                                                                                                  \
                __builtin_memcpy(out, &result, 64);                                                                \
            }                                                                                                      \
    }

/// One block of `rows` rows (a constant where inlined) against every panel: tiles of `wide` vectors, single vectors
/// for the rest of a panel.
#define ROWS_BLOCK(ATTR, NAME, TILE)                                                                                   \
    static inline __attribute__((always_inline)) ATTR void NAME(const float *x, long x_stride, long inner,          \
                                                                const float *w, long columns, float *y,            \
                                                                long y_stride, int accumulate, const int rows,     \
                                                                const int wide) {                                  \
        for (long p = 0; p < columns; p += panel) {                                                                \
            const long width = columns - p < panel ? columns - p : panel;                                          \
            const float *panel_w = w + p * inner;                                                                  \
            long c = 0;                                                                                            \
            for (; c + 16 * wide <= width; c += 16 * wide)                                                         \
                TILE(x, x_stride, inner, panel_w + c, width, y + p + c, y_stride, accumulate, rows, wide);         \
            for (; c < width; c += 16)                                                                             \
                TILE(x, x_stride, inner, panel_w + c, width, y + p + c, y_stride, accumulate, rows, 1);            \
        }                                                                                                          \
    }

/// The product in blocks of up to 4 rows, each block's tiles `WIDE` vectors wide (twice as wide for one or two rows:
/// as many independent sums as the FMA units' latency wants).
#define ROWS_PRODUCT(ATTR, NAME, BLOCK, WIDE)                                                                          \
    static ATTR void NAME(const float *x, long x_stride, long count, long inner, const float *w, long columns,      \
                          float *y, long y_stride, int accumulate) {                                               \
        for (long r0 = 0; r0 < count; r0 += 4) {                                                                   \
            const float *xs = x + r0 * x_stride;                                                                   \
            float *ys = y + r0 * y_stride;                                                                         \
            switch (count - r0 < 4 ? count - r0 : 4) {                                                             \
            case 1: BLOCK(xs, x_stride, inner, w, columns, ys, y_stride, accumulate, 1, 2 * WIDE); break;          \
            case 2: BLOCK(xs, x_stride, inner, w, columns, ys, y_stride, accumulate, 2, 2 * WIDE); break;          \
            case 3: BLOCK(xs, x_stride, inner, w, columns, ys, y_stride, accumulate, 3, WIDE); break;              \
            default: BLOCK(xs, x_stride, inner, w, columns, ys, y_stride, accumulate, 4, WIDE); break;             \
            }                                                                                                      \
        }                                                                                                          \
    }

ROWS_TILE(, portable_rows_tile)
ROWS_BLOCK(, portable_rows_block, portable_rows_tile)
ROWS_PRODUCT(, portable_rows_product, portable_rows_block, 1)

#if defined(__x86_64__)
#define AVX2_ROWS_ATTR __attribute__((target("avx2,fma,avx")))
#define AVX512_ROWS_ATTR __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,avx")))
ROWS_TILE(AVX2_ROWS_ATTR, avx2_rows_tile)
ROWS_BLOCK(AVX2_ROWS_ATTR, avx2_rows_block, avx2_rows_tile)
ROWS_PRODUCT(AVX2_ROWS_ATTR, avx2_rows_product, avx2_rows_block, 1)
ROWS_TILE(AVX512_ROWS_ATTR, avx512_rows_tile)
ROWS_BLOCK(AVX512_ROWS_ATTR, avx512_rows_block, avx512_rows_tile)
ROWS_PRODUCT(AVX512_ROWS_ATTR, avx512_rows_product, avx512_rows_block, 4)
#endif

void openspeech_vk_rows_product(const float *x, long x_stride, long count, long inner, const float *w, long columns,
                                float *y, long y_stride, int accumulate) {
#if defined(__x86_64__)
    switch (openspeech_vk_current_level()) {
    case openspeech_vk_avx512: avx512_rows_product(x, x_stride, count, inner, w, columns, y, y_stride, accumulate); return;
    case openspeech_vk_avx2: avx2_rows_product(x, x_stride, count, inner, w, columns, y, y_stride, accumulate); return;
    default: break;
    }
#endif
    portable_rows_product(x, x_stride, count, inner, w, columns, y, y_stride, accumulate);
}

void openspeech_vk_pack_panels(const float *w, long inner, long columns, float *packed) {
    for (long p = 0; p < columns; p += panel) {
        const long width = columns - p < panel ? columns - p : panel;
        for (long i = 0; i < inner; i++)
            for (long c = 0; c < width; c++) packed[p * inner + i * width + c] = w[i * columns + p + c];
    }
}
