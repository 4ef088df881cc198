"""_direct.py - the common case without the DLPack exchange: torch CUDA
tensors on their device's current stream, and NumPy arrays, described to
dlgemm_matmul straight from their attributes.

Why: on the H100, exporting one torch tensor through ``__dlpack__`` costs
5.6 us and ``torch.cuda.current_stream()`` 8.3 us, while ``data_ptr()``,
``stride()`` and the raw current stream cost 0.2-0.3 us each; a NumPy
array's ``ctypes.data`` costs 1.7 us on the CI machine, a buffer export 0.3.
Nothing of the protocol's guarantees is lost in these cases: no capsule is
made, so no deleter is owed; the product is queued on the stream the tensors'
producer uses (the caller's current stream), so no cross-stream ordering is
owed; the caller holds the tensors for the call, and torch's caching
allocator reuses freed memory in stream order.  Anything else (another
stream, operands on two devices, another framework, an argument this path
does not read) is declined, and the caller takes the DLPack path.

The three DLTensors and the options live in one per-thread block of int64
words, written by one struct.pack_into:
  options   [struct_size, precision, stream]
  tensor x3 [data, device, ndim|dtype, &shape, &strides, byte_offset,
             shape[3], strides[3]]
"""
import ctypes
import struct
import threading

from ._lib import PRECISIONS, error, library

DECLINED = object()

kDLCPU, kDLCUDA = 1, 2
_OPTS_WORDS, _TENSOR_WORDS = 3, 12
_WORDS = _OPTS_WORDS + 3 * _TENSOR_WORDS


def _dtype_word(code, bits):
    return (code << 32) | (bits << 40) | (1 << 48)  # lanes 1, ndim or'ed in


class _Block:
    """One thread's words, and the addresses they point at."""

    def __init__(self):
        self.words = (ctypes.c_int64 * _WORDS)()
        base = ctypes.addressof(self.words)
        self.tensor = [base + 8 * (_OPTS_WORDS + i * _TENSOR_WORDS) for i in range(3)]
        self.shape = [t + 48 for t in self.tensor]
        self.strides = [t + 72 for t in self.tensor]
        # The call's pointer arguments, made once: ctypes passes them as they are.
        self.pa, self.pb, self.pc = (ctypes.c_void_p(t) for t in self.tensor)
        self.po = ctypes.c_void_p(base)
        self.packers = {}
        self.pack2 = self.packer((2, 2, 2), False).pack_into
        self.abc = (self.pa, self.pb, self.pc)

    def packer(self, ndims, with_strides=True):
        """The struct for operands of these ndims (strides written, or left to
        NULL: compact row-major)."""
        key = (ndims, with_strides)
        p = self.packers.get(key)
        if p is None:
            fmt = "=3q"
            for nd in ndims:
                pad = "%dx" % (8 * (3 - nd)) if nd < 3 else ""
                fmt += "6q%dq%s" % (nd, pad)
                fmt += "%dq%s" % (nd, pad) if with_strides else "24x"
            p = self.packers[key] = struct.Struct(fmt)
        return p


_local = threading.local()


def _block():
    try:
        return _local.block
    except AttributeError:
        b = _local.block = _Block()
        return b


# alpha and beta as C doubles; the usual values made once (+0 and -0 are one
# key, and BLAS semantics do not tell them apart: alpha or beta == 0 skips
# that term).
_DOUBLES = {v: ctypes.c_double(v) for v in (0.0, 1.0, -1.0, 0.5, 2.0)}


def _double(x):
    d = _DOUBLES.get(x)
    return d if d is not None else ctypes.c_double(x)


def _result_shape(sa, sb):
    shape = (sa[-2], sb[-1])
    if len(sa) == 3 or len(sb) == 3:
        batch = [s[0] for s in (sa, sb) if len(s) == 3]
        shape = (max(batch) if 1 in batch else batch[0],) + shape
    return shape


