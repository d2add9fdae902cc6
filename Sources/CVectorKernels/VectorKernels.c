// Per-ISA variants of the engine's element-wise kernels (include/VectorKernels.h) and the choice between them.
#include "VectorKernels.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

// No fused multiply-adds: each variant must round exactly as the others (and as the Swift code they replace).
#pragma clang fp contract(off)
// The 64-byte vectors pass between helpers that are always inlined, never across a call: no ABI to keep.
#pragma clang diagnostic ignored "-Wpsabi"

// sqrt without errno (no libm call): the one instruction, as Swift's `squareRoot()`.
#if __has_builtin(__builtin_elementwise_sqrt)
#define VK_SQRT(x) __builtin_elementwise_sqrt(x)
#else
#define VK_SQRT(x) __builtin_sqrtf(x)
#endif

typedef float vf16 __attribute__((vector_size(64)));
typedef int32_t vi16 __attribute__((vector_size(64)));
typedef uint32_t vu16 __attribute__((vector_size(64)));
typedef uint16_t vu16h __attribute__((vector_size(32)));
typedef uint8_t vc16 __attribute__((vector_size(16)));
typedef int8_t vs16 __attribute__((vector_size(16)));
typedef float vf8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(32)));
typedef uint32_t vu8 __attribute__((vector_size(32)));

struct openspeech_vk_table {
    void (*add)(const float *, float *, long);
    void (*scale)(float *, float, long);
    void (*layer_norm)(const float *, long, long, long, const float *, const float *, float *, float);
    float (*max)(const float *, long);
    float (*exp_shifted)(float *, long, float);
    void (*softmax)(float *, long);
    float (*exp_sum)(const float *, long, float);
    void (*gelu)(float *, long);
    void (*quantize_rows)(const float *, long, long, long, int8_t *, float *, int);
    void (*rescale)(const int32_t *, long, long, long, long, long, const float *, const float *, const float *, float *,
                    int);
    void (*widen_halves)(const uint16_t *, float *, long);
    void (*widen_split)(const uint16_t *, long, float *, float *);
    void (*half_dot_rows)(const uint16_t *, long, const float *, long, long, float *, int);
    void (*weight_int8_dot_rows)(const int8_t *, long, float, float, const float *, long, long, long, float *, long, int);
    void (*lstm_cell)(const float *, long, long, long, float *, float *, long);
};

#define VK_ATTR
#define VK(name) portable_##name
#include "VectorKernelsBody.h"
#undef VK_ATTR
#undef VK

#if defined(__x86_64__)
#define VK_ATTR __attribute__((target("avx2,fma,avx,f16c,popcnt,sse4.2")))
#define VK(name) avx2_##name
#include "VectorKernelsBody.h"
#undef VK_ATTR
#undef VK

#define VK_ATTR __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,avx,f16c,popcnt,sse4.2")))
#define VK(name) avx512_##name
#include "VectorKernelsBody.h"
#undef VK_ATTR
#undef VK
#endif

openspeech_vk_level openspeech_vk_cpu_level(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        return openspeech_vk_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return openspeech_vk_avx2;
#endif
    return openspeech_vk_portable;
}

int openspeech_vk_limit_level(const char *name) {
    if (!name || !*name || strcasecmp(name, "ALL") == 0) return -1;
    if (strncasecmp(name, "AVX512", 6) == 0 || strncasecmp(name, "AVX10", 5) == 0) return openspeech_vk_avx512;
    if (strncasecmp(name, "AVX2", 4) == 0) return openspeech_vk_avx2;
    if (strcasecmp(name, "AVX") == 0 || strncasecmp(name, "SSE", 3) == 0 || strcasecmp(name, "PORTABLE") == 0)
        return openspeech_vk_portable;
    return -1;
}

static openspeech_vk_level chosen_level(void) {
    int level = openspeech_vk_cpu_level();
    const char *limit = getenv("OPENSPEECH_MAX_CPU_ISA");
    if (!limit || !*limit) limit = getenv("ONEDNN_MAX_CPU_ISA");
    int cap = openspeech_vk_limit_level(limit);
    if (cap >= 0 && cap < level) level = cap;
    return (openspeech_vk_level)level;
}

