#!/usr/bin/env python3
"""test_dlpack_numpy.py: ndx_dlpack_import and ndx_dlpack_export against
NumPy's own DLPack producer (ndarray.__dlpack__) and consumer (np.from_dlpack),
through ctypes, as TAP.

Usage: test_dlpack_numpy.py PATH_TO_LIBNDX_SO

Run it with a python that imports numpy (Debian's python3-numpy: /usr/bin/python3);
without numpy it prints a skip plan and exits 0. Three directions:

  (a) NumPy -> ndx: arrays and views (flips, negative-step slices, transposes,
      np.flip on several axes, stride-0 broadcasts) of every dtype NumPy
      exports; each element's address by ndx (data + base_shift + position *
      bits / 8) must be NumPy's (ctypes.data + sum i*strides), and the bytes
      there NumPy's element.
  (b) ndx -> NumPy: layouts made by ndx calls over a NumPy-owned buffer,
      exported into a DLManagedTensor built here and read by np.from_dlpack;
      NumPy must see, at every index, the element ndx's position names, and
      must call the deleter.
  (c) round trips, seeded: ndx export -> np.from_dlpack -> NumPy's __dlpack__
      -> ndx import gives every element the address it started at.

The structs are ndx_layout (include/ndx/ndx_layout.h) and DLPack's DLTensor
and DLManagedTensor (dlpack/dlpack.h, unchanged from 0.6 to 1.x).
"""
import ctypes as C
import os
import random
import sys
import traceback

try:
    import numpy as np
except ImportError:
    print("1..0 # SKIP numpy not found")
    sys.exit(0)

if not hasattr(np.ndarray, "__dlpack__") or not hasattr(np, "from_dlpack"):
    print("1..0 # SKIP numpy %s has no DLPack" % np.__version__)
    sys.exit(0)

if len(sys.argv) != 2:
    sys.stderr.write("usage: test_dlpack_numpy.py PATH_TO_LIBNDX_SO\n")
    sys.exit(2)

# ---- The C side ------------------------------------------------------------

MAX_RANK = 32
kDLCPU = 1
kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool = 0, 1, 2, 5, 6


class Layout(C.Structure):
    _fields_ = [
        ("rank", C.c_int32),
        ("flags", C.c_uint32),
        ("offset", C.c_int64),
        ("shape", C.c_int64 * MAX_RANK),
        ("strides", C.c_int64 * MAX_RANK),
    ]

    def describe(self):
        r = self.rank
        return "shape=%s strides=%s offset=%d" % (
            list(self.shape[:r]), list(self.strides[:r]), self.offset)


class Range(C.Structure):
    _fields_ = [("start", C.c_int64), ("count", C.c_int64), ("step", C.c_int64)]


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int), ("device_id", C.c_int)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [
        ("data", C.c_void_p),
        ("device", DLDevice),
        ("ndim", C.c_int),
        ("dtype", DLDataType),
        ("shape", C.POINTER(C.c_int64)),
        ("strides", C.POINTER(C.c_int64)),
        ("byte_offset", C.c_uint64),
    ]


class DLManagedTensor(C.Structure):
    pass


