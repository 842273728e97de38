// IEEE binary16 ("half") conversions for RGBA16Float outputs, in integer arithmetic on the bits so
// that host and device produce the same halves (round to nearest, ties to even; subnormals,
// infinities and NaN kept) without depending on either compiler's intrinsics.
#pragma once

#include "mip_chain.h" // ESTUARY_HD

#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cstring>
#endif

namespace estuary::sim {

ESTUARY_HD inline uint32_t floatBits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    std::memcpy(&u, &f, sizeof(u));
    return u;
#endif
}

ESTUARY_HD inline float bitsToFloat(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof(f));
    return f;
#endif
}

// `value` shifted right by `shift` (1..31), rounded to nearest with ties to even.
ESTUARY_HD inline uint32_t shiftRoundEven(uint32_t value, uint32_t shift) {
    const uint32_t kept = value >> shift;
    const uint32_t rest = value & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

ESTUARY_HD inline uint16_t floatToHalf(float f) {
    const uint32_t x = floatBits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) // infinity, or NaN (kept quiet)
        return uint16_t(sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u));
    if (a >= 0x477ff000u) return uint16_t(sign | 0x7c00u); // rounds past 65504
    if (a >= 0x38800000u) // a normal half: rebias the exponent (127 -> 15), round the mantissa
        return uint16_t(sign | shiftRoundEven(a - 0x38000000u, 13));
    if (a <= 0x33000000u) return uint16_t(sign); // at most 2^-25: rounds to zero
    // A subnormal half counts units of 2^-24: the float's mantissa (with its implicit bit) shifted
    // by its exponent; rounding up from the largest subnormal gives the smallest normal's bits.
    const uint32_t exponent = a >> 23; // 102..112
    const uint32_t mantissa = (a & 0x7fffffu) | 0x800000u;
    return uint16_t(sign | shiftRoundEven(mantissa, 126u - exponent));
}

ESTUARY_HD inline float halfToFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 31) return bitsToFloat(sign | 0x7f800000u | (mantissa << 13));
    if (exponent != 0) return bitsToFloat(sign | ((exponent + 112u) << 23) | (mantissa << 13));
    if (mantissa == 0) return bitsToFloat(sign);
    exponent = 113; // a subnormal: normalize it, a float has the range
    while (!(mantissa & 0x400u)) {
        mantissa <<= 1;
        --exponent;
    }
    return bitsToFloat(sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13));
}

} // namespace estuary::sim
