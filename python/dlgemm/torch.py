"""dlgemm.torch - PyTorch's CUDA products on dlgemm, with no change to the model.

    import dlgemm.torch
    dlgemm.torch.enable()    # every product, measured or not (DLGEMM_TORCH=1 is the
                             # measured route, below torch: shims/cublas)

registers, through torch.library (pure Python, no extension module), CUDA
kernels for aten::mm, bmm, addmm and baddbmm of float32, float16 and
bfloat16.  torch.matmul and nn.Linear reach them as they decompose (matmul
folds batches into mm or bmm; linear is addmm with a bias, matmul without).
Whatever dlgemm does not take falls back to the kernel torch had before
(kept from torch.library.get_kernel): other dtypes, empty or non-2/3-D
operands, strides dlgemm refuses, stream capture for CUDA graphs, a status
other than OK.  float32 follows torch's TF32 switch
(torch.backends.cuda.matmul.allow_tf32): on, dlgemm's "tf32" precision;
off, strict IEEE FP32.

disable() gives torch its kernels back; stats() counts the calls dlgemm took
and those it gave back, per operator.

addmm's bias costs one extra pass over C here (C is filled with the
broadcast bias, then the product accumulates onto it with beta), where
cuBLASLt fuses the bias into its epilogue.
"""
import collections
import warnings

import torch

from . import _direct

_OPS = ("mm", "bmm", "addmm", "baddbmm")
_state = {"library": None, "originals": {}}
_taken = collections.Counter()
_given_back = collections.Counter()


_allow_tf32 = torch._C._get_cublas_allow_tf32  # torch.backends.cuda.matmul.allow_tf32
_capturing = torch._C._cuda_isCurrentStreamCapturing
_raw_stream = torch._C._cuda_getCurrentRawStream
_empty_strided = torch.empty_strided  # 2.0 us; Tensor.new_empty 5.4
_compact = _direct._compact_strides
_F32 = torch.float32
_WORDS = {}  # dtype -> its DLDataType word: float32, float16, bfloat16 only


def _checked(ts):
    """(dtype, its DLDataType word, device) when the operands share a dtype
    dlgemm takes and a device, and no CUDA graph is being captured (a graph
    replays torch's own kernel); else None."""
    dt = ts[0].dtype
    w = _WORDS.get(dt)
    dev = ts[0].get_device()
    if w is None:
        return None
    for t in ts[1:]:
        if t.dtype is not dt or t.get_device() != dev:
            return None
    return None if _capturing() else (dt, w, dev)


def _product(a, sa, b, sb, sc, checked, alpha=1.0, beta=0.0, fill=None):
    """A fresh compact C of shape sc (filled with `fill` broadcast, when given)
    plus alpha a b on dlgemm; None when dlgemm refused the call."""
    dt, w, dev = checked
    direct = _state["direct"]
    tc = _compact(sc)
    c = _empty_strided(sc, tc, dtype=dt, device=direct.devices[dev])
    if fill is not None:
        c.copy_(fill)
    precision = 1 if dt is _F32 and _allow_tf32() else 0
    st = direct.run(dev, a, sa, b, sb, c, sc, tc, w, w, alpha, beta, precision,
                    _raw_stream(dev))
    return c if st == 0 else None


def _mm(a, b):
    sa, sb = a.shape, b.shape
    if len(sa) != 2 or len(sb) != 2 or sa[1] != sb[0] or 0 in sa or 0 in sb:
        return None
    checked = _checked((a, b))
    return None if checked is None else _product(a, sa, b, sb, (sa[0], sb[1]), checked)


def _bmm(a, b):
    sa, sb = a.shape, b.shape
    if len(sa) != 3 or len(sb) != 3 or sa[0] != sb[0] or sa[2] != sb[1] or 0 in sa or 0 in sb:
        return None
    checked = _checked((a, b))
    return None if checked is None else _product(a, sa, b, sb, (sa[0], sa[1], sb[2]), checked)


def _add_product(bias, a, b, beta, alpha, sc):
    """beta bias + alpha a b, bias broadcast to shape sc (beta 0: bias not read)."""
    sa, sb = a.shape, b.shape
    if isinstance(beta, complex) or isinstance(alpha, complex) or 0 in sa or 0 in sb:
        return None
    checked = _checked((bias, a, b))
    if checked is None:
        return None
    try:
        expanded = bias.expand(sc)
    except RuntimeError:
        return None  # torch's own kernel reports the shape error
    return _product(a, sa, b, sb, sc, checked, float(alpha), float(beta),
                    expanded if beta != 0 else None)


def _addmm(bias, a, b, *, beta=1, alpha=1):
    sa, sb = a.shape, b.shape
    if len(sa) != 2 or len(sb) != 2 or sa[1] != sb[0]:
        return None
    return _add_product(bias, a, b, beta, alpha, (sa[0], sb[1]))


def _baddbmm(bias, a, b, *, beta=1, alpha=1):
    sa, sb = a.shape, b.shape
    if len(sa) != 3 or len(sb) != 3 or sa[0] != sb[0] or sa[2] != sb[1]:
        return None
    return _add_product(bias, a, b, beta, alpha, (sa[0], sa[1], sb[2]))


_IMPLS = {"mm": _mm, "bmm": _bmm, "addmm": _addmm, "baddbmm": _baddbmm}


def _kernel(name):
    ours, original = _IMPLS[name], _state["originals"][name]

    def kernel(keyset, *args, **kwargs):
        r = ours(*args, **kwargs)
        if r is None:
            _given_back[name] += 1
            return original.call_boxed(keyset, *args, **kwargs)
        _taken[name] += 1
        return r
    kernel.__name__ = "dlgemm_" + name
    return kernel


def enable():
    """Send torch's CUDA mm, bmm, addmm and baddbmm to dlgemm (idempotent)."""
    if _state["library"] is not None:
        return
    if not torch.cuda.is_available():
        raise RuntimeError("dlgemm.torch: torch sees no CUDA device")
    _state["direct"] = direct = _direct.torch_adapter()
    _WORDS.update((dt, direct.words[dt]) for dt in (torch.float32, torch.float16, torch.bfloat16))
    for name in _OPS:
        _state["originals"][name] = torch.library.get_kernel("aten::" + name, "CUDA")
    lib = torch.library.Library("aten", "IMPL")
    with warnings.catch_warnings():  # "Overriding a previously registered kernel": we mean to
        warnings.simplefilter("ignore", UserWarning)
        for name in _OPS:
            lib.impl(name, _kernel(name), "CUDA", with_keyset=True)
    _state["library"] = lib


def disable():
    """Give torch its own kernels back."""
    lib = _state["library"]
    if lib is not None:
        lib._destroy()
        _state["library"] = None


def enabled():
    return _state["library"] is not None


def stats():
    """{op: (calls dlgemm took, calls given back to torch)} since the last reset."""
    return {n: (_taken[n], _given_back[n]) for n in _OPS}


def reset_stats():
    _taken.clear()
    _given_back.clear()
