"""A frame of the viewer (Frame), what it hands out (DeviceArray, NumPy arrays over host memory,
Pick) and the Ctrl-C handling of Viewer.display's loop (Interrupts)."""

import ctypes
import math
import signal
import threading

import numpy as np

from . import _capi, _dlpack
from ._errors import InvalidArgument, InvalidHandleError, NotReady
from ._library import check as _check, fail as _fail, lib as _lib


def _as_given(name, library=_lib):
    """libestuary's `name` without argtypes, for the calls of every frame: they pass ctypes
    objects made once (handles as c_void_p, byref()s of the viewer's desc and out parameters),
    which ctypes hands to C as they are. The prototypes' conversion of a byref() alone costs
    about 0.25 us a call. Statuses are tested inline (`if status:`); only a failure calls out."""
    function = library[name]  # a function object of its own: _lib's keeps its argtypes
    function.restype = ctypes.c_int
    return function


# The lookups that return at once (a pointer of the frame's ring entry) keep the GIL: releasing
# and taking it back costs more than the call, and they never wait.
_holding_gil = ctypes.PyDLL(_lib.path)
_begin_frame, _copy_to_image = _as_given("estuary_begin_frame"), \
    _as_given("estuary_frame_copy_to_image")
_device_pointer = _as_given("estuary_frame_device_pointer", _holding_gil)
_host_pointer = _as_given("estuary_frame_host_pointer", _holding_gil)
_end_frame = _as_given("estuary_end_frame")
_frame_index = _holding_gil["estuary_frame_index"]
_frame_index.restype = ctypes.c_uint64
_DEFER_WAIT = _capi.FRAME_DEFER_WAIT
_void_p = ctypes.c_void_p
_ndarray = np.ndarray


def _stream_handle(stream):
    """A CUDA stream as the C API's void*: None (the viewer's own), an int, a PyTorch stream
    (.cuda_stream), a CuPy stream (.ptr) or any object with __cuda_stream__. Handle 0, the legacy
    default stream, becomes cudaStreamLegacy (1): NULL would mean the viewer's own stream."""
    if stream is None:
        return None
    if hasattr(stream, "__cuda_stream__"):
        handle = stream.__cuda_stream__()[1]
    elif hasattr(stream, "cuda_stream"):
        handle = stream.cuda_stream
    elif hasattr(stream, "ptr"):
        handle = stream.ptr
    elif isinstance(stream, int):
        handle = stream
    else:
        raise InvalidArgument(f"stream {stream!r}: expected None, an int handle, a PyTorch or CuPy "
                              "stream, or an object with __cuda_stream__",
                              _capi.ERROR_INVALID_ARGUMENT)
    return handle or 1


class Interrupts:
    """Ctrl-C during Viewer.display(): raised at once while the user's callback runs (`inside`),
    and anywhere else (in estuary's C loop, in the binding between frames) held as `pending`
    until the frame in progress has ended and the loop has stopped, then raised. Python's own
    handler would raise it wherever the next bytecode runs, at the entry of a ctypes callback
    too, which prints the exception and goes on. Only the main thread's default handler is
    replaced, and only for the loop."""

    def __init__(self):
        self.inside = self.pending = False
        self._previous = None

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread() and
                signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._previous = signal.signal(signal.SIGINT, self._interrupt)
        return self

    def _interrupt(self, signum, frame):
        if self.inside:
            raise KeyboardInterrupt
        self.pending = True

    def raise_pending(self):
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        if exc[0] is None:
            self.raise_pending()  # one that came after the loop's last check
        return False


class DeviceArray:
    """A frame's copy of a CUDA-written buffer: the exported memory itself, for
    torch.as_tensor(a, device="cuda"), cupy.asarray(a), wp.array(a) or any DLPack consumer.
    Valid while its frame is open: after the frame ends, Vulkan owns the memory until the slot
    comes round again."""

    __slots__ = ("_frame", "ptr", "shape", "dtype", "__weakref__")

    def __init__(self, frame, pointer, shape, dtype):
        self._frame = frame
        self.ptr, self.shape, self.dtype = pointer, shape, dtype

    def _open(self):
        if self._frame._handle is None or self._frame._viewer._handle is None:
            raise InvalidHandleError(f"frame {self._frame.index} has ended: its arrays belong to "
                                     "the draw now")

    @property
    def __cuda_array_interface__(self):
        self._open()
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ptr, False),
                "version": 3, "strides": None, "stream": self._frame.stream}

    def __dlpack__(self, stream=None, **_):
        self._open()
        if stream not in (None, -1) and (stream or 1) != self._frame.stream:
            _dlpack.stream_wait(stream, self._frame.stream)
        return _dlpack.capsule(self.ptr, self.shape, self.dtype, _dlpack.KDL_CUDA,
                               self._frame._viewer.cuda_device)

    def __dlpack_device__(self):
        return (_dlpack.KDL_CUDA, self._frame._viewer.cuda_device)