def call(a, b, c, device_word, dtype_words, alpha, beta, precision, stream):
    """dlgemm_matmul on three described operands; each of a, b, c is
    (data, shape, strides) with strides in elements.  Returns the status."""
    blk = _block()
    (da, sa, ta), (db, sb, tb), (dc, sc, tc) = a, b, c
    na, nb, nc = len(sa), len(sb), len(sc)
    (ap, bp, cp), (at, bt, ct) = blk.shape, blk.strides
    blk.packer((na, nb, nc)).pack_into(
        blk.words, 0, 24, precision, stream or 0,
        da, device_word, dtype_words[0] | na, ap, at, 0, *sa, *ta,
        db, device_word, dtype_words[1] | nb, bp, bt, 0, *sb, *tb,
        dc, device_word, dtype_words[2] | nc, cp, ct, 0, *sc, *tc)
    return _matmul(blk.pa, blk.pb, blk.pc, _double(alpha), _double(beta), blk.po)


_matmul = None  # dlgemm_matmul without argtypes: its arguments come as ctypes objects


# --- torch ----------------------------------------------------------------------------
class Torch:
    """What the direct path needs of torch, looked up once."""

    def __init__(self, torch):
        self.torch = torch
        self.types = (torch.Tensor, torch.nn.Parameter)
        self.words = {torch.float32: _dtype_word(2, 32), torch.float64: _dtype_word(2, 64),
                      torch.float16: _dtype_word(2, 16), torch.bfloat16: _dtype_word(4, 16)}
        self.half = (torch.float16, torch.bfloat16)
        self.raw_stream = torch._C._cuda_getCurrentRawStream  # 0.25 us; current_stream() 8
        self.empty_strided = torch.empty_strided  # 2.0 us; Tensor.new_empty 5.4
        self.devices = _Devices(torch)  # index -> torch.device: Tensor.device costs 0.24 us

    def run(self, dev, a, sa, b, sb, c, sc, tc, wa, wc, alpha, beta, precision, stream):
        """dlgemm_matmul on CUDA tensors of device dev whose shapes (and C's
        strides) the caller has read already: each read of a torch tensor's
        attribute costs 0.2-0.3 us, and a registered mm pays for each."""
        return call((a.data_ptr(), sa, a.stride()), (b.data_ptr(), sb, b.stride()),
                    (c.data_ptr(), sc, tc), kDLCUDA | (dev << 32), (wa, wa, wc), alpha, beta,
                    precision, stream)

    def matmul(self, a, b, out, alpha, beta, precision, stream):
        types, words = self.types, self.words
        if type(b) not in types or (out is not None and type(out) not in types):
            return DECLINED
        dt = a.dtype
        w = words.get(dt)
        dev = a.get_device()  # -1 on the CPU
        if w is None or b.dtype is not dt or dev < 0 or b.get_device() != dev:
            return DECLINED
        sa, sb = a.shape, b.shape
        if len(sa) < 2 or len(sb) < 2 or a.requires_grad or b.requires_grad:
            return DECLINED  # the DLPack path reports torch's own refusal
        current = self.raw_stream(dev)
        if stream is not None and int(getattr(stream, "cuda_stream", stream)) != current:
            return DECLINED  # ordering across streams: the DLPack exchange does it
        if out is None:
            sc = _result_shape(sa, sb)
            tc = _compact_strides(sc)
            c, wc = self.empty_strided(sc, tc, dtype=dt, device=self.devices[dev]), w
        else:
            wc = words.get(out.dtype)
            if out.get_device() != dev or out.requires_grad or not (
                    wc == w or (dt in self.half and out.dtype is self.torch.float32)):
                return DECLINED
            c, sc, tc = out, out.shape, out.stride()
        st = self.run(dev, a, sa, b, sb, c, sc, tc, w, wc, alpha, beta, PRECISIONS[precision],
                      current)
        if st:
            raise error(st)
        return c


class _Devices(dict):
    def __init__(self, torch):
        super().__init__()
        self.torch = torch

    def __missing__(self, index):
        d = self[index] = self.torch.device("cuda", index)
        return d


def _compact_strides(shape):
    if len(shape) == 2:
        return (shape[1], 1)
    return (shape[1] * shape[2], shape[2], 1)


