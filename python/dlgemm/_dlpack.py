"""_dlpack.py - the general path: any object that speaks the Python DLPack
protocol (``__dlpack__`` / ``__dlpack_device__``), exchanged through capsules.

The protocol, as this module keeps it:
  * Each input is exported with ``__dlpack__(stream=S, max_version=(1, 0))``
    (without ``max_version`` for producers older than DLPack 1.0), where S is
    the stream the product runs on, so the producer orders its pending work
    on the tensor before S.  The capsule is renamed to ``used_dltensor[...]``
    when consumed and its deleter is called exactly once, after the call.
  * For CUDA tensors the tensors' device is made current (its primary
    context pushed) for the exchange and the call, then the caller's restored.
  * S is ``stream=`` if given (an int handle, or a torch/cupy stream object),
    else the framework's current stream (torch, cupy), else the legacy
    default stream.  The call returns once the work is queued on S.
  * Without ``out``, the result lives in memory this module allocates
    (host: a ctypes buffer; CUDA: cuMemAlloc) and is handed to the
    framework's ``from_dlpack``; when the framework asks for it on another
    stream, that stream waits on S through an event.
"""
import ctypes
import sys

from ._lib import PRECISIONS, DlgemmError, Options, error, library

# --- DLPack's C structures ---------------------------------------------------
kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
kDLFloat, kDLBfloat = 2, 4
READ_ONLY, IS_COPIED = 1 << 0, 1 << 1
PROTOCOL_LEGACY_STREAM = 1  # the DLPack protocol's "legacy default stream"


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


VERSIONED_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
    ("deleter", VERSIONED_DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


# --- capsules ------------------------------------------------------------------
# Names live as long as the module: a capsule keeps a pointer to its name.
_NAMES = {n: ctypes.create_string_buffer(n) for n in
          (b"dltensor", b"used_dltensor", b"dltensor_versioned", b"used_dltensor_versioned")}


def _capi(name, restype, *argtypes):
    f = ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))
    return f


_capsule_is_valid = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_capsule_pointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                         ctypes.c_char_p)
_capsule_set_name = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_capsule_new = _capi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                     ctypes.c_void_p)


def _name(n):
    return ctypes.cast(_NAMES[n], ctypes.c_char_p)


# --- the CUDA driver, for output memory and cross-stream ordering ----------------
class _Driver:
    def __init__(self):
        cu = ctypes.CDLL("libcuda.so.1")
        for name, args in (("cuInit", [ctypes.c_uint]),
                           ("cuDeviceGet", [ctypes.POINTER(ctypes.c_int), ctypes.c_int]),
                           ("cuDevicePrimaryCtxRetain", [ctypes.POINTER(ctypes.c_void_p),
                                                         ctypes.c_int]),
                           ("cuCtxPushCurrent_v2", [ctypes.c_void_p]),
                           ("cuCtxPopCurrent_v2", [ctypes.POINTER(ctypes.c_void_p)]),
                           ("cuMemAlloc_v2", [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]),
                           ("cuMemFree_v2", [ctypes.c_uint64]),
                           ("cuEventCreate", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]),
                           ("cuEventRecord", [ctypes.c_void_p, ctypes.c_void_p]),
                           ("cuStreamWaitEvent", [ctypes.c_void_p, ctypes.c_void_p,
                                                  ctypes.c_uint]),
                           ("cuEventDestroy_v2", [ctypes.c_void_p])):
            f = getattr(cu, name)
            f.argtypes, f.restype = args, ctypes.c_int
        self.cu = cu
        self.contexts = {}
        self._check(cu.cuInit(0), "cuInit")

    @staticmethod
    def _check(r, what):
        if r:
            raise DlgemmError(12, "CUDA %s failed (CUresult %d)" % (what, r))

    def push(self, device_id):
        ctx = self.contexts.get(device_id)
        if ctx is None:
            dev, ctx = ctypes.c_int(), ctypes.c_void_p()
            self._check(self.cu.cuDeviceGet(ctypes.byref(dev), device_id), "cuDeviceGet")
            self._check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
                        "cuDevicePrimaryCtxRetain")
            self.contexts[device_id] = ctx
        self._check(self.cu.cuCtxPushCurrent_v2(ctx), "cuCtxPushCurrent")

    def pop(self):
        self.cu.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))

    def alloc(self, device_id, nbytes):
        ptr = ctypes.c_uint64()
        self.push(device_id)
        try:
            self._check(self.cu.cuMemAlloc_v2(ctypes.byref(ptr), max(nbytes, 1)), "cuMemAlloc")
        finally:
            self.pop()
        return ptr.value

    def free(self, device_id, ptr):
        self.push(device_id)
        try:
            self.cu.cuMemFree_v2(ptr)
        finally:
            self.pop()

    def order(self, device_id, before, after):
        """Work queued on stream `after` from now on waits for `before`'s."""
        ev = ctypes.c_void_p()
        self.push(device_id)
        try:
            self._check(self.cu.cuEventCreate(ctypes.byref(ev), 2), "cuEventCreate")
            try:
                self._check(self.cu.cuEventRecord(ev, before), "cuEventRecord")
                self._check(self.cu.cuStreamWaitEvent(after, ev, 0), "cuStreamWaitEvent")
            finally:
                self.cu.cuEventDestroy_v2(ev)
        finally:
            self.pop()