DELETER = C.CFUNCTYPE(None, C.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [
    ("dl_tensor", DLTensor),
    ("manager_ctx", C.c_void_p),
    ("deleter", DELETER),
]

# A path, not a name for the loader's search (meson may pass it relative).
lib = C.CDLL(os.path.abspath(sys.argv[1]) if os.path.exists(sys.argv[1]) else sys.argv[1])
LP = C.POINTER(Layout)
I64P = C.POINTER(C.c_int64)
for name, args in [
    ("ndx_contiguous", [LP, C.c_int, I64P]),
    ("ndx_flip", [LP, LP, C.c_int]),
    ("ndx_slice", [LP, LP, C.POINTER(Range)]),
    ("ndx_permute", [LP, LP, C.POINTER(C.c_int32)]),
    ("ndx_narrow", [LP, LP, C.c_int, C.c_int64, C.c_int64]),
    ("ndx_dlpack_import", [LP, C.POINTER(C.c_int), I64P, C.POINTER(DLTensor)]),
    ("ndx_dlpack_export", [C.POINTER(DLTensor), LP, C.c_int]),
    ("ndx_dlpack_dtype", [C.POINTER(C.c_int), DLDataType]),
]:
    f = getattr(lib, name)
    f.argtypes = args
    f.restype = C.c_int
lib.ndx_dtype_name.argtypes = [C.c_int]
lib.ndx_dtype_name.restype = C.c_char_p
lib.ndx_last_error.argtypes = []
lib.ndx_last_error.restype = C.c_char_p

C.pythonapi.PyCapsule_GetPointer.restype = C.c_void_p
C.pythonapi.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
C.pythonapi.PyCapsule_New.restype = C.py_object
C.pythonapi.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
# A capsule keeps a pointer to its name: this bytes object outlives them all.
CAPSULE_NAME = b"dltensor"


def check(status, what):
    if status != 0:
        raise AssertionError("%s: status %d: %s" % (what, status,
                                                   lib.ndx_last_error().decode()))


def ndx_import(t):
    """ndx_dlpack_import of the DLTensor `t`: (layout, bits, base_shift)."""
    l, bits, shift = Layout(), C.c_int(-1), C.c_int64(12345)
    check(lib.ndx_dlpack_import(C.byref(l), C.byref(bits), C.byref(shift), C.byref(t)),
          "ndx_dlpack_import")
    return l, bits.value, shift.value


def positions(l):
    """Every position of `l`, in C order, by the definition offset + sum i*s."""
    r = l.rank
    shape = tuple(l.shape[:r])
    if r == 0:
        return np.array([l.offset], dtype=np.int64)
    idx = np.indices(shape, dtype=np.int64).reshape(r, -1)
    return l.offset + (np.array(l.strides[:r], dtype=np.int64)[:, None] * idx).sum(axis=0)


def numpy_addresses(a):
    """NumPy's byte address of every element of `a`, in C order."""
    if a.ndim == 0:
        return np.array([a.ctypes.data], dtype=np.int64)
    idx = np.indices(a.shape, dtype=np.int64).reshape(a.ndim, -1)
    return a.ctypes.data + (np.array(a.strides, dtype=np.int64)[:, None] * idx).sum(axis=0)


def element_bytes(root, addresses, itemsize):
    """The bytes at each address, read from `root` (the array owning them)."""
    raw = root.reshape(-1).view(np.uint8)
    off = addresses - root.ctypes.data
    assert off.min(initial=0) >= 0 and off.max(initial=0) + itemsize <= raw.size, \
        "an address outside the array's buffer"
    return raw[off[:, None] + np.arange(itemsize)]


# ---- TAP -------------------------------------------------------------------

results = []


def test(name):
    def run(f):
        try:
            f()
            results.append((name, None))
        except Exception:  # a failed check or an error: both fail the test
            results.append((name, traceback.format_exc()))
        return f
    return run


def skip(name, why):
    results.append((name, "SKIP " + why))


# ---- (a) NumPy -> ndx ------------------------------------------------------

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, np.float32, np.float64, np.complex64, np.complex128]
CODES = {"i": kDLInt, "u": kDLUInt, "f": kDLFloat, "c": kDLComplex, "b": kDLBool}


