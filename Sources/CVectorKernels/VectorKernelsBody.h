// The kernels' bodies, included once per instruction-set level by VectorKernels.c with VK_ATTR (the level's
// target attribute) and VK(name) (the level's function name) defined. Every operation mirrors the engine's former
// Swift `SIMD16<Float>` code lane for lane and in the same order, so every level gives the same bits.

static inline __attribute__((always_inline)) VK_ATTR vf16 VK(load)(const float *p) { vf16 v; __builtin_memcpy(&v, p, sizeof v); return v; }
static inline __attribute__((always_inline)) VK_ATTR void VK(store)(vf16 v, float *p) { __builtin_memcpy(p, &v, sizeof v); }
static inline __attribute__((always_inline)) VK_ATTR vf8 VK(load8)(const float *p) { vf8 v; __builtin_memcpy(&v, p, sizeof v); return v; }
static inline __attribute__((always_inline)) VK_ATTR void VK(store8)(vf8 v, float *p) { __builtin_memcpy(p, &v, sizeof v); }
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(splat)(float c) { vf16 v = {c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c}; return v; }
/// Lanes of `a` where `mask`, else of `b`.
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(select)(vi16 mask, vf16 a, vf16 b) {
    return (vf16)(((vi16)a & mask) | ((vi16)b & ~mask));
}
/// a · b + c per lane with one rounding (the FMA instruction at AVX2 and AVX-512, libm's exact `fmaf` below).
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(fma)(vf16 a, vf16 b, vf16 c) {
    return __builtin_elementwise_fma(a, b, c);
}
/// Σ lanes from lane 0 up, starting at -0 (Swift's `SIMD.sum()`).
static inline __attribute__((always_inline)) VK_ATTR float VK(sum)(vf16 v) {
    float s = -0.0f;
    for (int i = 0; i < 16; i++) s += v[i];
    return s;
}
/// Largest lane, from lane 0 up (Swift's `SIMD.max()` on values without NaN).
static inline __attribute__((always_inline)) VK_ATTR float VK(lanes_max)(vf16 v) {
    float m = v[0];
    for (int i = 0; i < 16; i++) m = m > v[i] ? m : v[i];
    return m;
}