_driver = None


def _cuda():
    global _driver
    if _driver is None:
        _driver = _Driver()
    return _driver


def _handle(protocol_stream):
    """A DLPack protocol stream number as a CUstream: None and 1 are the legacy
    default stream (CU_STREAM_LEGACY is 1), 2 the per-thread one (CU_STREAM_PER_THREAD
    is 2), anything else a handle."""
    return PROTOCOL_LEGACY_STREAM if protocol_stream is None else protocol_stream


# --- output memory this module owns, handed out by DLPack ---------------------------
_live = {}  # address of an exported managed tensor -> what it keeps alive


def live_exports():
    """Managed tensors this module exported whose deleter has not run yet."""
    return len(_live)


@VERSIONED_DELETER
def _delete_versioned(p):
    if _live is not None:
        _live.pop(ctypes.addressof(p.contents), None)


@DELETER
def _delete_unversioned(p):
    if _live is not None:
        _live.pop(ctypes.addressof(p.contents), None)


class _Buffer:
    """A C-contiguous result in memory this module allocated.

    Its capsules have no destructor: a capsule runs its destructor when a
    failing consumer drops it, with that consumer's exception pending, and
    Python code cannot run then.  Instead whoever hands a _Buffer over calls
    reclaim() afterwards, which deletes what no consumer took."""

    def __init__(self, shape, dtype, device, stream):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.dtype = DLDataType(dtype.code, dtype.bits, dtype.lanes)
        self.device, self.stream, self.handed = device, stream, []
        nbytes = dtype.bits // 8
        for s in shape:
            nbytes *= s
        if device[0] == kDLCUDA:
            self.ptr = _cuda().alloc(device[1], nbytes)
        else:
            self._host = ctypes.create_string_buffer(max(nbytes, 1))
            self.ptr = ctypes.addressof(self._host)

    def __del__(self):
        if self.device[0] == kDLCUDA and _driver is not None:
            _driver.free(self.device[1], self.ptr)

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        if self.device[0] == kDLCUDA and stream != -1 and _handle(stream) != self.stream:
            _cuda().order(self.device[1], self.stream, _handle(stream))
        tensor = DLTensor(self.ptr, DLDevice(*self.device), len(self.shape), self.dtype,
                          self.shape, None, 0)
        if max_version is not None and max_version[0] >= 1:
            m = DLManagedTensorVersioned(DLPackVersion(1, 0), None, _delete_versioned, 0, tensor)
            name = b"dltensor_versioned"
        else:
            m = DLManagedTensor(tensor, None, _delete_unversioned)
            name = b"dltensor"
        _live[ctypes.addressof(m)] = (m, self)
        capsule = _capsule_new(ctypes.addressof(m), _name(name), None)
        self.handed.append((capsule, name, m))
        return capsule

    def reclaim(self):
        for capsule, name, m in self.handed:
            if _capsule_is_valid(capsule, _name(name)):  # never consumed
                m.deleter(ctypes.pointer(m))
        self.handed = []


# --- consuming the caller's tensors ---------------------------------------------------
class _Borrowed:
    """One operand's managed tensor, taken from its capsule; release() once."""

    def __init__(self, x, stream, what):
        device = tuple(x.__dlpack_device__())
        s = stream if device[0] in (kDLCUDA, kDLCUDAManaged) else None
        try:
            capsule = x.__dlpack__(stream=s, max_version=(1, 0))
        except TypeError:  # a producer older than DLPack 1.0's protocol
            capsule = x.__dlpack__(stream=s)
        if _capsule_is_valid(capsule, _name(b"dltensor_versioned")):
            self.versioned = True
            self.ptr = _capsule_pointer(capsule, _name(b"dltensor_versioned"))
            self.managed = DLManagedTensorVersioned.from_address(self.ptr)
            _capsule_set_name(capsule, _name(b"used_dltensor_versioned"))
        elif _capsule_is_valid(capsule, _name(b"dltensor")):
            self.versioned = False
            self.ptr = _capsule_pointer(capsule, _name(b"dltensor"))
            self.managed = DLManagedTensor.from_address(self.ptr)
            _capsule_set_name(capsule, _name(b"used_dltensor"))
        else:
            raise DlgemmError(1, "%s: __dlpack__ did not return a DLPack capsule" % what)
        self.tensor = self.managed.dl_tensor
        self.flags = self.managed.flags if self.versioned else 0

    def as_versioned(self):
        """A pointer to a 1.x view of this operand (0.x ones are wrapped)."""
        if self.versioned:
            return self.ptr
        self._wrap = DLManagedTensorVersioned(DLPackVersion(1, 0), None,
                                              VERSIONED_DELETER(), 0, self.tensor)
        return ctypes.addressof(self._wrap)

    def release(self):
        if self.ptr and self.managed.deleter:
            self.managed.deleter(ctypes.cast(self.ptr, ctypes.POINTER(type(self.managed))))
        self.ptr = None


