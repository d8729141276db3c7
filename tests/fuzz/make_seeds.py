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


if __name__ == "__main__":
    main()
