// The engine's element-wise and row-wise loops (softmax, GELU, layer norm, int8 row quantization, fp16 widening)
// compiled once per x86 instruction-set level and chosen when the process first calls one: the portable build
// runs them at the CPU's vector width, as oneDNN runs the products. Every level computes the same 16-lane
// arithmetic in the same order without fused multiply-adds, so the results are the same bits on every CPU.
#ifndef OPENSPEECH_VECTOR_KERNELS_H
#define OPENSPEECH_VECTOR_KERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Instruction-set levels with a compiled variant.
typedef enum {
    openspeech_vk_portable = 0, ///< baseline (SSE2 on x86-64; the target's own on other architectures)
    openspeech_vk_avx2 = 1,     ///< AVX2 (256-bit)
    openspeech_vk_avx512 = 2,   ///< AVX-512 F/BW/DQ/VL (512-bit)
} openspeech_vk_level;

/// The level in use: the best this CPU has, within `OPENSPEECH_MAX_CPU_ISA` or else `ONEDNN_MAX_CPU_ISA`
/// (oneDNN's names: `AVX2`, `AVX512_CORE`, `SSE41`...), chosen on the first call.
openspeech_vk_level openspeech_vk_current_level(void);
/// The best level this CPU has, ignoring any limit.
openspeech_vk_level openspeech_vk_cpu_level(void);
/// Uses `level` from now on (at most the CPU's); returns the level set. For tests comparing the variants.
openspeech_vk_level openspeech_vk_set_level(openspeech_vk_level level);
/// The level an ISA limit in oneDNN's spelling allows (`AVX512_CORE...`, `AVX2...`, `AVX`, `SSE41`); -1 for
/// none, `ALL` or a name not understood (no limit).
int openspeech_vk_limit_level(const char *name);
/// Human-readable name of a level ("AVX-512", "AVX2", "portable").
const char *openspeech_vk_level_name(openspeech_vk_level level);

/// y[i] += x[i]
void openspeech_vk_add(const float *x, float *y, long count);
/// y[i] *= factor
void openspeech_vk_scale(float *y, float factor, long count);
/// Layer normalisation of rows [row_begin, row_end) of x (`columns` wide) into out.
void openspeech_vk_layer_norm(const float *x, long row_begin, long row_end, long columns, const float *gamma,
                              const float *beta, float *out, float epsilon);
/// Largest element (-inf for none).
float openspeech_vk_max(const float *x, long count);
/// In place x[i] = exp(x[i] - shift); returns the sum.
float openspeech_vk_exp_shifted(float *x, long count, float shift);
/// In place softmax of one row.
void openspeech_vk_softmax(float *x, long count);
/// Σ exp(x[i] - shift), reading only.
float openspeech_vk_exp_sum(const float *x, long count, float shift);
/// In place GELU, x · ½(1 + erf(x/√2)).
void openspeech_vk_gelu(float *x, long count);
/// Rows [row_begin, row_end) of x as int8 into the same rows of q with CTranslate2's scheme: scales[r] =
/// 127 / max|x_r| (1 for a zero row); q = round(x · scale) (weights), or with `shifted` (activations, as CTranslate2
/// shifts them into u8) q = round(fma(x, scale, 128)) - 128; rounding to nearest, ties to even.
void openspeech_vk_quantize_rows(const float *x, long row_begin, long row_end, long columns, int8_t *q, float *scales,
                                 int shifted);
/// y[r, c] = ((float)products[r, c] · (1 / row_scales[r])) / column_scales[c] + bias[c] (CTranslate2's
/// dequantization; bias may be null; `y +=` with accumulate), over rows [row_begin, row_end) and columns
/// [column_begin, column_end), rows `stride` apart.
void openspeech_vk_rescale(const int32_t *products, long row_begin, long row_end, long column_begin, long column_end,
                           long stride, const float *row_scales, const float *column_scales, const float *bias, float *y,
                           int accumulate);
