"""estuary for Python: watch CUDA arrays (PyTorch, CuPy, Warp, JAX) or NumPy arrays live.

Calls libestuary's C API through ctypes. A minimal program::

    import estuary, numpy as np
    with estuary.Viewer() as viewer:                 # a window, or headless without a display
        field = viewer.image((256, 256))             # float32, height x width
        viewer.field_view(field)
        for step in range(100):
            with viewer.frame() as frame:
                frame.show(field, np.random.rand(256, 256).astype(np.float32))

Every frame's copies of the viewer's images and buffers are its own (a ring of one per frame in
flight): CUDA arrays are exposed with __cuda_array_interface__ and __dlpack__ over the exported
memory itself, and the frame's wait and signal go on the caller's stream, GPU-side.
"""

import ctypes
import math
import os

import numpy as np

from . import _capi, _dlpack

__version__ = "0.2.0"

_lib = _capi.load()
library_path = _lib.path


class EstuaryError(Exception):
    """A failed call; `status` is the C API's estuary_status (also the app's exit codes)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


class InvalidArgument(EstuaryError, ValueError):
    """The arguments are wrong: the message names the value and what is allowed."""


class Unsupported(EstuaryError):
    """This machine cannot do it (no GPU, display, extension, format or memory)."""


class RuntimeFailure(EstuaryError, RuntimeError):
    """A failure while running: a lost device, a CUDA fault, a wait that timed out."""


_ERRORS = {_capi.ERROR_RUNTIME: RuntimeFailure, _capi.ERROR_INVALID_ARGUMENT: InvalidArgument,
           _capi.ERROR_UNSUPPORTED: Unsupported}


def _check(status):
    if status != _capi.OK:
        message = _lib.estuary_last_error().decode("utf-8", "replace")
        raise _ERRORS.get(status, EstuaryError)(message, status)


def _choice(table, value, what):
    if value not in table:
        raise InvalidArgument(f"{what} {value!r} is not one of {', '.join(map(repr, table))}",
                              _capi.ERROR_INVALID_ARGUMENT)
    return table[value]


def _set_bounds(desc, bounds):
    if bounds is None:
        return
    if len(bounds) not in (4, 6):
        raise InvalidArgument(f"bounds {tuple(bounds)}: (x0, y0, x1, y1) in 2D or (x0, y0, z0, x1, "
                              "y1, z1) in 3D", _capi.ERROR_INVALID_ARGUMENT)
    for i, value in enumerate(bounds):
        desc.bounds[i] = value


def _text(value):
    return value.encode() if isinstance(value, str) else value


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


# The texels of each format as NumPy sees them: (dtype, channels).
_TEXELS = {"r32f": (np.float32, 1), "rg32f": (np.float32, 2), "rgba32f": (np.float32, 4),
           "rgba16f": (np.float16, 4), "rgba8": (np.uint8, 4)}
_FORMAT_NAMES = {v: k for k, v in _capi.FORMAT.items()}


class Image:
    """An image of the viewer: a ring of copies (one per frame in flight) or a single one."""

    def __init__(self, viewer, handle, format, kind, shape):
        self._viewer, self._handle = viewer, handle
        self.format, self.kind = format, kind
        self.dtype = np.dtype(_TEXELS[format][0])
        self.channels = _TEXELS[format][1]
        self.shape = tuple(shape)  # level 0, NumPy order: (layers or depth,) height, width
        info = _capi.ImageInfo()
        _check(_lib.estuary_get_image_info(handle, ctypes.byref(info)))
        self.levels, self.copies = info.levels, info.copies
        self.writer = {1: "cuda", 2: "host"}[info.writer]
        self.level_bytes = [info.level_bytes[i] for i in range(info.levels)]
        self._level_shapes = {}

    def level_shape(self, level=0):
        """The array shape of one level: NumPy order, the channel axis last where there are
        several."""
        shape = self._level_shapes.get(level)
        if shape is None:
            shape = self._level_shapes[level] = self._shape_of(level)
        return shape

    def _shape_of(self, level):
        if self.kind in ("2d_array", "cube"):
            dims = (self.shape[0],) + tuple(max(d >> level, 1) for d in self.shape[1:])
        else:
            dims = tuple(max(d >> level, 1) for d in self.shape)
        return dims + ((self.channels,) if self.channels > 1 else ())

    def destroy(self):
        """Frees the image now (it must not be drawn by a view)."""
        if self._handle and self._viewer._handle:
            _check(_lib.estuary_destroy_image(self._viewer._handle, self._handle))
        self._handle = None


class Buffer:
    """A buffer of the viewer holding a C-contiguous array of `shape` and `dtype` per copy."""

    def __init__(self, viewer, handle, shape, dtype):
        self._viewer, self._handle = viewer, handle
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.nbytes = int(math.prod(self.shape)) * self.dtype.itemsize
        info = _capi.BufferInfo()
        _check(_lib.estuary_get_buffer_info(handle, ctypes.byref(info)))
        self.copies = info.copies
        self.writer = {1: "cuda", 2: "host"}[info.writer]

    def destroy(self):
        if self._handle and self._viewer._handle:
            _check(_lib.estuary_destroy_buffer(self._viewer._handle, self._handle))
        self._handle = None


class View:
    """A view: its parameters change between frames (`view.update(value_range=(0, 2))`)."""

    def __init__(self, viewer, handle):
        self._viewer, self._handle = viewer, handle

    def params(self):
        p = _capi.ViewParams()
        _check(_lib.estuary_get_view_params(self._handle, ctypes.byref(p)))
        return {name: getattr(p, name) for name, _ in p._fields_}

    def update(self, visible=None, colormap=None, value_range=None, mip_bias=None, opacity=None,
               style=None, slice_axis=None, slice_position=None, point_count=None,
               point_size=None, point_intensity=None):
        p = _capi.ViewParams()
        _check(_lib.estuary_get_view_params(self._handle, ctypes.byref(p)))
        if visible is not None:
            p.visible = int(bool(visible))
        if colormap is not None:
            p.colormap = _choice(_capi.COLORMAP, colormap, "colormap")
        if value_range is not None:
            p.value_min, p.value_max = value_range
        if style is not None:
            p.style = _choice(_capi.VOLUME_STYLE, style, "style")
        for name, value in (("mip_bias", mip_bias), ("opacity", opacity),
                            ("slice_axis", slice_axis), ("slice_position", slice_position),
                            ("point_count", point_count), ("point_size", point_size),
                            ("point_intensity", point_intensity)):
            if value is not None:
                setattr(p, name, value)
        _check(_lib.estuary_set_view_params(self._handle, ctypes.byref(p)))

    def destroy(self):
        if self._handle and self._viewer._handle:
            _check(_lib.estuary_destroy_view(self._viewer._handle, self._handle))
        self._handle = None


class DeviceArray:
    """A frame's copy of a CUDA-written buffer: the exported memory itself, for
    torch.as_tensor(a, device="cuda"), cupy.asarray(a), wp.array(a) or any DLPack consumer.
    Valid while its frame is open: after the frame ends, Vulkan owns the memory until the slot
    comes round again."""

    def __init__(self, frame, pointer, shape, dtype):
        self._frame = frame
        self.ptr, self.shape, self.dtype = pointer, shape, dtype

    def _open(self):
        if self._frame._handle is None:
            raise InvalidArgument(f"frame {self._frame.index} has ended: its arrays belong to the "
                                  "draw now", _capi.ERROR_INVALID_ARGUMENT)

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


def _cuda_interface(array):
    """(pointer, shape, dtype, stream) of an object with __cuda_array_interface__; None else.
    PyTorch's CUDA tensors are read directly (their interface is built in Python, ~30 us a call):
    their stream is the caller's to order, as the interface would not say it either."""
    if getattr(array, "is_cuda", False) and hasattr(array, "data_ptr"):
        dtype = _TORCH_DTYPES.get(str(array.dtype))
        if dtype is not None:
            if not array.is_contiguous():
                raise InvalidArgument("the tensor is not contiguous; pass tensor.contiguous()",
                                      _capi.ERROR_INVALID_ARGUMENT)
            return array.data_ptr(), tuple(array.shape), dtype, None
    interface = getattr(array, "__cuda_array_interface__", None)
    if interface is None:
        return None
    dtype = np.dtype(interface["typestr"])
    shape = tuple(interface["shape"])
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


