#!/usr/bin/env python3
"""Writes the hand-made seeds of tests/fuzz/corpus/<target>/ (seed-*), each an
input in the byte encoding its target decodes (see the fuzz_<target>.c and
fz_layout in fuzz.h). Run from anywhere; rewrites only files named seed-*.
The rest of each corpus was found by libFuzzer and minimized with -merge=1."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent / "corpus"


def small(v, rng):  # fz_small(r, rng): byte % (2*rng+1) - rng
    return v + rng


def layout(shape, strides, offset):
    """fz_layout's bytes: rank, then per axis extent (small 2, +2) and stride
    (small 9), then the offset byte (% 24 - 2) added to the flip offset."""
    out = [len(shape)]
    for d, s in zip(shape, strides):
        out += [small(d - 2, 2), small(s, 9)]
    flip = sum((d - 1) * -s for d, s in zip(shape, strides) if d > 1 and s < 0)
    out.append(offset - flip + 2)
    return out


def contiguous(shape):
    strides, step = [], 1
    for d in reversed(shape):
        strides.insert(0, step)
        step *= d
    return strides


LAYOUTS = {
    "contig234": layout([2, 3, 4], contiguous([2, 3, 4]), 0),
    "transpose": layout([4, 3], [1, 4], 0),
    "flip": layout([3, 4], [-4, 1], 0),
    "bcast": layout([3, 4], [0, 1], 1),
    "unit_axes": layout([1, 3, 1, 2], [0, 2, 0, 1], 0),
    "empty": layout([2, 0, 3], [3, 1, 1], 0),
    "rank0": layout([], [], 5),
    "gaps": layout([2, 2, 2], [8, 3, 1], 2),
    "overlap": layout([3, 3], [1, 1], 0),
    "rank6": layout([2, 2, 2, 2, 2, 2], contiguous([2] * 6), 0),
}


def wide(v):
    """fz_wide's bytes for any int64 v: kind 4 (eight bytes, big-endian)."""
    return [4, 3] + list((v % 2**64).to_bytes(8, "big"))


# fuzz_index: a call (see decode in fuzz_index.c).
WIDTHS = [1, 2, 4, 8, 16, 32, 64, 128]


def pick_c_order(rank, offset=0):
    """pick_layout's bytes for the strides of a C-order parent."""
    return [offset, 1] + [1, 1] * rank


def pick_strides(strides, offset=0):
    """pick_layout's bytes for random strides (read last axis first)."""
    return [offset, 0] + [small(s, 9) for s in reversed(strides)]


def index_call(scatter, same, axis, extent, other, index, bits, index_bits=32, flags=0,
               bcast=(0,), values=(), fault=False, cuda=False, hostile=(0,)):
    """The call's bytes (`hostile`: the byte that breaks something and the
    bytes it reads), then the run's: values (2k for k, 2k+1 for k - d with
    NDX_INDEX_WRAP) in C order over S, any value with `fault`."""
    head = int(scatter) | int(cuda) << 1
    width = [WIDTHS.index(bits)] if bits in WIDTHS else [240, small(bits, 130)]
    index_width = ([int(index_bits == 64)] if index_bits in (32, 64)
                   else [240, small(index_bits, 70)])
    return ([head] + same + [axis, extent] + other + index + list(bcast) + list(hostile) + width +
            index_width + [flags, 255 if fault else 0] + list(values))