def _framework(x):
    return type(x).__module__.split(".")[0]


def _stream_of(x, device, stream):
    """The stream handle (protocol numbering) the product is ordered on."""
    if stream is not None:
        h = getattr(stream, "cuda_stream", getattr(stream, "ptr", stream))
    elif device[0] != kDLCUDA:
        return None
    elif _framework(x) == "torch":
        import torch
        h = torch.cuda.current_stream(device[1]).cuda_stream
    elif _framework(x) == "cupy":
        import cupy
        with cupy.cuda.Device(device[1]):
            h = cupy.cuda.get_current_stream().ptr
    else:
        h = 0
    return int(h) or PROTOCOL_LEGACY_STREAM  # handle 0 is the legacy default stream


def _from_dlpack(x):
    """The from_dlpack of x's framework."""
    root = _framework(x)
    if root in ("jax", "jaxlib"):
        import jax.numpy
        return jax.numpy.from_dlpack
    fn = getattr(sys.modules.get(root), "from_dlpack", None)
    if fn is None:
        raise DlgemmError(1, "cannot return a %s: pass out=" % type(x).__name__)
    return fn


def _result_shape(a, b):
    ta, tb = a.tensor, b.tensor
    if ta.ndim < 2 or tb.ndim < 2:
        return [0]  # dlgemm refuses it with the reason
    shape = [ta.shape[ta.ndim - 2], tb.shape[tb.ndim - 1]]
    if ta.ndim == 3 or tb.ndim == 3:
        batch = [t.shape[0] for t in (ta, tb) if t.ndim == 3]
        shape.insert(0, max(batch) if 1 in batch else batch[0])
    return shape


def matmul_dlpack(a, b, out=None, alpha=1.0, beta=0.0, precision="strict", stream=None):
    """out = alpha * a @ b + beta * out (out is not read when beta == 0).

    a: m x k or batch x m x k, b: k x n or batch x k x n (a batch of one, or
    a 2-D operand, is broadcast); float32 or float64, on the host or one GPU.
    Returns out, or a new tensor of a's framework when out is None.
    precision: "strict" (IEEE FP32), "tf32" or "3xtf32" for float32 inputs.
    """
    lib = library()
    device = tuple(a.__dlpack_device__())
    s = _stream_of(a, device, stream)
    ops, result = [], None
    # Producers may export only on their current device (torch does): make
    # the tensors' device current for the exchange, and restore the caller's.
    switched = device[0] == kDLCUDA
    if switched:
        _cuda().push(device[1])
    try:
        ops.append(_Borrowed(a, s, "a"))
        ops.append(_Borrowed(b, s, "b"))
        if out is None:
            result = _Buffer(_result_shape(ops[0], ops[1]), ops[0].tensor.dtype,
                             device if device[0] == kDLCUDA else (kDLCPU, 0), s)
        ops.append(_Borrowed(out if out is not None else result, s, "out"))
        if ops[2].flags & IS_COPIED:
            raise DlgemmError(16, "out was exported as a copy: the product would not reach it")
        opts = Options(ctypes.sizeof(Options), PRECISIONS[precision], 0,
                       None if s == PROTOCOL_LEGACY_STREAM else s)
        if all(not o.versioned for o in ops):
            st = lib.dlgemm_matmul_managed(ops[0].ptr, ops[1].ptr, ops[2].ptr, alpha, beta,
                                           ctypes.byref(opts))
        else:
            st = lib.dlgemm_matmul_versioned(ops[0].as_versioned(), ops[1].as_versioned(),
                                             ops[2].as_versioned(), alpha, beta,
                                             ctypes.byref(opts))
        if st:
            raise error(st)
    finally:
        for o in ops:
            o.release()
        if result is not None:
            result.reclaim()
        if switched:
            _cuda().pop()
    if out is not None:
        return out
    try:
        return _from_dlpack(a)(result)
    finally:
        result.reclaim()