/// `count` (a multiple of 16) fp16 values to fp32.
void openspeech_vk_widen_halves(const uint16_t *halves, float *out, long count);
/// One fp16 row (`columns`, a multiple of 16) widened into two halves: even elements of each pair of 16-bit
/// lanes into `even`, odd into `odd` (8 of each per 16 halves), as HalfMatrix's reordered inputs.
void openspeech_vk_widen_split(const uint16_t *row, long columns, float *even, float *odd);
/// For r in [row_begin, row_end): y[r] (=, or += with accumulate) Σ widened W[r] · x, where W is fp16
/// `columns` wide and x is reordered evens (first columns/2 floats) then odds.
void openspeech_vk_half_dot_rows(const uint16_t *weights, long columns, const float *x, long row_begin, long row_end,
                                 float *y, int accumulate);
/// For rows m in [0, count) of x (`columns` wide) and r in [row_begin, row_end): y[m·stride + r] (=, or += with
/// accumulate) Σ_k ((float)W[r,k] · scale + zero_point) · x[m,k], where W is int8 `columns` wide with one scale and
/// zero point for the whole matrix (weight-only quantization): each weight dequantized as ONNX Runtime's graphs do
/// (`Cast`, `Mul`, `Add` in float32), 16 lanes summed in a fixed order, the tail past a multiple of 16 after them; the
/// same bits at every level and whatever `count`.
void openspeech_vk_weight_int8_dot_rows(const int8_t *weights, long columns, float scale, float zero_point,
                                        const float *x, long count, long row_begin, long row_end, float *y,
                                        long stride, int accumulate);

/// For rows m in [0, count) of the int8 rows x (`columns` wide, values in [-127, 127], as `quantize_rows` makes
/// them) and rows n in [row_begin, row_end) of the int8 weights W (`columns` wide, any int8 value):
/// y[m·stride + n] (=, or += with accumulate) ((float)(Σ_k x[m,k]·W[n,k]) · (1 / x_scales[m])) / weight_scales[n]
/// + bias[n] (bias may be null; scales as `quantize_rows` makes them, CTranslate2's). The sums are exact int32 at
/// every level (AVX2: `maddubs` on |W| and x signed by W, which cannot saturate), so every level gives the same bits,
/// and the rescaling is `openspeech_vk_rescale`'s.
void openspeech_vk_int8_product(const int8_t *weights, const float *weight_scales, long columns, const int8_t *x,
                                const float *x_scales, long count, long row_begin, long row_end, const float *bias,
                                float *y, long stride, int accumulate);

/// Columns per panel of a matrix packed for `openspeech_vk_rows_product`.
#define OPENSPEECH_VK_PANEL 128

/// For rows m in [0, count) of x (`inner` floats each, `x_stride` apart) and columns c in [0, columns) (a multiple of
/// 16) of a matrix w (`inner × columns`): y[m·y_stride + c] (=, or += with accumulate) Σ_i x[m, i] · w[i, c], each
/// sum taken in its own lane from i = 0 up, one fused multiply-add per term: the same bits at every level, whatever
/// `count` and wherever the row is among them. w as `openspeech_vk_pack_panels` packs it: read as a stream, where a
/// row-major matrix's rows far apart defeat the prefetchers.
void openspeech_vk_rows_product(const float *x, long x_stride, long count, long inner, const float *w, long columns,
                                float *y, long y_stride, int accumulate);
/// The row-major `inner × columns` matrix w in panels of `OPENSPEECH_VK_PANEL` columns (the last one narrower),
/// each panel's rows one after another: `inner · columns` floats at `packed`.
void openspeech_vk_pack_panels(const float *w, long inner, long columns, float *packed);

/// The LSTM cell of `count` sequences: from each row of gate pre-activations z (`hidden` each of i, f, g, o, in that
/// order; rows `z_stride` apart) and of the cell state c (rows `hidden` apart, updated in place), the hidden state h
/// (rows `h_stride` apart): c = σ(f)·c + σ(i)·tanh(g), h = σ(o)·tanh(c), with σ(x) = 1 / (1 + e^−x) and
/// tanh(x) = 1 − 2 / (e^2x + 1) (`hidden` a multiple of 16). The same bits at every level.
void openspeech_vk_lstm_cell(const float *z, long z_stride, long count, long hidden, float *c, float *h, long h_stride);

#ifdef __cplusplus
}
#endif

#endif
