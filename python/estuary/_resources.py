"""The viewer's images, buffers and views as Python objects: their shapes and formats, and their
handles refused (estuary.InvalidHandleError) once destroyed or once their viewer is closed."""

import ctypes
import math

import numpy as np

from . import _capi
from ._errors import InvalidArgument
from ._library import as_dict as _as_dict, check as _check, choice as _choice, \
    colormap as _colormap, \
    in_use as _in_use, lib as _lib


# The texels of each format as NumPy sees them: (dtype, channels).
_TEXELS = {"r32f": (np.float32, 1), "rg32f": (np.float32, 2), "rgba32f": (np.float32, 4),
           "rgba16f": (np.float16, 4), "rgba8": (np.uint8, 4)}


class Image:
    """An image of the viewer: a ring of copies (one per frame in flight) or a single one."""

    def __init__(self, viewer, handle, format, kind, shape, name):
        self._viewer, self._handle = viewer, handle
        self._handle_arg = ctypes.c_void_p(handle)  # as the frame's calls pass it (_frame.py)
        self.format, self.kind, self.name = format, kind, name
        self.dtype = np.dtype(_TEXELS[format][0])
        self.channels = _TEXELS[format][1]
        self.shape = tuple(shape)  # level 0, NumPy order: (layers or depth,) height, width
        info = _capi.ImageInfo()
        _check(_lib.estuary_get_image_info(handle, ctypes.byref(info)))
        self.levels, self.copies = info.levels, info.copies
        self.writer = {1: "cuda", 2: "host"}[info.writer]
        self.level_bytes = []
        for level in range(info.levels):
            size = ctypes.c_uint64()
            _check(_lib.estuary_get_image_level_bytes(handle, level, ctypes.byref(size)))
            self.level_bytes.append(size.value)
        self._level_bytes_arg = [ctypes.c_uint64(size) for size in self.level_bytes]
        self._level_shapes = {}
        self._level_shape_list = [self.level_shape(level) for level in range(self.levels)]

    def __repr__(self):
        name = f" {self.name!r}" if self.name else ""
        return f"<estuary.Image{name} {self.format} {self.kind} {self.shape}>"

    def _use(self):
        handle = self._handle
        if handle is None or self._viewer._handle is None:  # the message only when it raises
            _in_use(self._viewer, handle, f"image {self.shape}" +
                    (f" {self.name!r}" if self.name else ""))
        return handle

    def _level(self, level):
        if level.__class__ is int and 0 <= level < self.levels:
            return level
        level = _capi.fit(level, ctypes.c_uint32, "level")
        if level >= self.levels:
            raise InvalidArgument(f"level {level} of an image of {self.levels} level(s)")
        return level

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
        """Frees the image now (it must not be drawn by a view). A second call, or one after the
        viewer closed (which freed it), does nothing."""
        if self._handle and self._viewer._handle:
            _check(_lib.estuary_destroy_image(self._viewer._handle, self._handle))
        self._handle = None


class Buffer:
    """A buffer of the viewer holding a C-contiguous array of `shape` and `dtype` per copy."""

    def __init__(self, viewer, handle, shape, dtype, name):
        self._viewer, self._handle = viewer, handle
        self._handle_arg = ctypes.c_void_p(handle)
        self.shape, self.dtype, self.name = tuple(shape), np.dtype(dtype), name
        self.nbytes = int(math.prod(self.shape)) * self.dtype.itemsize
        info = _capi.BufferInfo()
        _check(_lib.estuary_get_buffer_info(handle, ctypes.byref(info)))
        self.copies = info.copies
        self.writer = {1: "cuda", 2: "host"}[info.writer]
        # A CUDA-written ring's device pointer of each copy (frame index % copies), kept from
        # the first frame that asked: estuary's call is then a lookup that does nothing else. A
        # single copy's first use in a frame also orders the frame's stream, so it always asks.
        self._device_pointers = ([None] * self.copies if self.writer == "cuda" and
                                 self.copies > 1 else None)

    def __repr__(self):
        name = f" {self.name!r}" if self.name else ""
        return f"<estuary.Buffer{name} {self.dtype} {self.shape}>"

    def _use(self):
        handle = self._handle
        if handle is None or self._viewer._handle is None:
            _in_use(self._viewer, handle, f"buffer {self.shape}" +
                    (f" {self.name!r}" if self.name else ""))
        return handle

    def destroy(self):
        """Frees the buffer now (it must not be drawn by a view). A second call, or one after the
        viewer closed, does nothing."""
        if self._handle and self._viewer._handle:
            _check(_lib.estuary_destroy_buffer(self._viewer._handle, self._handle))
        self._handle = None


class View:
    """A view: its parameters change between frames (`view.update(value_range=(0, 2))`)."""

    def __init__(self, viewer, handle, kind):
        self._viewer, self._handle, self.kind = viewer, handle, kind

    def __repr__(self):
        return f"<estuary.View {self.kind}>"

    def _use(self):
        handle = self._handle
        if handle is None or self._viewer._handle is None:
            _in_use(self._viewer, handle, f"the {self.kind} view")
        return handle

    def params(self):
        p = _capi.ViewParams()
        _check(_lib.estuary_get_view_params(self._use(), ctypes.byref(p)))
        return _as_dict(p)

    def update(self, visible=None, colormap=None, value_range=None, mip_bias=None, opacity=None,
               style=None, slice_axis=None, slice_position=None, point_count=None,
               point_size=None, point_intensity=None, panel=None):
        p = _capi.ViewParams()
        _check(_lib.estuary_get_view_params(self._use(), ctypes.byref(p)))
        if visible is not None:
            p.visible = int(bool(visible))
        if colormap is not None:
            p.colormap = _colormap(colormap)
        if value_range is not None:
            p.value_min, p.value_max = value_range
        if style is not None:
            p.style = _choice(_capi.VOLUME_STYLE, style, "style")
        for name, value in (("mip_bias", mip_bias), ("opacity", opacity),
                            ("slice_axis", slice_axis), ("slice_position", slice_position),
                            ("point_count", point_count), ("point_size", point_size),
                            ("point_intensity", point_intensity), ("panel", panel)):
            if value is not None:
                setattr(p, name, value)
        _check(_lib.estuary_set_view_params(self._handle, ctypes.byref(p)))

    def set_text(self, text):
        """A text view's text (str, UTF-8) from the next frame on."""
        _check(_lib.estuary_set_text(self._use(), (text or "").encode("utf-8")))

    def set_legend(self, names):
        """Names of a categorical palette's entries (entry i is names[i]), shown in the view's
        colorbar instead of numbers; [] clears them."""
        names = [str(n).encode("utf-8") for n in names]
        array = (ctypes.c_char_p * max(len(names), 1))(*names)
        _check(_lib.estuary_set_view_legend(self._use(), array, len(names)))

    def destroy(self):
        """Removes the view. A second call, or one after the viewer closed, does nothing."""
        if self._handle and self._viewer._handle:
            _check(_lib.estuary_destroy_view(self._viewer._handle, self._handle))
        self._handle = None
