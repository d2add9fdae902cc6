// The int8 product of a few rows against a large int8 weight matrix (include/VectorKernels.h), per instruction-set
// level: on AVX2 without VNNI, where oneDNN 2.6 has no int8 kernel that uses the weights in place.
#include "VectorKernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// No fused multiply-adds: the rescaling must round as the oneDNN int8 path's (`openspeech_vk_rescale`: product
// · row inverse, / weight scale, + bias), whichever level runs.
#pragma clang fp contract(off)

/// Rescales one exact int32 sum into y[m, n] as `openspeech_vk_rescale` does (CTranslate2's dequantization):
/// `((float)sum · x_inverses[m]) / weight_scales[n] + bias[n]`, x_inverses[m] = 1 / x_scales[m].
static inline __attribute__((always_inline)) void store_result(int32_t sum, long m, long n, const float *weight_scales,
                                                               const float *x_inverses, const float *bias, float *y,
                                                               long stride, int accumulate) {
    float value = (float)sum * x_inverses[m] / weight_scales[n];
    if (bias) value = value + bias[n];
    float *out = y + m * stride + n;
    *out = accumulate ? *out + value : value;
}

static void portable_int8_product(const int8_t *weights, const float *weight_scales, long columns, const int8_t *x,
                                  const float *x_inverses, long count, long row_begin, long row_end, const float *bias,
                                  float *y, long stride, int accumulate) {
    for (long n = row_begin; n < row_end; n++) {
        const int8_t *w = weights + n * columns;
        for (long m = 0; m < count; m++) {
            const int8_t *row = x + m * columns;
            int32_t sum = 0;
            for (long k = 0; k < columns; k++) sum += (int32_t)row[k] * (int32_t)w[k];
            store_result(sum, m, n, weight_scales, x_inverses, bias, y, stride, accumulate);
        }
    }
}

#if defined(__x86_64__)
#define AVX2_ATTR __attribute__((target("avx2,avx,popcnt,sse4.2")))

static inline __attribute__((always_inline)) AVX2_ATTR int32_t avx2_lanes_sum(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm_cvtsi128_si32(s);
}

/// Rows [m0, m0 + block) of x against one row of W. `_mm256_maddubs_epi16` multiplies unsigned by signed bytes and
/// adds pairs into int16 with saturation, so the operands are |w| (0…128, exact as unsigned even for -128) and x
/// with w's sign moved onto it (x in [-127, 127], so negating never overflows): a pair sums to at most
/// 2 · 128 · 127 = 32512 < 32767, never saturating. The int32 sums are exact.
static inline __attribute__((always_inline)) AVX2_ATTR void avx2_block(
    const int8_t *w, long columns, const int8_t *x, long m0, const int block, int32_t *sums) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i acc[6];
    for (int j = 0; j < block; j++) acc[j] = _mm256_setzero_si256();
    long k = 0;
    for (; k + 32 <= columns; k += 32) {
        const __m256i wv = _mm256_loadu_si256((const __m256i *)(w + k));
        const __m256i magnitude = _mm256_abs_epi8(wv);
        for (int j = 0; j < block; j++) {
            const __m256i xv = _mm256_loadu_si256((const __m256i *)(x + (m0 + j) * columns + k));
            const __m256i pairs = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(xv, wv));
            acc[j] = _mm256_add_epi32(acc[j], _mm256_madd_epi16(pairs, ones));
        }
    }
    for (int j = 0; j < block; j++) {
        int32_t sum = avx2_lanes_sum(acc[j]);
        const int8_t *row = x + (m0 + j) * columns;
        for (long t = k; t < columns; t++) sum += (int32_t)row[t] * (int32_t)w[t];
        sums[j] = sum;
    }
}

typedef float vk_f8 __attribute__((vector_size(32)));
typedef int32_t vk_i8 __attribute__((vector_size(32)));

static AVX2_ATTR void avx2_int8_product(const int8_t *weights, const float *weight_scales, long columns,
                                        const int8_t *x, const float *x_inverses, long count, long row_begin,
                                        long row_end, const float *bias, float *y, long stride, int accumulate) {
    int32_t sums[8] = {0};
    for (long n = row_begin; n < row_end; n++) {
        const int8_t *w = weights + n * columns;
        // Up to 6 rows of x per pass over W's row (a beam of 5 in one), more in blocks of 4 (the row stays in L1).
        for (long m0 = 0; m0 < count;) {
            long left = count - m0;
            int block = left <= 6 ? (int)left : 4;
            switch (block) {
            case 1: avx2_block(w, columns, x, m0, 1, sums); break;
            case 2: avx2_block(w, columns, x, m0, 2, sums); break;
            case 3: avx2_block(w, columns, x, m0, 3, sums); break;
            case 4: avx2_block(w, columns, x, m0, 4, sums); break;
            case 5: avx2_block(w, columns, x, m0, 5, sums); break;
            default: avx2_block(w, columns, x, m0, 6, sums); break;
            }
            // The block's rescaling in one vector (one division for the block, lane for lane store_result's).
            vk_i8 integers;
            vk_f8 inverses = {0};
            __builtin_memcpy(&integers, sums, sizeof integers);
            for (int j = 0; j < block; j++) inverses[j] = x_inverses[m0 + j];
            const float scale = weight_scales[n];
            vk_f8 values = __builtin_convertvector(integers, vk_f8) * inverses / (vk_f8){scale, scale, scale, scale, scale, scale, scale, scale};
            if (bias) values = values + bias[n];
            for (int j = 0; j < block; j++) {
                float *out = y + (m0 + j) * stride + n;
                *out = accumulate ? *out + values[j] : values[j];
            }
            m0 += block;
        }
    }
}
#endif

void openspeech_vk_int8_product(const int8_t *weights, const float *weight_scales, long columns, const int8_t *x,
                                const float *x_scales, long count, long row_begin, long row_end, const float *bias,
                                float *y, long stride, int accumulate) {
    // Rows of x in chunks, each with its scales' reciprocals computed once (CTranslate2's `1 / a_scale`).
    enum { chunk = 64 };
    float inverses[chunk];
    for (long m0 = 0; m0 < count; m0 += chunk) {
        long rows = count - m0 < chunk ? count - m0 : chunk;
        for (long j = 0; j < rows; j++) inverses[j] = 1.0f / x_scales[m0 + j];
        const int8_t *xs = x + m0 * columns;
        float *ys = y + m0 * stride;
#if defined(__x86_64__)
        if (openspeech_vk_current_level() >= openspeech_vk_avx2) {
            avx2_int8_product(weights, weight_scales, columns, xs, inverses, rows, row_begin, row_end, bias, ys, stride,
                              accumulate);
            continue;
        }
#endif
        portable_int8_product(weights, weight_scales, columns, xs, inverses, rows, row_begin, row_end, bias, ys, stride,
                              accumulate);
    }
}
