#!/usr/bin/env python3
"""test_convert_ml_dtypes.py: the host reference of ndx's value conversions
(tests/convert_ref.c, through tests/convert_ref_dump.c) against ml_dtypes
0.7 and NumPy's astype, over every ordered pair of the 18 types, as TAP.

Usage: test_convert_ml_dtypes.py PATH_TO_CONVERT_REF_DUMP

Run it with a python that imports numpy and ml_dtypes 0.7 (ci/setup makes
one, /opt/ndx-python); without them it prints a skip plan and exits 0.

Source values: every bit pattern of the types of 16 bits or fewer (bool: 0
and 1); for the 32- and 64-bit types +-0, infinities, NaNs with payloads,
every destination's largest finite value, the halfway points beside it and
the values just past it, its subnormal and normal limits, integer limits,
the halfway points of every float precision near each power of two, and
random patterns of a fixed seed.

What each pair is compared with:
  - ml_dtypes' or NumPy's astype, bit for bit, where it defines the result;
  - the same type on both sides: the source's bits (a copy);
  - where it yields a NaN, the destination's canonical NaN with the sign
    astype gave (ndx drops payloads; NumPy keeps them);
  - float to integer where the truncated value is outside the integer
    type's range, or NaN: NumPy leaves these undefined, so ndx's rule
    (saturate, NaN to 0) is computed here instead.
"""
import struct
import subprocess
import sys
import warnings

try:
    import numpy as np
    import ml_dtypes
except ImportError as e:
    print("1..0 # SKIP numpy and ml_dtypes not importable: %s" % e)
    sys.exit(0)

if not ml_dtypes.__version__.startswith("0.7."):
    print("1..0 # SKIP ml_dtypes %s: the rules are ml_dtypes 0.7's" % ml_dtypes.__version__)
    sys.exit(0)

if len(sys.argv) != 2:
    sys.stderr.write("usage: test_convert_ml_dtypes.py PATH_TO_CONVERT_REF_DUMP\n")
    sys.exit(2)
DUMP = sys.argv[1]

# name: (NumPy dtype, bits, kind); kind "b" bool, "i" signed, "u" unsigned,
# "f" float. The order is ndx_dtype's.
TYPES = {
    "bool": (np.dtype(bool), 8, "b"),
    "i8": (np.dtype(np.int8), 8, "i"),
    "i16": (np.dtype(np.int16), 16, "i"),
    "i32": (np.dtype(np.int32), 32, "i"),
    "i64": (np.dtype(np.int64), 64, "i"),
    "u8": (np.dtype(np.uint8), 8, "u"),
    "u16": (np.dtype(np.uint16), 16, "u"),
    "u32": (np.dtype(np.uint32), 32, "u"),
    "u64": (np.dtype(np.uint64), 64, "u"),
    "i4": (np.dtype(ml_dtypes.int4), 4, "i"),
    "u4": (np.dtype(ml_dtypes.uint4), 4, "u"),
    "f16": (np.dtype(np.float16), 16, "f"),
    "bf16": (np.dtype(ml_dtypes.bfloat16), 16, "f"),
    "f32": (np.dtype(np.float32), 32, "f"),
    "f64": (np.dtype(np.float64), 64, "f"),
    "f8e4m3fn": (np.dtype(ml_dtypes.float8_e4m3fn), 8, "f"),
    "f8e5m2": (np.dtype(ml_dtypes.float8_e5m2), 8, "f"),
    "f4e2m1fn": (np.dtype(ml_dtypes.float4_e2m1fn), 4, "f"),
}
# Canonical NaNs (DESIGN.md); f4e2m1fn has none.
CANONICAL_NAN = {"f16": 0x7E00, "bf16": 0x7FC0, "f32": 0x7FC00000,
                 "f64": 0x7FF8000000000000, "f8e4m3fn": 0x7F, "f8e5m2": 0x7E}