_TORCH_DTYPES = {"torch.float32": np.dtype(np.float32), "torch.float16": np.dtype(np.float16),
                 "torch.uint8": np.dtype(np.uint8), "torch.float64": np.dtype(np.float64),
                 "torch.int32": np.dtype(np.int32)}
# Worked out once and kept: NumPy's dtype of a tensor's dtype object (None: not one shown),
# and of an interface's typestr.
_BY_TORCH_DTYPE, _BY_TYPESTR = {}, {}


def _cuda_interface(array):
    """(pointer, shape, dtype, stream) of an object with __cuda_array_interface__; None else.
    PyTorch's CUDA tensors are read directly (their interface is built in Python, ~30 us a call):
    their stream is the caller's to order, as the interface would not say it either."""
    if getattr(array, "is_cuda", False) and hasattr(array, "data_ptr"):
        torch_dtype = array.dtype
        try:
            dtype = _BY_TORCH_DTYPE[torch_dtype]
        except KeyError:
            dtype = _BY_TORCH_DTYPE[torch_dtype] = _TORCH_DTYPES.get(str(torch_dtype))
        if dtype is not None:
            if not array.is_contiguous():
                raise InvalidArgument("the tensor is not contiguous; pass tensor.contiguous()",
                                      _capi.ERROR_INVALID_ARGUMENT)
            return array.data_ptr(), tuple(array.shape), dtype, None
    interface = getattr(array, "__cuda_array_interface__", None)
    if interface is None:
        return None
    typestr = interface["typestr"]
    dtype = _BY_TYPESTR.get(typestr)
    if dtype is None:
        dtype = _BY_TYPESTR[typestr] = np.dtype(typestr)
    shape = interface["shape"]
    if shape.__class__ is not tuple:
        shape = tuple(shape)
    strides = interface.get("strides")
    if strides is not None:
        expected, step = [], dtype.itemsize
        for dim in reversed(shape):
            expected.insert(0, step)
            step *= dim
        if tuple(strides) != tuple(expected):
            raise InvalidArgument("the array is not C-contiguous (strides "
                                  f"{tuple(strides)}); pass a contiguous copy",
                                  _capi.ERROR_INVALID_ARGUMENT)
    return interface["data"][0], shape, dtype, interface.get("stream")