def filled(shape, dtype, rng):
    """A C-order array of distinct, exactly representable values."""
    n = int(np.prod(shape))
    k = np.arange(n) % (2048 if dtype == np.float16 else 120)
    a = (k + rng.randrange(3)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * (k[::-1] % 50).astype(dtype)
    return a.reshape(shape)


def import_numpy(v, root, what):
    """v.__dlpack__() imported by ndx: every address and byte checked.
    Returns the base shift."""
    cap = v.__dlpack__()
    ptr = C.pythonapi.PyCapsule_GetPointer(cap, CAPSULE_NAME)
    t = DLManagedTensor.from_address(ptr).dl_tensor
    assert t.data == v.ctypes.data, "%s: numpy's data is not element 0" % what
    l, bits, shift = ndx_import(t)
    assert bits == v.itemsize * 8, "%s: %d bits for itemsize %d" % (what, bits, v.itemsize)
    assert shift <= 0, "%s: shift %d" % (what, shift)
    assert l.rank == v.ndim and tuple(l.shape[:l.rank]) == v.shape, \
        "%s: shape %s" % (what, l.describe())
    if v.size == 0:
        assert shift == 0, "%s: an empty view shifted by %d" % (what, shift)
        return shift
    pos = positions(l)
    assert pos.min() >= 0, "%s: negative position in %s" % (what, l.describe())
    ours = t.data + shift + pos * (bits // 8)
    theirs = numpy_addresses(v)
    bad = np.nonzero(ours != theirs)[0]
    assert bad.size == 0, "%s: element %d: ndx %#x, numpy %#x (%s, shift %d)" % (
        what, bad[0], ours[bad[0]], theirs[bad[0]], l.describe(), shift)
    got = element_bytes(root, ours, v.itemsize)
    want = np.ascontiguousarray(v).reshape(-1).view(np.uint8).reshape(-1, v.itemsize)
    assert np.array_equal(got, want), "%s: the bytes at ndx's addresses differ" % what
    # The lowest element is the base itself: a smaller shift would leave
    # positions below 0, a larger one is not the smallest.
    assert shift == 0 or pos.min() == 0, "%s: shift %d not the smallest" % (what, shift)
    assert shift == min(0, int(theirs.min()) - t.data), "%s: shift %d" % (what, shift)
    return shift


def views(a, rng):
    """Named views of `a` of the kinds producers hand out."""
    out = [("array", a)]
    if a.ndim == 0:
        return out
    out.append(("a[::-1]", a[::-1]))
    out.append(("np.flip(a)", np.flip(a)))
    for axis in range(a.ndim):
        out.append(("np.flip(a, %d)" % axis, np.flip(a, axis)))
    if a.ndim >= 2:
        out.append(("np.flip(a, (0, -1))", np.flip(a, (0, a.ndim - 1))))
        out.append(("a.T", a.T))
        out.append(("a.T[::-1]", a.T[::-1]))
        out.append(("np.flip(a.T, 1)", np.flip(a.T, 1)))
    for _ in range(4):
        sl = []
        for d in a.shape:
            step = rng.choice([-3, -2, -1, 1, 2])
            start = rng.randrange(d) if d else None
            sl.append(slice(start, None, step))
        v = a[tuple(sl)]
        perm = list(range(a.ndim))
        rng.shuffle(perm)
        out.append(("a[%s].transpose(%s)" % (sl, perm), v.transpose(perm)))
    # a broadcast NumPy can export: stride 0 on a writeable view
    b = np.lib.stride_tricks.as_strided(a[..., ::-1], shape=(2,) + a.shape,
                                        strides=(0,) + a[..., ::-1].strides, writeable=True)
    out.append(("as_strided broadcast of a[..., ::-1]", b))
    return out


def numpy_to_ndx(dtype, seed):
    rng = random.Random(seed)
    counts = {"views": 0, "shifted": 0}
    for shape in [(), (1,), (7,), (3, 4), (2, 1, 5), (2, 3, 2, 3), (0, 3), (4, 1)]:
        root = filled(shape, dtype, rng)
        for what, v in views(root, rng):
            shift = import_numpy(v, root, "%s %s of shape %s" % (np.dtype(dtype).name, what,
                                                                 shape))
            counts["views"] += 1
            counts["shifted"] += shift < 0
    assert counts["shifted"] > counts["views"] // 4, "few views needed a shift: %s" % counts


for i, dt in enumerate(DTYPES):
    test("numpy -> ndx: %s arrays and views (flips, slices, transposes, broadcasts)"
         % np.dtype(dt).name)(lambda dt=dt, i=i: numpy_to_ndx(dt, 1000 + i))


def try_export(a):
    try:
        return a.__dlpack__(), None
    except (BufferError, TypeError) as e:
        return None, e


@test("numpy -> ndx: a flip from __dlpack__ is ndx_flip of the array, shift -40")
def flip_literal():
    root = np.arange(6, dtype=np.float64)
    v = root[::-1]
    assert import_numpy(v, root, "a[::-1]") == -40
    cap = v.__dlpack__()
    t = DLManagedTensor.from_address(C.pythonapi.PyCapsule_GetPointer(cap, CAPSULE_NAME)).dl_tensor
    l, _, _ = ndx_import(t)
    a, f = Layout(), Layout()
    check(lib.ndx_contiguous(C.byref(a), 1, (C.c_int64 * 1)(6)), "ndx_contiguous")
    check(lib.ndx_flip(C.byref(f), C.byref(a), 0), "ndx_flip")
    assert bytes(l) == bytes(f), "%s != %s" % (l.describe(), f.describe())


cap, err = try_export(np.array([True, False, True]))
if cap is None:
    skip("numpy -> ndx: bool (DLPack code 6)",
         "numpy %s does not export bool (%s)" % (np.__version__, err))
else:
    @test("numpy -> ndx: bool (DLPack code 6), flipped")
    def bool_views():
        root = np.array([[True, False, True], [False, False, True]])
        for what, v in views(root, random.Random(5)):
            import_numpy(v, root, "bool " + what)
        t = DLManagedTensor.from_address(
            C.pythonapi.PyCapsule_GetPointer(root.__dlpack__(), CAPSULE_NAME)).dl_tensor
        assert t.dtype.code == kDLBool and t.dtype.bits == 8, (t.dtype.code, t.dtype.bits)


@test("numpy -> ndx: each exported dtype is the ndx_dtype of the same name")
def numpy_dtypes():
    names = {np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64",
             np.uint8: "u8", np.uint16: "u16", np.uint32: "u32", np.uint64: "u64",
             np.float16: "f16", np.float32: "f32", np.float64: "f64"}
    arrays = [np.zeros(3, dtype) for dtype in names]
    if try_export(np.array([True]))[0] is not None:
        names[np.bool_] = "bool"
        arrays.append(np.zeros(3, np.bool_))
    for a in arrays:
        t = DLManagedTensor.from_address(
            C.pythonapi.PyCapsule_GetPointer(a.__dlpack__(), CAPSULE_NAME)).dl_tensor
        got = C.c_int()
        check(lib.ndx_dlpack_dtype(C.byref(got), t.dtype), "ndx_dlpack_dtype")
        name = lib.ndx_dtype_name(got.value).decode()
        assert name == names[a.dtype.type], "%s: ndx_dlpack_dtype gives %s" % (a.dtype, name)
    c = np.zeros(3, np.complex64)
    t = DLManagedTensor.from_address(
        C.pythonapi.PyCapsule_GetPointer(c.__dlpack__(), CAPSULE_NAME)).dl_tensor
    got = C.c_int(-7)
    assert lib.ndx_dlpack_dtype(C.byref(got), t.dtype) != 0 and got.value == -7, \
        "complex64 is no ndx_dtype"
    assert b"complex" in lib.ndx_last_error(), lib.ndx_last_error()


bc = np.broadcast_to(np.arange(4, dtype=np.int32)[::-1], (3, 4))
cap, err = try_export(bc)
if cap is None:
    skip("numpy -> ndx: np.broadcast_to", "numpy %s does not export read-only arrays (%s)"
         % (np.__version__, err))
else:
    test("numpy -> ndx: np.broadcast_to of a flip")(
        lambda: import_numpy(bc, bc.base if bc.base is not None else bc, "broadcast_to"))

# ---- (b) ndx -> NumPy ------------------------------------------------------


class Producer:
    """An object np.from_dlpack reads: a capsule over a DLManagedTensor built
    here, whose deleter counts its calls. It keeps everything the tensor
    points to alive; NumPy renames the capsule "used_dltensor" and calls the
    deleter once its array is gone."""
    deleted = 0

    def __init__(self, buf, layout, dtype):
        self.buf = buf
        self.shape = (C.c_int64 * MAX_RANK)()
        self.strides = (C.c_int64 * MAX_RANK)()
        m = self.managed = DLManagedTensor()
        m.dl_tensor.data = buf.ctypes.data
        m.dl_tensor.device = DLDevice(kDLCPU, 0)
        m.dl_tensor.shape = self.shape
        m.dl_tensor.strides = self.strides
        m.dl_tensor.dtype = DLDataType(CODES[np.dtype(dtype).kind], 0, 1)
        m.deleter = DELETER(self._deleter)
        bits = np.dtype(dtype).itemsize * 8
        check(lib.ndx_dlpack_export(C.byref(m.dl_tensor), C.byref(layout), bits),
              "ndx_dlpack_export of " + layout.describe())
        self.capsules = []

    def _deleter(self, _ptr):
        Producer.deleted += 1

    def __dlpack__(self, stream=None):
        c = C.pythonapi.PyCapsule_New(C.addressof(self.managed), CAPSULE_NAME, None)
        self.capsules.append(c)
        return c

    def __dlpack_device__(self):
        return (kDLCPU, 0)


def random_layout(rng, max_rank=4, max_extent=5):
    """A layout made by ndx calls: ndx_contiguous, then flips, slices (steps
    of both signs), permutations and narrows. Returns (layout, parent numel)."""
    rank = rng.randrange(1, max_rank + 1)
    shape = [rng.randrange(1, max_extent + 1) for _ in range(rank)]
    l = Layout()
    check(lib.ndx_contiguous(C.byref(l), rank, (C.c_int64 * rank)(*shape)), "ndx_contiguous")
    numel = int(np.prod(shape))
    for _ in range(rng.randrange(0, 4)):
        kind = rng.choice(["flip", "slice", "permute", "narrow"])
        out = Layout()
        r = l.rank
        if kind == "flip":
            check(lib.ndx_flip(C.byref(out), C.byref(l), rng.randrange(r)), "ndx_flip")
        elif kind == "slice":
            ranges = (Range * r)()
            for a in range(r):
                d = l.shape[a]
                step = rng.choice([-2, -1, 1, 2, 3])
                if d == 0:
                    ranges[a] = Range(0, 0, step)
                    continue
                start = rng.randrange(d)
                room = start + 1 if step < 0 else d - start
                count = rng.randrange(1, (room - 1) // abs(step) + 2)
                ranges[a] = Range(start, count, step)
            check(lib.ndx_slice(C.byref(out), C.byref(l), ranges), "ndx_slice")
        elif kind == "permute":
            perm = list(range(r))
            rng.shuffle(perm)
            check(lib.ndx_permute(C.byref(out), C.byref(l), (C.c_int32 * r)(*perm)),
                  "ndx_permute")
        else:
            a = rng.randrange(r)
            d = l.shape[a]
            start = rng.randrange(d + 1)
            check(lib.ndx_narrow(C.byref(out), C.byref(l), a, start,
                                 rng.randrange(d - start + 1)), "ndx_narrow")
        l = out
    return l, numel


def ndx_to_numpy(dtype, seed, n):
    rng = random.Random(seed)
    isz = np.dtype(dtype).itemsize
    before = Producer.deleted
    for _ in range(n):
        l, numel = random_layout(rng)
        buf = filled((numel,), dtype, rng)
        p = Producer(buf, l, dtype)
        arr = np.from_dlpack(p)
        what = "%s %s" % (np.dtype(dtype).name, l.describe())
        assert arr.shape == tuple(l.shape[:l.rank]), "%s: numpy shape %s" % (what, arr.shape)
        if arr.size:
            pos = positions(l)
            got = numpy_addresses(arr)
            want = buf.ctypes.data + pos * isz
            assert np.array_equal(got, want), "%s: numpy reads other addresses" % what
            assert np.array_equal(arr.reshape(-1), buf[pos]), "%s: other elements" % what
        del arr  # the last reference: NumPy calls the deleter now
    assert Producer.deleted - before == n, "numpy called the deleter %d times for %d tensors" % (
        Producer.deleted - before, n)


for i, dt in enumerate([np.int8, np.int16, np.float32, np.float64, np.complex128]):
    test("ndx -> numpy: %s layouts of flips, slices, permutes, narrows" % np.dtype(dt).name)(
        lambda dt=dt, i=i: ndx_to_numpy(dt, 2000 + i, 200))


@test("ndx -> numpy: a flip exported at byte_offset 40 is a[::-1]")
def export_literal():
    buf = np.arange(6, dtype=np.float64)
    a, f = Layout(), Layout()
    check(lib.ndx_contiguous(C.byref(a), 1, (C.c_int64 * 1)(6)), "ndx_contiguous")
    check(lib.ndx_flip(C.byref(f), C.byref(a), 0), "ndx_flip")
    p = Producer(buf, f, np.float64)
    assert p.managed.dl_tensor.byte_offset == 40 and p.shape[0] == 6 and p.strides[0] == -1
    arr = np.from_dlpack(p)
    assert arr.tolist() == buf[::-1].tolist() and arr.ctypes.data == buf.ctypes.data + 40
    del arr
    name = C.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = C.c_char_p, [C.py_object]
    assert name(p.capsules[0]) == b"used_dltensor", name(p.capsules[0])


# ---- (c) round trips -------------------------------------------------------


def writeable_view(arr, keep):
    """The same elements as `arr`, writeable. np.from_dlpack's arrays are
    read-only in NumPy 1.x and NumPy refuses to export read-only arrays, so
    the round trip re-wraps the memory with the very data pointer, shape and
    strides NumPy read from ndx's DLTensor; NumPy's __dlpack__ then describes
    that geometry as it would any array of its own."""
    if arr.flags.writeable:
        return arr

    class View:
        pass
    v = View()
    v.keep = keep
    v.__array_interface__ = {"shape": arr.shape, "typestr": arr.dtype.str,
                             "data": (arr.ctypes.data, False), "strides": arr.strides,
                             "version": 3}
    return np.asarray(v)


def round_trips(n, seed):
    rng = random.Random(seed)
    stats = {"shifted": 0, "total": 0}
    for k in range(n):
        dtype = rng.choice(DTYPES)
        isz = np.dtype(dtype).itemsize
        l, numel = random_layout(rng, max_rank=5, max_extent=4)
        buf = np.zeros(max(numel, 1), dtype=dtype)
        p = Producer(buf, l, dtype)
        arr = np.from_dlpack(p)
        w = writeable_view(arr, (arr, p))
        cap = w.__dlpack__()
        t = DLManagedTensor.from_address(
            C.pythonapi.PyCapsule_GetPointer(cap, CAPSULE_NAME)).dl_tensor
        l2, bits, shift = ndx_import(t)
        what = "round trip %d: %s %s -> %s shift %d" % (k, np.dtype(dtype).name, l.describe(),
                                                        l2.describe(), shift)
        assert bits == isz * 8, what
        assert tuple(l2.shape[:l2.rank]) == tuple(l.shape[:l.rank]), what
        if numel and int(np.prod(l.shape[:l.rank])):
            start = buf.ctypes.data + positions(l) * isz
            back = t.data + shift + positions(l2) * isz
            assert np.array_equal(start, back), what + ": addresses moved"
            lo = positions(l).min()
            # the new base is the lowest element: shift is what lies below data
            assert t.data + shift == buf.ctypes.data + lo * isz, what
            assert (shift < 0) == (positions(l)[0] > lo), what
        stats["total"] += 1
        stats["shifted"] += shift < 0
        del cap, t, w, arr
    assert stats["shifted"] > n // 10, "few round trips needed a shift: %s" % stats


for i in range(4):
    test("round trip ndx -> numpy -> ndx, batch %d of 1000 (seed %d)" % (i, 3000 + i))(
        lambda i=i: round_trips(1000, 3000 + i))

# ---- Report ----------------------------------------------------------------

print("1..%d" % len(results))
failed = 0
for k, (name, why) in enumerate(results, 1):
    if why is None:
        print("ok %d - %s" % (k, name))
    elif why.startswith("SKIP "):
        print("ok %d - %s # %s" % (k, name, why))
    else:
        failed += 1
        print("not ok %d - %s" % (k, name))
        for line in why.rstrip().splitlines():
            print("# " + line)
print("# numpy %s" % np.__version__)
sys.exit(1 if failed else 0)