# Each float's largest finite value, the spacing below it, least subnormal
# and least normal value.
LIMITS = {
    "f16": (65504.0, 32.0, 2.0**-24, 2.0**-14),
    "bf16": (float(ml_dtypes.finfo(ml_dtypes.bfloat16).max), 2.0**120, 2.0**-133, 2.0**-126),
    "f32": (float(np.finfo(np.float32).max), 2.0**104, 2.0**-149, 2.0**-126),
    "f64": (float(np.finfo(np.float64).max), 2.0**971, 2.0**-1074, 2.0**-1022),
    "f8e4m3fn": (448.0, 32.0, 2.0**-9, 2.0**-6),
    "f8e5m2": (57344.0, 8192.0, 2.0**-16, 2.0**-14),
    "f4e2m1fn": (6.0, 2.0, 0.5, 1.0),
}
PRECISIONS = (2, 3, 4, 8, 11, 24, 53)
UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def mask(bits):
    return (1 << bits) - 1


def to_array(name, pattern):
    """A NumPy array of type `name` holding the bit patterns (uint64)."""
    dt, bits, kind = TYPES[name]
    if kind == "b":
        return (pattern & 1).astype(bool)
    if bits == 4:
        low = (pattern & 0xF).astype(np.uint8)
        if kind == "f":
            return low.view(dt)
        values = low.astype(np.int16)
        if kind == "i":
            values = np.where(values >= 8, values - 16, values)
        return values.astype(dt)
    return (pattern & np.uint64(mask(bits))).astype(UINT[bits]).view(dt)


def to_bits(name, a):
    """The bit patterns (uint64) of an array of type `name`."""
    dt, bits, kind = TYPES[name]
    if kind == "b":
        return a.astype(np.uint64)
    if bits == 4:
        raw = a.view(np.uint8) if kind == "f" else a.astype(np.int8).view(np.uint8)
        return (raw & 0xF).astype(np.uint64)
    return a.view(UINT[bits]).astype(np.uint64)


def sources(name, rng):
    """The source patterns of type `name`, as uint64."""
    dt, bits, kind = TYPES[name]
    if kind == "b":
        return np.array([0, 1], np.uint64)
    if bits <= 16:
        return np.arange(1 << bits, dtype=np.uint64)
    vals = set()
    if kind in "iu":
        ints = [0]
        for k in range(1, 65):
            p = 1 << k
            ints += [p, -p]
            for prec in PRECISIONS:
                q = k - prec
                if q >= 0:
                    for t in (p + (1 << q), p + 3 * (1 << q), 2 * p - (1 << q)):
                        ints += [t, -t]
        for lim in LIMITS.values():
            if lim[0] < 2.0**64:
                for x in (lim[0], lim[0] + lim[1] / 2):
                    ints += [int(x), -int(x)]
        for x in ints:
            for d in (-2, -1, 0, 1, 2):
                vals.add((x + d) & mask(64))
        randoms = rng.integers(0, 2**64, size=20000, dtype=np.uint64, endpoint=False)
        out = np.array(sorted(vals), dtype=np.uint64)
        return np.concatenate([out, randoms])
    ft = np.float64 if bits == 64 else np.float32
    anchors = [0.0, 1.0, 1.5, 0.5]
    for lim in LIMITS.values():
        mx, ulp, sub, normal = lim
        anchors += [mx, mx + ulp / 2, mx + ulp, mx - ulp / 2, sub, sub / 2, sub * 1.5, sub / 4,
                    sub * 2, normal, normal - sub, normal - sub / 2, normal + sub / 2]
    for k in range(-2, 66):
        p = 2.0**k
        anchors += [p, p - 0.5, p + 0.5, p - 1]
    with np.errstate(all="ignore"):
        a = np.array([x for x in anchors if np.isfinite(x)], np.float64).astype(ft)
        inf = ft(np.inf)
        near = [a, np.nextafter(a, inf), np.nextafter(a, -inf),
                np.nextafter(np.nextafter(a, inf), inf), np.nextafter(np.nextafter(a, -inf), -inf)]
        near = np.concatenate(near)
        near = np.concatenate([near, -near, np.array([np.inf, -np.inf], ft)])
    b = near.view(UINT[bits]).astype(np.uint64)
    exp_bits, man_bits = (11, 52) if bits == 64 else (8, 23)
    inf_bits = mask(exp_bits) << man_bits
    quiet = 1 << (man_bits - 1)
    sign = 1 << (bits - 1)
    nans = [inf_bits | quiet, inf_bits | 1, inf_bits | (quiet - 1), inf_bits | quiet | 1,
            inf_bits | (quiet >> 1), inf_bits | (2 * quiet - 1), 1]
    nans += [x | sign for x in nans]
    randoms = rng.integers(0, 2**bits, size=20000, dtype=np.uint64, endpoint=False)
    banded = rng.integers(0, 2**bits, size=20000, dtype=np.uint64, endpoint=False)
    bias = mask(exp_bits - 1)
    spread = 150 if bits == 64 else 127
    e = (rng.integers(-spread, spread + 1, size=20000) + bias).clip(0, mask(exp_bits))
    banded = (banded & ~np.uint64(mask(exp_bits) << man_bits)) | (
        e.astype(np.uint64) << np.uint64(man_bits))
    return np.unique(np.concatenate([b, np.array(nans, np.uint64), randoms, banded]))