def _host_address(array):
    """The address of a C-contiguous NumPy array's data. ndarray.ctypes builds an object a call
    (about 0.8 us); a writable array's buffer gives it in about 0.3 us."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return array.ctypes.data


class Frame:
    """One frame: begun by Viewer.frame() (a context manager), ended on leaving the block.

    Its handle and the viewer's are tested in place on the per-frame calls (buffer, show, end),
    and _active(), _use() and _level() are called only to raise their errors: their messages
    are built only then."""

    __slots__ = ("_viewer", "_handle", "_arg", "_by_display", "_host_arrays", "index", "slot",
                 "stream", "__weakref__")

    def __init__(self, viewer, stream, defer_wait):
        # All that does not need estuary's answer is done before the call: the work after it
        # delays the frame's submission (it counts in estuary's host busy time), while the work
        # before it is hidden by the frames-in-flight wait of a loop that waits for the GPU.
        # A stream object's handle is worked out once: (the object, held so that its id() names
        # no other, and its handle), replaced in one store.
        given, handle = viewer._stream_cache
        if stream is not given:
            handle = None if stream is None else _stream_handle(stream)
            viewer._stream_cache = (stream, handle)
        desc = viewer._frame_desc  # the viewer's: estuary reads it during the call only
        desc.stream = handle
        desc.flags = _DEFER_WAIT if defer_wait else 0
        if viewer._handle is None:
            viewer._use()  # raises: the viewer is closed
        self._viewer, self._by_display, self._host_arrays = viewer, False, ()
        # The open frame's handle: the viewer's out parameter itself, which only the next begin
        # writes, and that only once this frame has ended (c_void_p, as the calls take it).
        self._handle = self._arg = arg = viewer._frame_out
        index = viewer._next_index
        if index is not None:
            self.index, self.slot = index, index % viewer.frames_in_flight
        own = viewer._own_stream
        self.stream = handle if handle else own or None
        status = _begin_frame(viewer._handle_arg, viewer._frame_desc_ref, viewer._frame_out_ref)
        if status:
            _fail(status)
        viewer._frame = self
        if index is None:
            self.index = index = _frame_index(arg)
            self.slot = index % viewer.frames_in_flight
        if viewer._pending_results:
            viewer._results_drawn_before(index)
        if not handle and own is None:
            self.stream = self._own_stream()

    @classmethod
    def _begun(cls, viewer, handle):
        """A frame estuary_display began (on the viewer's own stream)."""
        frame = cls.__new__(cls)
        frame._viewer, frame._handle, frame._by_display = viewer, handle, True
        frame._arg = arg = _void_p(handle)
        frame._host_arrays = ()
        frame.index = index = _frame_index(arg)
        frame.slot = index % viewer.frames_in_flight
        viewer._frame = frame
        viewer._next_index = None  # estuary_display ends it: whether it ended well is not seen
        if viewer._pending_results:
            viewer._results_drawn_before(index)
        frame.stream = viewer._own_stream or frame._own_stream()
        return frame

    def _own_stream(self):
        """The viewer's own stream, the same every frame: None without CUDA."""
        viewer = self._viewer
        if viewer._own_stream is None:
            viewer._own_stream = _lib.estuary_frame_stream(self._handle) or (
                1 if viewer.has_cuda else 0)
        return viewer._own_stream or None

    def _active(self):
        if self._viewer._handle is None:
            raise InvalidHandleError(f"frame {self.index} belongs to a viewer that was closed")
        if self._handle is None:
            raise InvalidHandleError(f"frame {self.index} has ended")
        return self._handle

    def wait(self):
        """With defer_wait=True: enqueues the slot's wait now (before writing its copies)."""
        _check(_lib.estuary_frame_wait(self._active()))

    def end(self):
        """Enqueues the frame's signal on its stream and submits its draw. The frame has ended
        afterwards even where this raises. A second call does nothing."""
        if self._handle is None:
            return
        if self._by_display:
            raise InvalidArgument(f"frame {self.index} belongs to viewer.display(), which ends "
                                  "it when the callback returns")
        viewer = self._viewer
        try:
            if viewer._handle is not None:
                # Unknown until the call has ended well (estuary counts only those), Ctrl-C
                # between the call and the count included: estuary is asked then.
                viewer._next_index = None
                status = _end_frame(self._arg)
                if status:
                    _fail(status)
                viewer._next_index = self.index + 1
        finally:
            self._ended()

    def _ended(self):
        self._handle = None
        viewer = self._viewer
        if viewer._frame is self:
            viewer._frame = None
        if self._host_arrays:
            for array in self._host_arrays:  # the draw uploads them now: no more writes
                array.flags.writeable = False
            self._host_arrays = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.end()
        return False

    def _host(self, pointer, shape, dtype):
        array = _host_array(self._viewer._host_memory, pointer, shape, dtype)
        if self._host_arrays:
            self._host_arrays.append(array)
        else:
            self._host_arrays = [array]
        return array

    def buffer(self, buffer):
        """The frame's copy of `buffer`: a DeviceArray (CUDA writer) over the exported memory, or
        a writable NumPy array over the frame's host memory (host writer; read-only once the
        frame ends)."""
        viewer, frame, handle = self._viewer, self._handle, buffer._handle
        if frame is None or viewer._handle is None:
            self._active()
        if handle is None or buffer._viewer._handle is None:
            buffer._use()
        if buffer.writer == "cuda":
            pointers = buffer._device_pointers
            if pointers is not None and buffer._viewer is viewer:
                copy = self.index % len(pointers)
                pointer = pointers[copy]
                if pointer is None:
                    status = _device_pointer(self._arg, buffer._handle_arg, viewer._out_ref)
                    if status:
                        _fail(status)
                    pointer = pointers[copy] = viewer._out.value
                return DeviceArray(self, pointer, buffer.shape, buffer.dtype)
            status = _device_pointer(self._arg, buffer._handle_arg, viewer._out_ref)
            if status:
                _fail(status)
            return DeviceArray(self, viewer._out.value, buffer.shape, buffer.dtype)
        status = _host_pointer(self._arg, buffer._handle_arg, viewer._out_ref)
        if status:
            _fail(status)
        return self._host(viewer._out.value, buffer.shape, buffer.dtype)

    def host_level(self, image, level=0):
        """The frame's host memory of a host-written image's level, as a NumPy array, writable
        until the frame ends."""
        pointer, frame = ctypes.c_void_p(), self._active()
        level = image._level(level)
        _check(_lib.estuary_frame_host_level(frame, image._use(), level,
                                             ctypes.byref(pointer)))
        return self._host(pointer.value, image.level_shape(level), image.dtype)

    def surface(self, image, level=0):
        """The cudaSurfaceObject_t of a CUDA-written image's level in this frame (for kernels of
        your own: CuPy RawKernel, Numba, Warp)."""
        surface = ctypes.c_uint64()
        _check(_lib.estuary_frame_surface(self._active(), image._use(), image._level(level),
                                          ctypes.byref(surface)))
        return surface.value

    def show(self, image, array, level=0):
        """Copies `array` into level `level` of the frame's copy of `image` (on the GPU, on the
        frame's stream, for CUDA arrays; from host memory for NumPy ones). Its shape must be the
        level's (image.level_shape(level)) and its dtype the format's."""
        frame, handle = self._handle, image._handle
        if frame is None or self._viewer._handle is None:
            self._active()
        if handle is None or image._viewer._handle is None:
            image._use()
        if level.__class__ is not int or not 0 <= level < image.levels:
            level = image._level(level)
        expected_shape, dtype = image._level_shape_list[level], image.dtype
        cuda = None if array.__class__ is _ndarray else _cuda_interface(array)
        if cuda is not None:
            pointer, shape, got_dtype, stream = cuda
            if image.writer != "cuda":
                raise InvalidArgument(f"image {image.shape} is written by the host; a CUDA array "
                                      "needs an image made with writer='cuda' (or pass a NumPy "
                                      "array)", _capi.ERROR_INVALID_ARGUMENT)
            host = None
        else:
            host = array if array.__class__ is np.ndarray else np.asarray(array)
            shape, got_dtype = host.shape, host.dtype
        if shape != expected_shape and not (image.channels == 1 and
                                            tuple(shape) == expected_shape + (1,)):
            raise InvalidArgument(f"array of shape {tuple(shape)} for level {level} of a "
                                  f"{image.format} image: expected {tuple(expected_shape)}",
                                  _capi.ERROR_INVALID_ARGUMENT)
        if got_dtype is not dtype and got_dtype != dtype:
            raise InvalidArgument(f"array of dtype {got_dtype} for a {image.format} image: "
                                  f"expected {dtype}", _capi.ERROR_INVALID_ARGUMENT)
        if host is not None:
            if not host.flags.c_contiguous:
                host = np.ascontiguousarray(host)
            pointer = _host_address(host)
        elif stream is not None and stream != self.stream and self.stream is not None:
            _dlpack.stream_wait(self.stream, stream)  # the producer's work first
        source = self._viewer._source  # the viewer's, set here: estuary reads it during the call
        source.value = pointer
        # `level` goes as a C int, in the register of the uint32_t that estuary takes.
        status = _copy_to_image(self._arg, image._handle_arg, level, source,
                                image._level_bytes_arg[level])
        if status:
            _fail(status)

    def read_image(self, image, x=0, y=0, width=1, height=1, level=0, after_draw=False):
        """Texels of what the frame's draw sees (before it, or after it), as a NumPy array filled
        once the frame is drawn (Viewer.wait_frame(frame.index) or Viewer.finish())."""
        frame, u32 = self._active(), ctypes.c_uint32
        x, y = _capi.fit(x, u32, "read_image x"), _capi.fit(y, u32, "read_image y")
        width = _capi.fit(width, u32, "read_image width")
        height = _capi.fit(height, u32, "read_image height")
        handle, level = image._use(), image._level(level)
        shape = (height, width) + ((image.channels,) if image.channels > 1 else ())
        out = np.full(shape, np.nan if image.dtype.kind == "f" else 0, dtype=image.dtype)
        _check(_lib.estuary_frame_read_image(frame, handle, level, x, y, width,
                                             height, _capi.READ_AFTER_DRAW if after_draw else 0,
                                             out.ctypes.data))
        self._viewer._pending_results.append((self.index, out))
        return out

    def read_buffer(self, buffer, offset=0, nbytes=None, after_draw=False):
        """Bytes of the frame's copy of `buffer` as the draw sees them, as a NumPy array of the
        buffer's dtype, filled once the frame is drawn."""
        frame = self._active()
        offset = _capi.fit(offset, ctypes.c_uint64, "read_buffer offset")
        nbytes = buffer.nbytes - offset if nbytes is None else nbytes
        nbytes = _capi.fit(nbytes, ctypes.c_uint64, "read_buffer nbytes")
        out = np.zeros(nbytes // buffer.dtype.itemsize, dtype=buffer.dtype)
        _check(_lib.estuary_frame_read_buffer(frame, buffer._use(), offset, nbytes,
                                              _capi.READ_AFTER_DRAW if after_draw else 0,
                                              out.ctypes.data))
        self._viewer._pending_results.append((self.index, out))
        return out

    def pick(self, view, x, y, radius=0.0):
        """Which element of a buffer view the frame's draw shows at pixel (x, y), or nearest it
        within `radius` pixels: a Pick, known once the frame is drawn (`pick.ready`)."""
        result = Pick(self.index)
        _check(_lib.estuary_frame_pick(self._active(), view._use(), float(x), float(y),
                                       float(radius), ctypes.byref(result._raw)))
        self._viewer._pending_results.append((self.index, result))
        return result


class Pick:
    """What Frame.pick found, once its frame is drawn (Viewer.wait_frame(pick.frame),
    Viewer.finish(), or the frame that begins frames_in_flight frames later): `ready` says
    whether it is known yet. Then `hit` (True: an element within the radius, False: none), the
    `element` (point, marker, glyph, segment or triangle), the `vertex` nearest the point (lines,
    meshes), the `distance` in pixels (0: it covers the point), the `value` there and the
    `position` (x, y, z) and the `panel` under the point. Before the frame is drawn every one of them raises estuary.NotReady:
    a pick not known yet is never read as a miss."""

    def __init__(self, frame):
        self.frame = frame
        self._raw = _capi.Pick()
        self._raw.hit = -1  # what estuary_frame_pick sets too: not known yet

    @property
    def ready(self):
        return self._raw.hit != -1

    def _known(self):
        if self._raw.hit == -1:
            raise NotReady(f"the pick of frame {self.frame} is not known yet: it is filled once "
                           f"the frame is drawn (viewer.wait_frame({self.frame}), "
                           "viewer.finish(), or a later frame); check pick.ready")
        return self._raw

    hit = property(lambda self: self._known().hit == 1)
    element = property(lambda self: self._known().element)
    vertex = property(lambda self: self._known().vertex)
    distance = property(lambda self: self._known().distance)
    value = property(lambda self: self._known().value)
    position = property(lambda self: tuple(self._known().position))
    # The panel under the point (None: a gap between panels); a view is found only in its own.
    panel = property(lambda self: None if self._known().panel == _capi.PANEL_NONE
                     else self._known().panel)

    def __repr__(self):
        if not self.ready:
            return f"Pick(frame={self.frame}, not known yet)"
        if not self.hit:
            return f"Pick(frame={self.frame}, hit=False)"
        return (f"Pick(frame={self.frame}, element={self.element}, vertex={self.vertex}, "
                f"distance={self.distance:g}, value={self.value:g}, position={self.position})")


def _host_array(memory, pointer, shape, dtype):
    """A NumPy array over host memory at `pointer`. The ctypes array over each (pointer, shape,
    dtype) is kept in `memory` (the viewer's): a frame's memory comes round every few frames."""
    key = (pointer, shape, dtype)
    raw = memory.get(key)
    if raw is None:
        count = int(math.prod(shape)) * np.dtype(dtype).itemsize
        raw = memory[key] = (ctypes.c_uint8 * count).from_address(pointer)
    return np.ndarray(shape, dtype, raw)