class Frame:
    """One frame: begun by Viewer.frame() (a context manager), ended on leaving the block."""

    def __init__(self, viewer, stream, defer_wait):
        desc = _capi.FrameDesc()
        desc.stream = _stream_handle(stream)
        desc.flags = _capi.FRAME_DEFER_WAIT if defer_wait else 0
        handle = ctypes.c_void_p()
        _check(_lib.estuary_begin_frame(viewer._handle, ctypes.byref(desc), ctypes.byref(handle)))
        self._adopt(viewer, handle, desc.stream)

    @classmethod
    def _begun(cls, viewer, handle):
        """A frame estuary_display began (on the viewer's own stream)."""
        frame = cls.__new__(cls)
        frame._adopt(viewer, ctypes.c_void_p(handle), None)
        return frame

    def _adopt(self, viewer, handle, stream):
        self._viewer, self._handle = viewer, handle
        self.index = _lib.estuary_frame_index(handle)
        self.slot = self.index % viewer.frames_in_flight
        if stream:
            self.stream = stream
        else:  # the viewer's own, the same every frame
            if viewer._own_stream is None:
                viewer._own_stream = _lib.estuary_frame_stream(handle) or (
                    1 if viewer.has_cuda else 0)
            self.stream = viewer._own_stream or None

    def _active(self):
        if self._handle is None:
            raise InvalidArgument(f"frame {self.index} has ended", _capi.ERROR_INVALID_ARGUMENT)
        return self._handle

    def wait(self):
        """With defer_wait=True: enqueues the slot's wait now (before writing its copies)."""
        _check(_lib.estuary_frame_wait(self._active()))

    def end(self):
        """Enqueues the frame's signal on its stream and submits its draw."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            _check(_lib.estuary_end_frame(handle))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.end()
        return False

    def buffer(self, buffer):
        """The frame's copy of `buffer`: a DeviceArray (CUDA writer) over the exported memory, or
        a writable NumPy array over the frame's host memory (host writer)."""
        pointer = ctypes.c_void_p()
        if buffer.writer == "cuda":
            _check(_lib.estuary_frame_device_pointer(self._active(), buffer._handle,
                                                     ctypes.byref(pointer)))
            return DeviceArray(self, pointer.value, buffer.shape, buffer.dtype)
        _check(_lib.estuary_frame_host_pointer(self._active(), buffer._handle,
                                               ctypes.byref(pointer)))
        return _host_array(pointer.value, buffer.shape, buffer.dtype)

    def host_level(self, image, level=0):
        """The frame's host memory of a host-written image's level, as a writable NumPy array."""
        pointer = ctypes.c_void_p()
        _check(_lib.estuary_frame_host_level(self._active(), image._handle, level,
                                             ctypes.byref(pointer)))
        return _host_array(pointer.value, image.level_shape(level), image.dtype)

    def surface(self, image, level=0):
        """The cudaSurfaceObject_t of a CUDA-written image's level in this frame (for kernels of
        your own: CuPy RawKernel, Numba, Warp)."""
        surface = ctypes.c_uint64()
        _check(_lib.estuary_frame_surface(self._active(), image._handle, level,
                                          ctypes.byref(surface)))
        return surface.value

    def show(self, image, array, level=0):
        """Copies `array` into level `level` of the frame's copy of `image` (on the GPU, on the
        frame's stream, for CUDA arrays; from host memory for NumPy ones). Its shape must be the
        level's (image.level_shape(level)) and its dtype the format's."""
        expected_shape, dtype = image.level_shape(level), image.dtype
        cuda = _cuda_interface(array)
        if cuda is not None:
            pointer, shape, got_dtype, _ = cuda
            if image.writer != "cuda":
                raise InvalidArgument(f"image {image.shape} is written by the host; a CUDA array "
                                      "needs an image made with writer='cuda' (or pass a NumPy "
                                      "array)", _capi.ERROR_INVALID_ARGUMENT)
            host = None
        else:
            host = np.asarray(array)
            shape, got_dtype = tuple(host.shape), host.dtype
        if shape != expected_shape and not (image.channels == 1 and
                                            tuple(shape) == expected_shape + (1,)):
            raise InvalidArgument(f"array of shape {tuple(shape)} for level {level} of a "
                                  f"{image.format} image: expected {tuple(expected_shape)}",
                                  _capi.ERROR_INVALID_ARGUMENT)
        if got_dtype != dtype:
            raise InvalidArgument(f"array of dtype {got_dtype} for a {image.format} image: "
                                  f"expected {dtype}", _capi.ERROR_INVALID_ARGUMENT)
        if host is not None:
            host = np.ascontiguousarray(host)
            pointer = host.ctypes.data
        else:
            stream = cuda[3]
            if stream not in (None, self.stream) and self.stream is not None:
                _dlpack.stream_wait(self.stream, stream)  # the producer's work first
        _check(_lib.estuary_frame_copy_to_image(self._active(), image._handle, level, pointer,
                                                image.level_bytes[level]))

    def read_image(self, image, x=0, y=0, width=1, height=1, level=0, after_draw=False):
        """Texels of what the frame's draw sees (before it, or after it), as a NumPy array filled
        once the frame is drawn (Viewer.wait_frame(frame.index) or Viewer.finish())."""
        shape = (height, width) + ((image.channels,) if image.channels > 1 else ())
        out = np.full(shape, np.nan if image.dtype.kind == "f" else 0, dtype=image.dtype)
        _check(_lib.estuary_frame_read_image(self._active(), image._handle, level, x, y, width,
                                             height, _capi.READ_AFTER_DRAW if after_draw else 0,
                                             out.ctypes.data))
        self._viewer._pending_reads.append(out)
        return out

    def read_buffer(self, buffer, offset=0, nbytes=None, after_draw=False):
        """Bytes of the frame's copy of `buffer` as the draw sees them, as a NumPy array of the
        buffer's dtype, filled once the frame is drawn."""
        nbytes = buffer.nbytes - offset if nbytes is None else nbytes
        out = np.zeros(nbytes // buffer.dtype.itemsize, dtype=buffer.dtype)
        _check(_lib.estuary_frame_read_buffer(self._active(), buffer._handle, offset, nbytes,
                                              _capi.READ_AFTER_DRAW if after_draw else 0,
                                              out.ctypes.data))
        self._viewer._pending_reads.append(out)
        return out

    def pick(self, view, x, y, radius=0.0):
        """Which element of a buffer view the frame's draw shows at pixel (x, y), or nearest it
        within `radius` pixels: a Pick, filled once the frame is drawn."""
        result = Pick()
        _check(_lib.estuary_frame_pick(self._active(), view._handle, float(x), float(y),
                                       float(radius), ctypes.byref(result._raw)))
        self._viewer._pending_reads.append(result)
        return result


class Pick:
    """What Frame.pick found, once its frame is drawn: `hit`, then the `element` (point, marker,
    glyph, segment or triangle), the `vertex` nearest the point (lines, meshes), the `distance` in
    pixels (0: it covers the point), the `value` there and the `position` (x, y, z)."""

    def __init__(self):
        self._raw = _capi.Pick()

    hit = property(lambda self: bool(self._raw.hit))
    element = property(lambda self: self._raw.element)
    vertex = property(lambda self: self._raw.vertex)
    distance = property(lambda self: self._raw.distance)
    value = property(lambda self: self._raw.value)
    position = property(lambda self: tuple(self._raw.position))

    def __repr__(self):
        if not self.hit:
            return "Pick(hit=False)"
        return (f"Pick(element={self.element}, vertex={self.vertex}, distance={self.distance:g}, "
                f"value={self.value:g}, position={self.position})")


def _host_array(pointer, shape, dtype):
    count = int(math.prod(shape)) * np.dtype(dtype).itemsize
    raw = (ctypes.c_uint8 * count).from_address(pointer)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


class Viewer:
    """A window (GLFW + Dear ImGui) or a headless target drawing the views of its images and
    buffers. `display`: "auto" (a window where there is a display), "window" or "headless"; `cuda`:
    "auto", "required", "off", or a device ordinal."""

    def __init__(self, display="auto", width=0, height=0, title=None, frames_in_flight=2,
                 cuda="auto", present="fifo", validation=None, panels=True, data_dir=None):
        desc = _capi.ViewerDesc()
        desc.api_version = _capi.API_VERSION
        desc.display = _choice(_capi.DISPLAY, display, "display")
        desc.width, desc.height = width, height
        desc.title = _text(title)
        desc.frames_in_flight = frames_in_flight
        desc.present_mode = _choice(_capi.PRESENT, present, "present")
        if isinstance(cuda, int) and not isinstance(cuda, bool):
            desc.cuda, desc.cuda_device = _capi.CUDA_MODE["device"], cuda
        else:
            desc.cuda = _choice(_capi.CUDA_MODE, cuda, "cuda")
        if validation is None:
            validation = os.environ.get("ESTUARY_VALIDATION") == "1"
        desc.flags = (_capi.VIEWER_VALIDATION if validation else 0) | (
            0 if panels else _capi.VIEWER_NO_PANELS)
        desc.data_dir = _text(data_dir)
        handle = ctypes.c_void_p()
        _check(_lib.estuary_create_viewer(ctypes.byref(desc), ctypes.byref(handle)))
        self._handle = handle
        self._pending_reads = []
        self._own_stream = None
        info = _capi.ViewerInfo()
        _check(_lib.estuary_get_viewer_info(handle, ctypes.byref(info)))
        self.info = {name: (v.decode() if isinstance(v, bytes) else v)
                     for name, v in ((n, getattr(info, n)) for n, _ in info._fields_)}
        self.has_cuda = bool(info.has_cuda)
        self.cuda_device = info.cuda_device
        self.headless = bool(info.headless)
        self.frames_in_flight = info.frames_in_flight

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.estuary_destroy_viewer(self._handle, None)

    def close(self):
        """Destroys the viewer; returns the validation layer's message count (an error when the
        layer was on and reported any: estuary treats them as failures)."""
        if not self._handle:
            return 0
        handle, self._handle = self._handle, None
        messages = ctypes.c_uint32()
        _check(_lib.estuary_destroy_viewer(handle, ctypes.byref(messages)))
        self._pending_reads.clear()
        return messages.value

    # -- images and buffers

    def image(self, shape, format="r32f", kind=None, levels=0, writer="auto", single=False,
              generate_mips=False, name=None):
        """An image whose level 0 has `shape` in NumPy order: (width,) for 1D, (height, width),
        (depth, height, width) for 3D, (layers, height, width) with kind="2d_array", (6, size,
        size) with kind="cube". `format`: r32f, rg32f, rgba32f, rgba16f, rgba8."""
        shape = tuple(int(d) for d in shape)
        if kind is None:
            kind = {1: "1d", 2: "2d", 3: "3d"}.get(len(shape))
            if kind is None:
                raise InvalidArgument(f"image shape {shape}: 1 to 3 dimensions",
                                      _capi.ERROR_INVALID_ARGUMENT)
        desc = _capi.ImageDesc()
        desc.format = _choice(_capi.FORMAT, format, "format")
        desc.kind = _choice(_capi.IMAGE_KIND, kind, "kind")
        dims = {"1d": 1, "2d": 2, "3d": 3, "2d_array": 3, "cube": 3}[kind]
        if len(shape) != dims:
            raise InvalidArgument(f"image shape {shape} for kind {kind}: {dims} dimension(s)",
                                  _capi.ERROR_INVALID_ARGUMENT)
        desc.width = shape[-1]
        desc.height = shape[-2] if dims > 1 else 1
        if kind == "3d":
            desc.depth = shape[0]
        elif kind in ("2d_array", "cube"):
            desc.layers = shape[0]
        desc.levels = levels
        desc.writer = _choice(_capi.WRITER, writer, "writer")
        desc.flags = (_capi.ALLOC_SINGLE if single else 0) | (
            _capi.IMAGE_GENERATE_MIPS if generate_mips else 0)
        desc.name = _text(name)
        handle = ctypes.c_void_p()
        _check(_lib.estuary_create_image(self._handle, ctypes.byref(desc), ctypes.byref(handle)))
        return Image(self, handle.value, format, kind, shape)

    def buffer(self, shape, dtype=np.float32, writer="auto", single=False, name=None):
        """A buffer holding an array of `shape` and `dtype` per copy."""
        shape = (shape,) if isinstance(shape, int) else tuple(int(d) for d in shape)
        dtype = np.dtype(dtype)
        desc = _capi.BufferDesc()
        desc.size = int(math.prod(shape)) * dtype.itemsize
        desc.writer = _choice(_capi.WRITER, writer, "writer")
        desc.flags = _capi.ALLOC_SINGLE if single else 0
        desc.name = _text(name)
        handle = ctypes.c_void_p()
        _check(_lib.estuary_create_buffer(self._handle, ctypes.byref(desc),
                                          ctypes.byref(handle)))
        return Buffer(self, handle.value, shape, dtype)

    # -- views

    def field_view(self, image, shading="scalar", colormap="viridis", value_range=None,
                   label=None, colorbar=True, hidden=False, shader=None):
        d = _capi.FieldViewDesc()
        d.image = image._handle
        d.shading = _choice(_capi.SHADING, shading, "shading")
        _set_colour(d, colormap, value_range)
        d.label, d.shader = _text(label), _text(shader)
        d.flags = _view_flags(colorbar, hidden)
        return self._add(_lib.estuary_add_field_view, d)

    def volume_view(self, image, style="march", colormap="viridis", value_range=None, opacity=0.0,
                    label=None, colorbar=True, hidden=False):
        d = _capi.VolumeViewDesc()
        d.image = image._handle
        d.style = _choice(_capi.VOLUME_STYLE, style, "style")
        _set_colour(d, colormap, value_range)
        d.opacity, d.label = opacity, _text(label)
        d.flags = _view_flags(colorbar, hidden)
        return self._add(_lib.estuary_add_volume_view, d)

    def points_view(self, buffer, layout="xy_velocity", count=0, size=0.0, intensity=0.0,
                    colormap="viridis", value_range=None, bounds=None, label=None, colorbar=False,
                    hidden=False):
        """Points from a buffer of float32 (x, y, vx, vy) (layout "xy_velocity") or (x, y, z, s)
        ("xyz_scalar") per point."""
        d = _capi.PointsViewDesc()
        d.buffer = buffer._handle
        d.layout = _choice(_capi.POINTS_LAYOUT, layout, "layout")
        d.count, d.size, d.intensity = count, size, intensity
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = _overlay_flags(colorbar, hidden)
        return self._add(_lib.estuary_add_points_view, d)

    def markers_view(self, buffer, shape="arrow", count=0, size=0.0, line_width=0.0,
                     colormap="viridis", value_range=None, bounds=None, label=None,
                     three_d=False, outline=False, world_size=False, scale_by_length=False,
                     rgba=False, colorbar=False, hidden=False):
        """Markers from a buffer of float32 (x, y, z, value, dx, dy, dz, size) per marker: a shape
        turned along (dx, dy, dz), sized by `size` times the marker's own where it gives one."""
        d = _capi.MarkersViewDesc()
        d.buffer = buffer._handle
        d.shape = _choice(_capi.MARKER_SHAPE, shape, "shape")
        d.count, d.size, d.line_width = count, size, line_width
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = (_overlay_flags(colorbar, hidden) |
                   (_capi.MARKERS_3D if three_d else 0) |
                   (_capi.MARKERS_OUTLINE if outline else 0) |
                   (_capi.MARKERS_WORLD_SIZE if world_size else 0) |
                   (_capi.MARKERS_SCALE_BY_LENGTH if scale_by_length else 0) |
                   (_capi.MARKERS_RGBA if rgba else 0))
        return self._add(_lib.estuary_add_markers_view, d)

    def lines_view(self, vertices, indices=None, topology="segments", count=0, width=0.0,
                   colormap="viridis", value_range=None, bounds=None, label=None, three_d=False,
                   rgba=False, colorbar=False, hidden=False):
        """Lines between float32 (x, y, z, value) vertices: "segments" (pairs) or a "strip",
        directly or through a buffer of uint32 indices (0xFFFFFFFF restarts a strip)."""
        d = _capi.LinesViewDesc()
        d.vertices = vertices._handle
        d.indices = indices._handle if indices is not None else None
        d.topology = _choice(_capi.LINE_TOPOLOGY, topology, "topology")
        d.count, d.width = count, width
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = (_overlay_flags(colorbar, hidden) | (_capi.LINES_3D if three_d else 0) |
                   (_capi.LINES_RGBA if rgba else 0))
        return self._add(_lib.estuary_add_lines_view, d)

    def glyph_view(self, image, shape="arrow", spacing=0, size=0.0, colormap="viridis",
                   value_range=None, label=None, outline=False, colorbar=False, hidden=False):
        """Vector glyphs of a 2D velocity image (channels 0 and 1), or of a 3D one (channels 0, 1
        and 2) under the orbit camera: one every `spacing` cells."""
        d = _capi.GlyphViewDesc()
        d.image = image._handle
        d.shape = _choice(_capi.MARKER_SHAPE, shape, "shape")
        d.spacing, d.size = spacing, size
        _set_colour(d, colormap, value_range)
        d.label = _text(label)
        d.flags = _overlay_flags(colorbar, hidden) | (_capi.MARKERS_OUTLINE if outline else 0)
        return self._add(_lib.estuary_add_glyph_view, d)

    def mesh_view(self, vertices, indices=None, normals=None, shading="smooth", count=0,
                  wireframe=False, wire_width=0.0, wire_color=None, colormap="viridis",
                  value_range=None, bounds=None, label=None, rgba=False, colorbar=False,
                  hidden=False):
        """Lit triangles of float32 (x, y, z, value) vertices under the orbit camera: three
        consecutive vertices or three uint32 indices each; "smooth" shading reads `normals`
        (float32 (nx, ny, nz, unused) per vertex) or sums them from the triangles each frame."""
        d = _capi.MeshViewDesc()
        d.vertices = vertices._handle
        d.indices = indices._handle if indices is not None else None
        d.normals = normals._handle if normals is not None else None
        d.shading = _choice(_capi.MESH_SHADING, shading, "shading")
        d.count, d.wire_width = count, wire_width
        if wire_color is not None:
            d.wire_color[:] = [float(c) for c in wire_color]
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = (_overlay_flags(colorbar, hidden) |
                   (_capi.MESH_WIREFRAME if wireframe else 0) | (_capi.MESH_RGBA if rgba else 0))
        return self._add(_lib.estuary_add_mesh_view, d)

    def record_start(self, path, fps=0, quality=0, encoder=None):
        """Records every picture drawn from now on into `path` (.mp4 or .mkv) until record_stop."""
        d = _capi.RecordDesc()
        d.path = _text(os.fspath(path))
        d.fps, d.quality, d.encoder = fps, quality, _text(encoder)
        _check(_lib.estuary_record_start(self._handle, ctypes.byref(d)))

    def record_stop(self):
        """Finishes the recording; returns {"frames", "copy_ms_mean", "stall_ms_total",
        "encoder"}."""
        info = _capi.RecordInfo()
        _check(_lib.estuary_record_stop(self._handle, ctypes.byref(info)))
        return {"frames": info.frames, "copy_ms_mean": info.copy_ms_mean,
                "stall_ms_total": info.stall_ms_total, "encoder": info.encoder.decode()}

    def _add(self, function, desc):
        handle = ctypes.c_void_p()
        _check(function(self._handle, ctypes.byref(desc), ctypes.byref(handle)))
        return View(self, handle.value)

    # -- frames

    def frame(self, stream=None, defer_wait=False):
        """Begins the next frame: `with viewer.frame(stream=torch.cuda.current_stream()) as f:`.
        The slot's wait goes on `stream` before your work (GPU-side), the signal after it when the
        block ends; the host waits only for the frames-in-flight limit."""
        return Frame(self, stream, defer_wait)

    def display(self, callback, frames=0, stream=None):
        """Runs frames until the window closes, `frames` are done (0: no limit) or `callback(frame)`
        returns True. ESTUARY_FRAMES and ESTUARY_SCREENSHOT apply, as for every estuary program.
        `stream`: your work's stream (torch.cuda.current_stream(), a CuPy stream), which every
        frame's wait and signal then go on; None: the viewer's own."""
        if stream is not None:
            return self._display_on(callback, frames, stream)
        raised = []

        def call(handle, _user):
            frame = Frame._begun(self, handle)
            try:
                stop = bool(callback(frame))
            except BaseException as error:  # carried out of C, raised below
                raised.append(error)
                stop = True
            frame._handle = None
            return 1 if stop else 0

        trampoline = _capi.FRAME_FN(call)
        status = _lib.estuary_display(self._handle, trampoline, None, frames)
        if raised:
            raise raised[0]
        _check(status)

    def _display_on(self, callback, frames, stream):
        # estuary_display's loop on a stream of the caller's, with its environment variables.
        text = os.environ.get("ESTUARY_FRAMES", "") or "0"
        if not text.isdigit():
            raise InvalidArgument(f"ESTUARY_FRAMES={text}: a count of frames (digits only)",
                                  _capi.ERROR_INVALID_ARGUMENT)
        cap = int(text)
        limit = min(n for n in (frames, cap) if n) if (frames or cap) else 0
        count = 0
        while not self.should_close() and (not limit or count < limit):
            with self.frame(stream=stream) as frame:
                stop = bool(callback(frame))
            count += 1
            if stop:
                break
        self.finish()
        shot = os.environ.get("ESTUARY_SCREENSHOT")
        if shot:
            self.screenshot(shot)

    def wait_frame(self, index):
        _check(_lib.estuary_wait_frame(self._handle, index))

    def finish(self):
        """Waits for every frame ended so far (their reads are filled then)."""
        _check(_lib.estuary_finish(self._handle))
        self._pending_reads.clear()

    # -- pictures and numbers

    def screenshot(self, path):
        """The last frame's picture as a PNG, written atomically."""
        _check(_lib.estuary_screenshot(self._handle, _text(os.fspath(path))))

    def pixels(self):
        """The last frame's picture as an (height, width, 4) uint8 array, top row first."""
        info = _capi.ViewerInfo()
        _check(_lib.estuary_get_viewer_info(self._handle, ctypes.byref(info)))
        out = np.empty((info.height, info.width, 4), dtype=np.uint8)
        _check(_lib.estuary_read_pixels(self._handle, out.ctypes.data, out.nbytes))
        return out

    def stats(self):
        """The drawn frames' times not read yet, oldest first, as dicts."""
        out, s = [], _capi.FrameStats()
        while True:
            status = _lib.estuary_next_frame_stats(self._handle, ctypes.byref(s))
            if status == _capi.NOT_READY:
                return out
            _check(status)
            out.append({n: getattr(s, n) for n, _ in s._fields_
                        if not n.startswith("raw_")})

    def metrics(self):
        m = _capi.Metrics()
        _check(_lib.estuary_get_metrics(self._handle, ctypes.byref(m)))
        return {name: getattr(m, name) for name, _ in m._fields_}

    @property
    def camera(self):
        c = _capi.Camera()
        _check(_lib.estuary_get_camera(self._handle, ctypes.byref(c)))
        return {name: getattr(c, name) for name, _ in c._fields_}

    @camera.setter
    def camera(self, values):
        c = _capi.Camera()
        _check(_lib.estuary_get_camera(self._handle, ctypes.byref(c)))
        for name, value in values.items():
            if name not in dict(c._fields_):
                raise InvalidArgument(f"camera has no {name!r}: {', '.join(dict(c._fields_))}",
                                      _capi.ERROR_INVALID_ARGUMENT)
            setattr(c, name, value)
        _check(_lib.estuary_set_camera(self._handle, ctypes.byref(c)))

    def set_background(self, red, green, blue):
        _check(_lib.estuary_set_background(self._handle, red, green, blue))

    def should_close(self):
        return bool(_lib.estuary_should_close(self._handle))

    def request_close(self):
        _check(_lib.estuary_request_close(self._handle))

    def validation_messages(self):
        return _lib.estuary_validation_messages(self._handle)


def _view_flags(colorbar, hidden):
    return (0 if colorbar else _capi.VIEW_NO_COLORBAR) | (_capi.VIEW_HIDDEN if hidden else 0)


def _overlay_flags(colorbar, hidden):
    """Points, markers, lines and glyphs: their colorbar is asked for, not on by default."""
    return (_capi.POINTS_COLORBAR if colorbar else 0) | (_capi.VIEW_HIDDEN if hidden else 0)


def _set_colour(desc, colormap, value_range):
    desc.colormap = _choice(_capi.COLORMAP, colormap, "colormap")
    if value_range is not None:
        desc.value_min, desc.value_max = value_range


__all__ = ["Viewer", "Image", "Buffer", "View", "Frame", "DeviceArray", "EstuaryError",
           "InvalidArgument", "Unsupported", "RuntimeFailure", "library_path"]