def reference(src, dst, pattern):
    out = subprocess.run([DUMP, src, dst], input=pattern.astype("<u8").tobytes(),
                         stdout=subprocess.PIPE, check=True).stdout
    return np.frombuffer(out, dtype="<u8").astype(np.uint64)


def expected(src, dst, pattern):
    """What ml_dtypes / NumPy give, with ndx's rules where they give none."""
    _, sbits, skind = TYPES[src]
    ddt, dbits, dkind = TYPES[dst]
    a = to_array(src, pattern)
    if src == dst:  # exactly a copy: the bits, a NaN's payload too
        return to_bits(dst, a)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = to_bits(dst, a.astype(ddt))
        if skind == "f" and dkind in "iu":
            x = a.astype(np.float64)  # exact for every float type
            lo = -(2.0 ** (dbits - 1)) if dkind == "i" else 0.0
            hi = 2.0 ** (dbits - 1) if dkind == "i" else 2.0**dbits  # the first value past
            t = np.trunc(x)
            undefined = np.isnan(x) | (t < lo) | (t >= hi)
            lo_int = -(1 << (dbits - 1)) if dkind == "i" else 0
            hi_int = (1 << (dbits - 1)) - 1 if dkind == "i" else mask(dbits)
            rule_int = np.array([0 if np.isnan(v) else (lo_int if v < 0 else hi_int) & mask(dbits)
                                 for v in x[undefined]], np.uint64)
            want[undefined] = rule_int
        if dkind == "f" and dst in CANONICAL_NAN:
            got = a.astype(ddt)
            isnan = np.isnan(got.astype(np.float64))
            sign = want >> np.uint64(dbits - 1) & np.uint64(1)
            canon = np.uint64(CANONICAL_NAN[dst]) | (sign << np.uint64(dbits - 1))
            want = np.where(isnan, canon, want)
    return want


def main():
    rng = np.random.default_rng(20261205)
    names = list(TYPES)
    cases = {name: sources(name, rng) for name in names}
    n = 0
    failed = 0
    total = 0
    for src in names:
        for dst in names:
            n += 1
            pattern = cases[src]
            got = reference(src, dst, pattern)
            want = expected(src, dst, pattern)
            total += len(pattern)
            bad = np.nonzero(got != want)[0]
            if len(bad):
                failed += 1
                print("not ok %d - %s -> %s: %d of %d differ" % (n, src, dst, len(bad),
                                                                len(pattern)))
                for k in bad[:5]:
                    print("#   source 0x%x: reference 0x%x, ml_dtypes/NumPy (or the rule) 0x%x"
                          % (int(pattern[k]), int(got[k]), int(want[k])))
            else:
                print("ok %d - %s -> %s: %d values" % (n, src, dst, len(pattern)))
    print("# %d conversions over %d pairs, ml_dtypes %s, NumPy %s"
          % (total, n, ml_dtypes.__version__, np.__version__))
    print("1..%d" % n)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