# --- NumPy ------------------------------------------------------------------------------
class Numpy:
    def __init__(self, np):
        self.np = np
        # Keyed by the native dtype objects themselves: a byte-swapped float32
        # has the same type number but is another dtype, and is declined.
        self.words = {np.dtype(np.float32): _dtype_word(2, 32),
                      np.dtype(np.float64): _dtype_word(2, 64),
                      np.dtype(np.float16): _dtype_word(2, 16)}
        self.f32, self.f64 = np.dtype(np.float32), np.dtype(np.float64)

    def describe(self, x):
        """(data, shape, strides) of an array, or None if its byte strides are
        not whole elements."""
        size = x.itemsize
        strides = tuple(s // size for s in x.strides)
        if any(s * size != t for s, t in zip(strides, x.strides)):
            return None
        return x.ctypes.data, x.shape, strides

    def fast(self):
        """matmul() for this process's NumPy: a closure over everything it
        reads, since at 8 x 8 every attribute lookup shows in the time."""
        ndarray, empty, f32, f64 = self.np.ndarray, self.np.empty, self.f32, self.f64
        w32, w64 = self.words[f32] | 2, self.words[f64] | 2
        addr, buf, general = ctypes.addressof, ctypes.c_char.from_buffer, self.general
        precisions, doubles, c_double, local = PRECISIONS, _DOUBLES, ctypes.c_double, _local

        def matmul(a, b, out, alpha, beta, precision, stream):
            dt = a.dtype
            if dt is f32:
                w = w32
            elif dt is f64:
                w = w64
            else:
                return general(a, b, out, alpha, beta, precision)
            sa, sb = a.shape, b.shape
            if type(b) is not ndarray or b.dtype is not dt or len(sa) != 2 or len(sb) != 2:
                return general(a, b, out, alpha, beta, precision)
            if out is None:
                sc = (sa[0], sb[1])
                out = empty(sc, dt)
            elif type(out) is not ndarray or out.dtype is not dt:
                return general(a, b, out, alpha, beta, precision)
            else:
                sc = out.shape
                if len(sc) != 2:
                    return general(a, b, out, alpha, beta, precision)
            try:
                # A buffer export succeeds only for a writable, C-contiguous,
                # non-empty array: then it is compact row-major, strides NULL.
                da, db, dc = addr(buf(a)), addr(buf(b)), addr(buf(out))
            except (TypeError, ValueError, BufferError):
                return general(a, b, out, alpha, beta, precision)
            try:
                blk = local.block
            except AttributeError:
                blk = _block()
            ap, bp, cp = blk.shape
            blk.pack2(blk.words, 0, 24, precisions[precision], 0,
                      da, kDLCPU, w, ap, 0, 0, *sa,
                      db, kDLCPU, w, bp, 0, 0, *sb,
                      dc, kDLCPU, w, cp, 0, 0, *sc)
            ca, cb = doubles.get(alpha), doubles.get(beta)
            st = _matmul(*blk.abc, c_double(alpha) if ca is None else ca,
                         c_double(beta) if cb is None else cb, blk.po)
            if st:
                raise error(st)
            return out
        return matmul

    def general(self, a, b, out, alpha, beta, precision):
        """Views, read-only inputs, empty arrays, batches, float16: the strides
        written."""
        nd = self.np.ndarray
        if type(b) is not nd or (out is not None and type(out) is not nd):
            return DECLINED
        w = self.words.get(a.dtype)
        if w is None or b.dtype != a.dtype or a.ndim < 2 or b.ndim < 2:
            return DECLINED
        if out is None:
            out = self.np.empty(_result_shape(a.shape, b.shape), a.dtype)
        elif out.dtype != a.dtype or not out.flags.writeable:
            return DECLINED  # the DLPack path reports the read-only or dtype refusal
        da, db, dc = self.describe(a), self.describe(b), self.describe(out)
        if da is None or db is None or dc is None:
            return DECLINED
        st = call(da, db, dc, kDLCPU, (w, w, w), alpha, beta, PRECISIONS[precision], 0)
        if st:
            raise error(st)
        return out


def adapter(t):
    """The direct path's matmul(a, b, out, alpha, beta, precision, stream) for
    a first operand of type t, or None; a framework is imported only when the
    caller already holds one of its objects."""
    root = t.__module__.split(".")[0]
    if root == "torch":
        ad = torch_adapter()
        if ad is not None and t in ad.types:
            return ad.matmul
    elif root == "numpy":
        import numpy
        if t is numpy.ndarray:
            return Numpy(numpy).fast()
    return None


_torch = []


def torch_adapter():
    """The Torch adapter (one per process), or None without a CUDA torch."""
    if not _torch:
        import torch
        _torch.append(Torch(torch) if torch.cuda.is_available() else None)
    bind()
    return _torch[0]


def bind():
    global _matmul
    if _matmul is None:
        _matmul = library()["dlgemm_matmul"]  # a function object of its own, untyped
