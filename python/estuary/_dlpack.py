"""DLPack capsules and CUDA stream ordering for arrays that live in estuary's exported memory.

A capsule holds a DLManagedTensor whose deleter frees nothing but the description: the memory
belongs to the viewer. The stream handshake of __dlpack__(stream=...) makes the consumer's stream
wait for the frame's stream on the GPU (an event, no host wait), through the CUDA runtime that
libestuary itself loaded.
"""

import ctypes
from ctypes import POINTER, c_char_p, c_int, c_int32, c_int64, c_uint8, c_uint16, c_uint64, \
    c_void_p

KDL_CPU, KDL_CUDA = 1, 2
_DTYPE_CODES = {"i": 0, "u": 1, "f": 2}


class _Device(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", _Device), ("ndim", c_int32),
                ("dtype", _DataType), ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)),
                ("byte_offset", c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", c_void_p), ("deleter", _DELETER)]
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)

# Every description handed out, by address, until its deleter runs.
_alive = {}


@_DELETER
def _delete(managed):
    _alive.pop(ctypes.addressof(managed.contents), None)


_pythonapi = ctypes.pythonapi
_pythonapi.PyCapsule_New.restype = ctypes.py_object
_pythonapi.PyCapsule_New.argtypes = [c_void_p, c_char_p, _CAPSULE_DESTRUCTOR]
_pythonapi.PyCapsule_IsValid.restype = c_int
_pythonapi.PyCapsule_IsValid.argtypes = [c_void_p, c_char_p]
_pythonapi.PyCapsule_GetPointer.restype = c_void_p
_pythonapi.PyCapsule_GetPointer.argtypes = [c_void_p, c_char_p]


@_CAPSULE_DESTRUCTOR
def _capsule_gone(capsule):
    # A capsule nobody consumed still names "dltensor": its tensor is deleted here. A consumer
    # renames it "used_dltensor" and calls the deleter itself when done.
    if _pythonapi.PyCapsule_IsValid(capsule, b"dltensor"):
        address = _pythonapi.PyCapsule_GetPointer(capsule, b"dltensor")
        _delete(ctypes.cast(address, POINTER(_Managed)))


def capsule(pointer, shape, dtype, device_type, device_id):
    """A "dltensor" capsule over `pointer` (C-contiguous `shape` of numpy dtype `dtype`)."""
    if dtype.kind not in _DTYPE_CODES:
        raise ValueError(f"DLPack export of dtype {dtype} is not supported (integers and floats)")
    managed = _Managed()
    dims = (c_int64 * len(shape))(*shape)
    managed.dl_tensor.data = pointer
    managed.dl_tensor.device = _Device(device_type, device_id)
    managed.dl_tensor.ndim = len(shape)
    managed.dl_tensor.dtype = _DataType(_DTYPE_CODES[dtype.kind], dtype.itemsize * 8, 1)
    managed.dl_tensor.shape = dims
    managed.dl_tensor.strides = None  # compact, row-major
    managed.deleter = _delete
    _alive[ctypes.addressof(managed)] = (managed, dims)
    return _pythonapi.PyCapsule_New(ctypes.addressof(managed), b"dltensor", _capsule_gone)


_cudart = None


def _runtime():
    global _cudart
    if _cudart is None:
        last = None
        for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
            try:
                _cudart = ctypes.CDLL(name)
                break
            except OSError as error:
                last = error
        else:
            raise RuntimeError(f"the CUDA runtime could not be loaded for stream ordering: {last}")
        for name, args in {"cudaEventCreateWithFlags": [POINTER(c_void_p), ctypes.c_uint],
                           "cudaEventRecord": [c_void_p, c_void_p],
                           "cudaStreamWaitEvent": [c_void_p, c_void_p, ctypes.c_uint],
                           "cudaEventDestroy": [c_void_p]}.items():
            getattr(_cudart, name).restype = c_int
            getattr(_cudart, name).argtypes = args
    return _cudart


def stream_wait(consumer, producer):
    """Enqueues on stream `consumer` a GPU wait for the work enqueued so far on `producer`."""
    cudart = _runtime()
    event = c_void_p()
    status = cudart.cudaEventCreateWithFlags(ctypes.byref(event), 0x2)  # no timing
    if status != 0:
        raise RuntimeError(f"cudaEventCreateWithFlags failed with CUDA error {status} while "
                           "ordering streams")
    try:
        for call, args in (("cudaEventRecord", (event, producer)),
                           ("cudaStreamWaitEvent", (consumer, event, 0))):
            status = getattr(cudart, call)(*args)
            if status != 0:
                raise RuntimeError(f"{call} failed with CUDA error {status} while ordering "
                                   "streams")
    finally:
        cudart.cudaEventDestroy(event)  # released once the recorded work completes
