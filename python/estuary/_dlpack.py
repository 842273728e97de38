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

# A DLManagedTensor (dlpack.h) flattened, with the same offsets: DLTensor's data, device
# (type, id), ndim, dtype (code, bits, lanes), shape, strides, byte_offset, then manager_ctx and
# deleter. Each capsule's block carries its shape after these fields: one allocation, copied
# from a template made once per shape, dtype and device, so that a frame's capsule costs a copy
# and two pointers rather than a dozen ctypes objects.
_HEAD = [("data", c_void_p), ("device_type", c_int32), ("device_id", c_int32),
         ("ndim", c_int32), ("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16),
         ("shape", c_void_p), ("strides", c_void_p), ("byte_offset", c_uint64),
         ("manager_ctx", c_void_p), ("deleter", c_void_p)]
_DELETER = ctypes.CFUNCTYPE(None, c_void_p)
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)

# Every description handed out, by address, until its deleter runs.
_alive = {}


@_DELETER
def _delete(address):
    _alive.pop(address, None)


_pythonapi = ctypes.pythonapi
_capsule_new = _pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [c_void_p, c_char_p, _CAPSULE_DESTRUCTOR]
_pythonapi.PyCapsule_IsValid.restype = c_int
_pythonapi.PyCapsule_IsValid.argtypes = [c_void_p, c_char_p]
_pythonapi.PyCapsule_GetPointer.restype = c_void_p
_pythonapi.PyCapsule_GetPointer.argtypes = [c_void_p, c_char_p]


@_CAPSULE_DESTRUCTOR
def _capsule_gone(capsule):
    # A capsule nobody consumed still names "dltensor": its tensor is deleted here. A consumer
    # renames it "used_dltensor" and calls the deleter itself when done.
    if _pythonapi.PyCapsule_IsValid(capsule, b"dltensor"):
        _delete(_pythonapi.PyCapsule_GetPointer(capsule, b"dltensor"))


_templates = {}  # (shape, dtype, device type, device id): (block type, its bytes but the pointers)


def _template(shape, dtype, device_type, device_id):
    if dtype.kind not in _DTYPE_CODES:
        raise ValueError(f"DLPack export of dtype {dtype} is not supported (integers and floats)")
    block_type = type(f"_Block{len(shape)}", (ctypes.Structure,),
                      {"_fields_": _HEAD + [("dims", c_int64 * len(shape))]})
    block = block_type(device_type=device_type, device_id=device_id, ndim=len(shape),
                       code=_DTYPE_CODES[dtype.kind], bits=dtype.itemsize * 8, lanes=1,
                       deleter=ctypes.cast(_delete, c_void_p).value)
    block.dims[:] = shape  # strides stay NULL: compact, row-major
    made = _templates[(shape, dtype, device_type, device_id)] = (
        block_type, bytes(block), block_type.dims.offset)
    return made


def capsule(pointer, shape, dtype, device_type, device_id):
    """A "dltensor" capsule over `pointer` (C-contiguous `shape` of numpy dtype `dtype`)."""
    made = _templates.get((shape, dtype, device_type, device_id))
    if made is None:
        made = _template(shape, dtype, device_type, device_id)
    block_type, template, dims = made
    block = block_type.from_buffer_copy(template)
    address = ctypes.addressof(block)
    block.data, block.shape = pointer, address + dims
    _alive[address] = block
    return _capsule_new(address, b"dltensor", _capsule_gone)


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