/// e^x per lane (Cephes expf polynomial; relative error below 2e-7; 0 below -87).
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(exp)(vf16 x) {
    const vf16 high = VK(splat)(88.3762626647949f), low = VK(splat)(-87.3365447505531f);
    vf16 v = VK(select)(x > high, high, x);
    v = VK(select)(v < low, low, v);
    const float magic = 12582912.0f;
    vf16 t = v * 1.44269504088896341f + magic;
    vf16 n = t - magic;
    vf16 r = v - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    vf16 p = VK(splat)(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    vu16 bits = (vu16)t - 0x4B400000u;
    vf16 scale = (vf16)((bits + 127u) << 23);
    vf16 result = p * scale;
    return VK(select)(x < low, VK(splat)(0.0f), result);
}

/// erf(x) per lane (Abramowitz & Stegun 7.1.26; absolute error below 2e-7).
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(erf)(vf16 x) {
    vu16 sign = (vu16)x & 0x80000000u;
    vf16 a = (vf16)((vu16)x & 0x7FFFFFFFu);
    vf16 t = 1.0f / (a * 0.3275911f + 1.0f);
    vf16 poly = VK(splat)(1.061405429f);
    poly = poly * t - 1.453152027f;
    poly = poly * t + 1.421413741f;
    poly = poly * t - 0.284496736f;
    poly = poly * t + 0.254829592f;
    poly = poly * t;
    vf16 y = 1.0f - poly * VK(exp)(-(a * a));
    return (vf16)((vu16)y | sign);
}

/// fp32 values of halves held in the high 16 bits of each lane: arithmetic shift, mask, scale by 2^112.
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(widen)(vi16 v) { return (vf16)((v >> 3) & (int32_t)0x8FFFE000) * 5.192296858534828e+33f; }
static inline __attribute__((always_inline)) VK_ATTR vf8 VK(widen8)(vi8 v) { return (vf8)((v >> 3) & (int32_t)0x8FFFE000) * 5.192296858534828e+33f; }

static VK_ATTR void VK(add)(const float *x, float *y, long count) {
    long i = 0;
    for (; i + 16 <= count; i += 16) VK(store)(VK(load)(y + i) + VK(load)(x + i), y + i);
    for (; i < count; i++) y[i] += x[i];
}

static VK_ATTR void VK(scale)(float *y, float factor, long count) {
    long i = 0;
    for (; i + 16 <= count; i += 16) VK(store)(VK(load)(y + i) * factor, y + i);
    for (; i < count; i++) y[i] *= factor;
}

static VK_ATTR void VK(layer_norm)(const float *x, long row_begin, long row_end, long n, const float *g, const float *b,
                                   float *out, float epsilon) {
    for (long r = row_begin; r < row_end; r++) {
        const float *xr = x + r * n;
        float *yr = out + r * n;
        vf16 acc = VK(splat)(0.0f);
        long i = 0;
        for (; i + 16 <= n; i += 16) acc += VK(load)(xr + i);
        float sum = VK(sum)(acc);
        for (; i < n; i++) sum += xr[i];
        float mean = sum / (float)n;
        acc = VK(splat)(0.0f);
        for (i = 0; i + 16 <= n; i += 16) { vf16 d = VK(load)(xr + i) - mean; acc += d * d; }
        float squares = VK(sum)(acc);
        for (; i < n; i++) { float d = xr[i] - mean; squares += d * d; }
        float inv = 1.0f / VK_SQRT(squares / (float)n + epsilon);
        for (i = 0; i + 16 <= n; i += 16)
            VK(store)((VK(load)(xr + i) - mean) * inv * VK(load)(g + i) + VK(load)(b + i), yr + i);
        for (; i < n; i++) yr[i] = (xr[i] - mean) * inv * g[i] + b[i];
    }
}

static VK_ATTR float VK(max)(const float *x, long count) {
    float best = -__builtin_inff();
    long i = 0;
    if (count >= 16) {
        vf16 acc = VK(splat)(-__builtin_inff());
        for (; i + 16 <= count; i += 16) { vf16 v = VK(load)(x + i); acc = VK(select)(v > acc, v, acc); }
        best = VK(lanes_max)(acc);
    }
    for (; i < count; i++) if (x[i] > best) best = x[i];
    return best;
}

/// The last `count - i` (< 16) elements of x in the first lanes, `fill` in the others.
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(tail)(const float *x, long i, long count, float fill) {
    vf16 t = VK(splat)(fill);
    for (long j = i; j < count; j++) t[j - i] = x[j];
    return t;
}

static VK_ATTR float VK(exp_shifted)(float *x, long count, float shift) {
    vf16 acc = VK(splat)(0.0f);
    long i = 0;
    for (; i + 16 <= count; i += 16) { vf16 e = VK(exp)(VK(load)(x + i) - shift); VK(store)(e, x + i); acc += e; }
    if (i < count) {
        vf16 e = VK(exp)(VK(tail)(x, i, count, -__builtin_inff()) - shift);
        for (long j = i; j < count; j++) x[j] = e[j - i];
        acc += e;
    }
    return VK(sum)(acc);
}

static VK_ATTR void VK(softmax)(float *x, long count) {
    float m = VK(max)(x, count);
    float sum = VK(exp_shifted)(x, count, m);
    VK(scale)(x, 1.0f / sum, count);
}

static VK_ATTR float VK(exp_sum)(const float *x, long count, float shift) {
    vf16 acc = VK(splat)(0.0f);
    long i = 0;
    for (; i + 16 <= count; i += 16) acc += VK(exp)(VK(load)(x + i) - shift);
    if (i < count) acc += VK(exp)(VK(tail)(x, i, count, -__builtin_inff()) - shift);
    return VK(sum)(acc);
}

static VK_ATTR void VK(gelu)(float *x, long count) {
    long i = 0;
    for (; i + 16 <= count; i += 16) {
        vf16 v = VK(load)(x + i);
        VK(store)(v * 0.5f * (1.0f + VK(erf)(v * 0.70710678118654752f)), x + i);
    }
    if (i < count) {
        vf16 v = VK(tail)(x, i, count, 0.0f);
        vf16 g = v * 0.5f * (1.0f + VK(erf)(v * 0.70710678118654752f));
        for (long j = i; j < count; j++) x[j] = g[j - i];
    }
}

/// Rows of x as int8 with CTranslate2's per-row scale (`scales[r] = 127 / max|x_r|`, 1 for a zero row) and its
/// rounding: weights `q = round(x · scale)`; activations (`shifted`) as CTranslate2 shifts them into u8 for its
/// u8 × s8 products, `q = round(fma(x, scale, 128)) - 128` (one rounding of x · scale + 128, then to the nearest
/// integer, ties to even), which differs from the unshifted rounding where x · scale is within 2^-17 of a half.
static VK_ATTR void VK(quantize_rows)(const float *x, long row_begin, long row_end, long columns, int8_t *q,
                                      float *scales, int shifted) {
    for (long r = row_begin; r < row_end; r++) {
        const float *row = x + r * columns;
        int8_t *out = q + r * columns;
        vf16 largest = VK(splat)(0.0f);
        long i = 0;
        for (; i + 16 <= columns; i += 16) {
            vf16 magnitude = (vf16)((vu16)VK(load)(row + i) & 0x7FFFFFFFu);
            largest = VK(select)(magnitude > largest, magnitude, largest);
        }
        float amax = VK(lanes_max)(largest);
        for (; i < columns; i++) { float m = __builtin_fabsf(row[i]); amax = m >= amax ? m : amax; }
        float scale = amax > 0 ? 127.0f / amax : 1.0f;
        scales[r] = scale;
        long j = 0;
        // Adding 1.5·2^23 rounds to the nearest integer (ties to even) in the low mantissa bits.
        if (shifted) {
            const vf16 offset = VK(splat)(128.0f);
            for (; j + 16 <= columns; j += 16) {
                vf16 t = VK(fma)(VK(load)(row + j), VK(splat)(scale), offset);
                vu16 integers = (vu16)(t + 12582912.0f) - 0x4B400000u - 128u;
                vc16 bytes = __builtin_convertvector(integers, vc16);
                __builtin_memcpy(out + j, &bytes, sizeof bytes);
            }
            for (; j < columns; j++) {
                float shifted_value = __builtin_fmaf(row[j], scale, 128.0f) + 12582912.0f;
                uint32_t bits;
                __builtin_memcpy(&bits, &shifted_value, 4);
                out[j] = (int8_t)(uint8_t)(bits - 0x4B400000u - 128u);
            }
        } else {
            for (; j + 16 <= columns; j += 16) {
                vu16 integers = (vu16)(VK(load)(row + j) * scale + 12582912.0f) - 0x4B400000u;
                vc16 bytes = __builtin_convertvector(integers, vc16);
                __builtin_memcpy(out + j, &bytes, sizeof bytes);
            }
            for (; j < columns; j++) {
                float shifted_value = row[j] * scale + 12582912.0f;
                uint32_t bits;
                __builtin_memcpy(&bits, &shifted_value, 4);
                out[j] = (int8_t)(uint8_t)(bits - 0x4B400000u);
            }
        }
    }
}

/// int32 products back to fp32 as CTranslate2 dequantizes them: `((float)p · (1 / row_scales[r])) / column_scales[c]
/// + bias[c]`, then added to y with `accumulate` (a residual), over rows `stride` apart.
static VK_ATTR void VK(rescale)(const int32_t *products, long row_begin, long row_end, long column_begin,
                                long column_end, long stride, const float *row_scales, const float *column_scales,
                                const float *bias, float *y, int accumulate) {
    for (long r = row_begin; r < row_end; r++) {
        const float inverse = 1.0f / row_scales[r];
        const int32_t *p = products + r * stride;
        float *out = y + r * stride;
        long c = column_begin;
        for (; c + 16 <= column_end; c += 16) {
            vi16 integers;
            __builtin_memcpy(&integers, p + c, sizeof integers);
            vf16 v = __builtin_convertvector(integers, vf16) * inverse / VK(load)(column_scales + c);
            if (bias) v = v + VK(load)(bias + c);
            VK(store)(accumulate ? VK(load)(out + c) + v : v, out + c);
        }
        for (; c < column_end; c++) {
            float v = (float)p[c] * inverse / column_scales[c];
            if (bias) v = v + bias[c];
            out[c] = accumulate ? out[c] + v : v;
        }
    }
}

static VK_ATTR void VK(widen_halves)(const uint16_t *halves, float *out, long count) {
    for (long i = 0; i + 16 <= count; i += 16) {
        vu16h h;
        __builtin_memcpy(&h, halves + i, sizeof h);
        vi16 lanes = (vi16)(__builtin_convertvector(h, vu16) << 16);
        VK(store)(VK(widen)(lanes), out + i);
    }
}

static VK_ATTR void VK(widen_split)(const uint16_t *row, long columns, float *even, float *odd) {
    for (long i = 0; i + 16 <= columns; i += 16) {
        vi8 w;
        __builtin_memcpy(&w, row + i, sizeof w);
        VK(store8)(VK(widen8)((vi8)((vu8)w << 16)), even + i / 2);
        VK(store8)(VK(widen8)(w), odd + i / 2);
    }
}

static VK_ATTR void VK(half_dot_rows)(const uint16_t *weights, long columns, const float *x, long row_begin,
                                      long row_end, float *y, int accumulate) {
    const float *odd = x + columns / 2;
    for (long r = row_begin; r < row_end; r++) {
        const uint16_t *row = weights + r * columns;
        vf8 even_sum = {0}, odd_sum = {0};
        for (long i = 0; i + 16 <= columns; i += 16) {
            vi8 w;
            __builtin_memcpy(&w, row + i, sizeof w);
            even_sum += VK(widen8)((vi8)((vu8)w << 16)) * VK(load8)(x + i / 2);
            odd_sum += VK(widen8)(w) * VK(load8)(odd + i / 2);
        }
        vf8 both = even_sum + odd_sum;
        float sum = -0.0f;
        for (int k = 0; k < 8; k++) sum += both[k];
        y[r] = accumulate ? y[r] + sum : sum;
    }
}

/// Σ over W's row `row` against `block` rows of x (a constant where inlined: the sums stay in registers).
static inline __attribute__((always_inline)) VK_ATTR void VK(weight_int8_block)(
    const int8_t *row, long whole, vf16 scales, vf16 zeros, const float *x, long columns, const int block, vf16 *sums) {
    for (int j = 0; j < block; j++) sums[j] = (vf16){0};
    for (long i = 0; i < whole; i += 16) {
        vs16 q;
        __builtin_memcpy(&q, row + i, sizeof q);
        const vf16 w = __builtin_convertvector(q, vf16) * scales + zeros;
        for (int j = 0; j < block; j++) sums[j] += w * VK(load)(x + j * columns + i);
    }
}

static VK_ATTR void VK(weight_int8_dot_rows)(const int8_t *weights, long columns, float scale, float zero_point,
                                             const float *x, long count, long row_begin, long row_end, float *y,
                                             long stride, int accumulate) {
    const vf16 scales = VK(splat)(scale), zeros = VK(splat)(zero_point);
    const long whole = columns - columns % 16;
    for (long r = row_begin; r < row_end; r++) {
        const int8_t *row = weights + r * columns;
        // Up to 4 rows of x per pass over W's row (its dequantized lanes reused); each row's sum in the same order
        // as alone, so the bits do not depend on how many rows go together.
        for (long m0 = 0; m0 < count; m0 += 4) {
            const long block = count - m0 < 4 ? count - m0 : 4;
            const float *xs = x + m0 * columns;
            vf16 sums[4];
            switch (block) {
            case 1: VK(weight_int8_block)(row, whole, scales, zeros, xs, columns, 1, sums); break;
            case 2: VK(weight_int8_block)(row, whole, scales, zeros, xs, columns, 2, sums); break;
            case 3: VK(weight_int8_block)(row, whole, scales, zeros, xs, columns, 3, sums); break;
            default: VK(weight_int8_block)(row, whole, scales, zeros, xs, columns, 4, sums); break;
            }
            for (long j = 0; j < block; j++) {
                float total = VK(sum)(sums[j]);
                for (long i = whole; i < columns; i++) total += ((float)row[i] * scale + zero_point) * xs[j * columns + i];
                float *out = y + (m0 + j) * stride + r;
                *out = accumulate ? *out + total : total;
            }
        }
    }
}

/// σ(x) = 1 / (1 + e^−x) per lane.
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(sigmoid)(vf16 x) { return 1.0f / (1.0f + VK(exp)(-x)); }
/// tanh(x) = 1 − 2 / (e^2x + 1) per lane; saturates correctly at both ends.
static inline __attribute__((always_inline)) VK_ATTR vf16 VK(tanh)(vf16 x) { return 1.0f - 2.0f / (VK(exp)(x + x) + 1.0f); }

static VK_ATTR void VK(lstm_cell)(const float *z, long z_stride, long count, long hidden, float *c, float *h,
                                  long h_stride) {
    for (long r = 0; r < count; r++) {
        const float *gates = z + r * z_stride;
        float *cell = c + r * hidden, *out = h + r * h_stride;
        for (long j = 0; j + 16 <= hidden; j += 16) {
            const vf16 i = VK(sigmoid)(VK(load)(gates + j)), f = VK(sigmoid)(VK(load)(gates + hidden + j));
            const vf16 g = VK(tanh)(VK(load)(gates + 2 * hidden + j)), o = VK(sigmoid)(VK(load)(gates + 3 * hidden + j));
            const vf16 next = f * VK(load)(cell + j) + i * g;
            VK(store)(next, cell + j);
            VK(store)(o * VK(tanh)(next), out + j);
        }
    }
}

static const struct openspeech_vk_table VK(table) = {
    VK(add), VK(scale), VK(layer_norm), VK(max), VK(exp_shifted), VK(softmax), VK(exp_sum), VK(gelu),
    VK(quantize_rows), VK(rescale), VK(widen_halves), VK(widen_split), VK(half_dot_rows), VK(weight_int8_dot_rows),
    VK(lstm_cell),
};