INDEX = {
    # index_select / embedding: a 1-d index broadcast over S (stride 0 off the axis)
    "select": index_call(False, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                         pick_strides([1, 0]), 32, bcast=[1], values=[6, 2, 0, 4] * 3),
    "embedding16": index_call(False, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                              pick_strides([1, 0]), 16, 64, bcast=[1], values=[2, 2, 6] * 4),
    "take_along": index_call(False, layout([3, 4], [4, 1], 0), 1, 3, pick_c_order(2),
                             pick_c_order(2), 8, values=[0, 2, 4, 2, 0, 4] * 2),
    "wrap": index_call(False, layout([2, 3], [3, 1], 0), 1, 4, pick_c_order(2),
                       pick_c_order(2), 64, 32, flags=1, values=[1, 3, 5, 7, 0, 2]),
    "transposed": index_call(False, layout([3, 4], [1, 3], 0), 0, 2, pick_strides([-1, 2], 0),
                             pick_strides([2, 0]), 32, values=[0, 2] * 6),
    "gather_2bit_rows": index_call(False, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                                   pick_strides([1, 0]), 2, bcast=[1], values=[6, 0, 2] * 4),
    "gather_1bit": index_call(False, layout([2, 3, 2], [6, 2, 1], 0), 1, 3, pick_c_order(3),
                              pick_c_order(3), 1, values=[0, 2, 4] * 4),
    "kv_cache": index_call(True, layout([2, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                           pick_strides([1, 0]), 16, 64, flags=2, bcast=[1], values=[6, 2] * 4),
    "winners": index_call(True, layout([3, 4], [4, 1], 0), 0, 2, pick_c_order(2),
                          pick_strides([1, 0]), 32, bcast=[1], values=[2, 0, 2] * 4),
    "winners_scatter_add": index_call(True, layout([3, 2], [2, 1], 0), 1, 3, pick_c_order(2),
                                      pick_c_order(2), 64, 64, values=[4, 4, 0, 2, 2, 2]),
    "claims_4bit_rows": index_call(True, layout([2, 4], [4, 1], 0), 0, 3, pick_c_order(2),
                                   pick_strides([1, 0]), 4, bcast=[1], values=[4, 0] * 4),
    "claims_1bit": index_call(True, layout([3, 3], [3, 1], 0), 1, 4, pick_c_order(2),
                              pick_c_order(2), 1, flags=3, values=[1, 7, 0, 2, 2, 6, 5, 3, 1]),
    "unique_broken": index_call(True, layout([4], [1], 0), 0, 2, pick_c_order(1),
                                pick_c_order(1), 8, flags=2, values=[0, 2, 0, 2]),
    "fault": index_call(False, layout([2, 3], [3, 1], 0), 0, 3, pick_c_order(2),
                        pick_c_order(2), 32, fault=True, values=[0, 2, 250, 4, 2, 0]),
    "fault_wrap": index_call(True, layout([3], [1], 0), 0, 3, pick_c_order(1),
                             pick_c_order(1), 16, 64, flags=1, fault=True, values=[1, 3, 226]),
    # refusals
    "axis_out": index_call(False, layout([3, 4], [4, 1], 0), 245, 4, pick_c_order(2),
                           pick_c_order(2), 32),
    "bits_3": index_call(False, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                         pick_c_order(2), 3),
    "index_bits_16": index_call(True, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                                pick_c_order(2), 32, 16),
    "dst_repeats": index_call(True, layout([2, 3], [3, 1], 0), 1, 3, pick_strides([1, 1]),
                              pick_c_order(2), 32),
    "shape_mismatch": index_call(False, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                                 pick_c_order(2), 32, hostile=[224, 0, 2, 1]),
    "broken_dst": index_call(False, layout([3, 4], [4, 1], 0), 0, 4, pick_c_order(2),
                             pick_c_order(2), 32, hostile=[243, 1, 3]),
    "broken_index_canonical": index_call(False, layout([3, 1], [1, 0], 0), 0, 2, pick_c_order(2),
                                         pick_c_order(2), 32, hostile=[245, 1, 6, 14]),
    "wide_positions": index_call(False, [246, 200, 2, 0, 6, 3, 31, 200, 2], 0, 3,
                                 pick_c_order(1), pick_c_order(1), 64, 64, values=[2, 4]),
    "claims_past_int32": ([1, 246, 0, 0, 4, 200, 10, 200, 2, 0, 3] + pick_c_order(1) +
                          pick_c_order(1) + [0, 0, 5, 0, 0]),
}


# fuzz_dlpack: a tensor (see decode in fuzz_dlpack.c), then maybe an export.
DTYPES = [(1, 1), (2, 1), (4, 1), (8, 1), (16, 1), (32, 1), (64, 1), (128, 1),
          (8, 2), (16, 2), (32, 4), (64, 2), (8, 16), (16, 8), (4, 2), (2, 2), (1, 4)]


def extent(d):
    return [d] if 0 <= d <= 4 else [240] + wide(d)


def stride(s):
    return [s + 9] if -9 <= s <= 9 else [240] + wide(s)


def tensor(shape, strides, dtype, byte_offset=0, shift=True, code=2, cuda=False, nulls=0):
    """decode's bytes: strides None for compact; byte_offset in whole
    elements when below 26 of them, else as given."""
    head = (0 if strides is None else 1) | (4 if shift else 0) | (16 if cuda else 0)
    out = [head, len(shape)]
    for a, d in enumerate(shape):  # both selector bytes, then any wide values
        e, s = extent(d), stride(strides[a] if strides is not None else 0)
        out += [e[0], s[0]] + e[1:] + s[1:]
    bits, lanes = dtype
    out += [DTYPES.index(dtype) if dtype in DTYPES[:16] else 0, code]
    unit = max(bits * lanes // 8, 1)
    if byte_offset % unit == 0 and byte_offset // unit < 26:
        out += [byte_offset // unit]
    else:
        out += [232] + wide(byte_offset)
    return out + [nulls]


def export(l, bits, lanes=1, how=(0,), nulls=0):
    """check_export's bytes: a layout (fz_layout's), how to break it (the
    byte and what it reads), the width, NULL arrays, code and lanes."""
    axis = [0] if l[0] % 7 > 0 else []  # the axis a break would touch
    width = [WIDTHS.index(bits)] if bits in WIDTHS else [240, small(bits, 130)]
    return l + [how[0]] + axis + list(how[1:]) + width + [nulls, 2, lanes]


DLPACK = {
    # NumPy's exports of docs/dlpack.md section 2
    "reversed_f64": tensor([6], [-1], (64, 1)),
    "flip0_f32": tensor([3, 4], [-4, 1], (32, 1)),
    "flip_f32": tensor([3, 4], [-4, -1], (32, 1)),
    "step_back_i16": tensor([5], [-2], (16, 1)),
    "flip_4bit": tensor([4], [-1], (4, 1)),
    "flip_1bit_offset": tensor([3, 4], [-4, 1], (1, 1), byte_offset=1),
    "compact_u8": tensor([2, 3, 4], None, (8, 1), byte_offset=5),
    "compact_2bit": tensor([2, 4], None, (2, 1), byte_offset=3),
    "float32x4": tensor([3], [1], (32, 4), byte_offset=32),
    "lanes_4bit_pair": tensor([2, 2], [1, 2], (4, 2)),
    "transposed_bf16": tensor([4, 3], [1, 4], (16, 1), code=4, cuda=True),
    "broadcast_f64": tensor([3, 4], [0, 1], (64, 1), byte_offset=16),
    "empty": tensor([2, 0, 3], [-5, 1, 7], (32, 1), byte_offset=3),
    "scalar_u128": tensor([], [], (128, 1), byte_offset=48),
    # refusals
    "flip_no_shift": tensor([3, 4], [-4, 1], (32, 1), shift=False),
    "misaligned_f32": tensor([3], [1], (32, 1))[:-2] + [210, 1, 0],
    "lanes_below_byte": tensor([4], [1], (2, 2)),
    "float6": tensor([4], [1], (8, 1))[:-4] + [240, 6, 1, 0, 2, 0, 0],
    "ndim_33": [1, 240, small(33, 40)] + [2, 10] * 33 + [3, 2, 0, 0],
    "ndim_negative": [1, 240, small(-1, 40), 3, 2, 0, 0],
    "shape_null": tensor([3, 4], [4, 1], (32, 1), nulls=240),
    "t_null": tensor([3], [1], (32, 1), nulls=248),
    "stride_int64_min": tensor([2, 3], [-2**63, 1], (8, 1)),
    "reach_overflow": tensor([3], [2**62], (8, 1)),
    "past_2_53": tensor([2**52, 4], [4, 1], (8, 1)),
    "offset_past_2_53": tensor([2], [1], (8, 1), byte_offset=2**53),
    "below_2_52": tensor([2], [-2**52], (8, 1)),
    "below_2_53": tensor([2], [-2**53], (8, 1)),
    # then exports
    "export_transpose": tensor([3, 4], [4, 1], (32, 1)) + export(layout([4, 3], [1, 4], 0), 16, 2),
    "export_4bit_odd": tensor([2], [1], (8, 1)) + export(layout([3], [1], 1), 4),
    "export_negative_offset": tensor([2], [1], (8, 1)) + export(layout([3], [1], 0), 8,
                                                                how=[240, 0]),
    "export_null_strides": tensor([2], [1], (8, 1)) + export(layout([3, 2], [2, 1], 0), 8,
                                                             nulls=252),
    "export_bits_3": tensor([2], [1], (8, 1)) + export(layout([3], [1], 0), 3),
}


def write(target, name, data):
    d = ROOT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / f"seed-{name}").write_bytes(bytes(b % 256 for b in data))


def main():
    for name, l in LAYOUTS.items():
        # make: head (rank % 8, head % 3 != 0 keeps values small), extents, strides, offset
        rank = l[0]
        head = rank if rank % 3 else rank + 8
        if head % 3 == 0:
            head += 8
        write("make", name, [head] + [b for pair in zip(l[1:-1:2], [x + 3 for x in l[2:-1:2]]) for b in pair] + [l[-1] + 2])
        # iter: the layout, no broadcast (byte 1), then a walk mix
        write("iter", name, l + [1, 0x5a])
        write("iter", name + "-bcast", l + [0, 1, 2, 1, 0xa5])
        # coalesce: the layout, three siblings of each kind
        write("coalesce", name, l + [2, 3, 1] + [0] * 16 + [0, 2] + [0] * 8 + [0, 1] + [0] * 8 + [0])
        # pack: the layout, two operands (a C-order parent), width 32, aligned
        write("pack", name, l + [1, 0, 1] + [0] * 16 + [5, 1] + [0] * 40)
        # apply: the layout, then moves (kind byte after a non-wrapper byte)
        write("apply", name + "-reshape", l + [1, 0, 1, 2, 1])
        write("apply", name + "-permute", l + [1, 2, 1, 0, 1, 1, 1])
        write("apply", name + "-slice", l + [1, 3] + [5, 6, 4, 1] * 6)
        write("apply", name + "-window", l + [1, 4, 1, 6, 5, 4, 4])
        write("apply", name + "-bcast", l + [1, 1, 4, 4, 3, 3, 4, 1])
        write("apply", name + "-wrappers", l + [0, 5, 7, 8, 5, 3, 0, 7, 7, 0, 0, 6, 7, 8, 0, 9, 7])
    # parse: raw texts (odd first byte) and structured values (even)
    texts = [
        "shape=[3,4] strides=[4,1] offset=0",
        "shape=[3,4]",
        "shape=[] offset=7",
        "offset=2 strides=[-1] shape=[5]",
        "shape=[2, 3 ,4] strides=[12,4,1]",
        "shape=[0,5] strides=[5,1] offset=9",
        "shape=[9007199254740992]",
        "shape=[3] strides=[9223372036854775807]",
        "shape=[1,1] strides=[-9223372036854775808,0]",
        "shape=[3,4] strides=[4]",
        "shape=[3,4] shape=[3,4]",
        "shape=[3,,4]",
        "shape=[" + ",".join(["1"] * 33) + "]",
    ]
    for i, t in enumerate(texts):
        write("parse", f"text{i:02d}", [1] + list(t.encode()))
    write("parse", "values-rank3", [2, 3, 3, 6, 2, 3, 1, 4, 0, 1, 3, 0, 0, 0])
    write("parse", "values-c-order", [2, 2, 4, 1, 5, 9, 40, 0, 1, 0])
    for name, data in INDEX.items():
        write("index", name, data)
    for name, data in DLPACK.items():
        write("dlpack", name, data)


if __name__ == "__main__":
    main()