static const struct openspeech_vk_table *table_for(openspeech_vk_level level) {
#if defined(__x86_64__)
    if (level == openspeech_vk_avx512) return &avx512_table;
    if (level == openspeech_vk_avx2) return &avx2_table;
#endif
    (void)level;
    return &portable_table;
}

// Written once on first use (or by `openspeech_vk_set_level`); racing first calls store the same values.
static const struct openspeech_vk_table *current_table;
static int current_level = -1;

static inline const struct openspeech_vk_table *table(void) {
    const struct openspeech_vk_table *t = __atomic_load_n(&current_table, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t != NULL, 1)) return t;
    openspeech_vk_level level = chosen_level();
    __atomic_store_n(&current_level, (int)level, __ATOMIC_RELEASE);
    t = table_for(level);
    __atomic_store_n(&current_table, t, __ATOMIC_RELEASE);
    return t;
}

openspeech_vk_level openspeech_vk_current_level(void) {
    table();
    return (openspeech_vk_level)__atomic_load_n(&current_level, __ATOMIC_ACQUIRE);
}

openspeech_vk_level openspeech_vk_set_level(openspeech_vk_level level) {
    openspeech_vk_level cpu = openspeech_vk_cpu_level();
    if (level > cpu) level = cpu;
    __atomic_store_n(&current_level, (int)level, __ATOMIC_RELEASE);
    __atomic_store_n(&current_table, table_for(level), __ATOMIC_RELEASE);
    return level;
}

const char *openspeech_vk_level_name(openspeech_vk_level level) {
    switch (level) {
    case openspeech_vk_avx512: return "AVX-512";
    case openspeech_vk_avx2: return "AVX2";
    default: return "portable";
    }
}

void openspeech_vk_add(const float *x, float *y, long count) { table()->add(x, y, count); }
void openspeech_vk_scale(float *y, float factor, long count) { table()->scale(y, factor, count); }
void openspeech_vk_layer_norm(const float *x, long row_begin, long row_end, long columns, const float *gamma,
                              const float *beta, float *out, float epsilon) {
    table()->layer_norm(x, row_begin, row_end, columns, gamma, beta, out, epsilon);
}
float openspeech_vk_max(const float *x, long count) { return table()->max(x, count); }
float openspeech_vk_exp_shifted(float *x, long count, float shift) { return table()->exp_shifted(x, count, shift); }
void openspeech_vk_softmax(float *x, long count) { table()->softmax(x, count); }
float openspeech_vk_exp_sum(const float *x, long count, float shift) { return table()->exp_sum(x, count, shift); }
void openspeech_vk_gelu(float *x, long count) { table()->gelu(x, count); }
void openspeech_vk_quantize_rows(const float *x, long row_begin, long row_end, long columns, int8_t *q, float *scales,
                                 int shifted) {
    table()->quantize_rows(x, row_begin, row_end, columns, q, scales, shifted);
}
void openspeech_vk_rescale(const int32_t *products, long row_begin, long row_end, long column_begin, long column_end,
                           long stride, const float *row_scales, const float *column_scales, const float *bias, float *y,
                           int accumulate) {
    table()->rescale(products, row_begin, row_end, column_begin, column_end, stride, row_scales, column_scales, bias, y,
                     accumulate);
}
void openspeech_vk_widen_halves(const uint16_t *halves, float *out, long count) {
    table()->widen_halves(halves, out, count);
}
void openspeech_vk_widen_split(const uint16_t *row, long columns, float *even, float *odd) {
    table()->widen_split(row, columns, even, odd);
}
void openspeech_vk_half_dot_rows(const uint16_t *weights, long columns, const float *x, long row_begin, long row_end,
                                 float *y, int accumulate) {
    table()->half_dot_rows(weights, columns, x, row_begin, row_end, y, accumulate);
}
void openspeech_vk_weight_int8_dot_rows(const int8_t *weights, long columns, float scale, float zero_point,
                                        const float *x, long count, long row_begin, long row_end, float *y,
                                        long stride, int accumulate) {
    table()->weight_int8_dot_rows(weights, columns, scale, zero_point, x, count, row_begin, row_end, y, stride,
                                  accumulate);
}
void openspeech_vk_lstm_cell(const float *z, long z_stride, long count, long hidden, float *c, float *h, long h_stride) {
    table()->lstm_cell(z, z_stride, count, hidden, c, h, h_stride);
}
