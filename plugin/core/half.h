/*
 * half.h - float16 and bfloat16 to and from float, in plain C.
 *
 * Conversions to the 16-bit types round to nearest, ties to even, as the
 * GPU's cvt.rn does, so the CPU path and the kernels' epilogues agree on
 * every representable result; NaN stays NaN (quiet), overflow gives Inf,
 * and float16's subnormals are produced and read exactly.
 */
#ifndef DLG_HALF_H
#define DLG_HALF_H

#include <stdint.h>
#include <string.h>

static inline float dlg_bits_float(uint32_t u)
{
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint32_t dlg_float_bits(float f)
{
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static inline float dlg_bf16_to_float(uint16_t h) { return dlg_bits_float((uint32_t)h << 16); }

static inline uint16_t dlg_float_to_bf16(float f)
{
  uint32_t u = dlg_float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1);                                           /* RNE; Inf stays */
  return (uint16_t)(u >> 16);
}

static inline float dlg_f16_to_float(uint16_t h)
{
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return dlg_bits_float(sign | 0x7f800000u | (man << 13));
  if (exp == 0) { /* zero or subnormal: man * 2^-24, exact in float */
    const float v = (float)man * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return dlg_bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

static inline uint16_t dlg_float_to_f16(float f)
{
  const uint32_t u = dlg_float_bits(f), sign = (u >> 16) & 0x8000, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff)); /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds to >= 65520: Inf */
  if (a < 0x38800000u) {
    /* below 2^-14: a subnormal result, round(|f| * 2^24) ulps of 2^-24 */
    const uint32_t man = (a & 0x7fffffu) | 0x800000u;
    /* |f| = man * 2^(e-150), i.e. man >> (126 - e) units of 2^-24 */
    const int shift = 126 - (int)(a >> 23);
    uint32_t q, rem, half;
    if (a < 0x33000000u) return (uint16_t)sign; /* below 2^-25: rounds to zero */
    q = man >> shift;
    rem = man & ((1u << shift) - 1);
    half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return (uint16_t)(sign | q);
  }
  {
    /* normal: rebias 127 -> 15 and round the 13 dropped bits */
    uint32_t v = a - 0x38000000u; /* exponent - 112 */
    v += 0xfffu + ((v >> 13) & 1);
    return (uint16_t)(sign | (v >> 13));
  }
}

#endif
