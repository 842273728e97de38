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

import collections
import ctypes
import datetime
import math
import os

import numpy as np

from . import _capi
from ._errors import (DeviceLostError, EstuaryError, GpuTimeoutError, InvalidArgument,
                      InvalidHandleError, NotReady, OutOfMemoryError, RuntimeFailure,
                      Unsupported)
from ._errors import BY_STATUS as _ERRORS
from ._frame import DeviceArray, Frame, Interrupts as _Interrupts, Pick
from ._library import as_dict as _as_dict, check as _check, choice as _choice, lib as _lib, \
    colormap as _colormap, field_names as _field_names, sizes as _sizes, text as _text
from ._resources import Buffer, Image, View
from . import _serve

for _error in set(_ERRORS.values()) | {EstuaryError}:
    _error.__module__ = __name__  # estuary.InvalidHandleError, as it is exported

__version__ = "0.3.5"

library_path = _lib.path


def _set_bounds(desc, bounds):
    if bounds is None:
        return
    if len(bounds) not in (4, 6):
        raise InvalidArgument(f"bounds {tuple(bounds)}: (x0, y0, x1, y1) in 2D or (x0, y0, z0, x1, "
                              "y1, z1) in 3D", _capi.ERROR_INVALID_ARGUMENT)
    for i, value in enumerate(bounds):
        desc.bounds[i] = value


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
        self._handle = handle.value
        self._handle_arg = handle  # as the frame's calls pass it (_frame.py)
        self._frame = None  # the frame begun and not ended
        # Reads and picks by frame, kept alive until estuary fills them: (frame index, result).
        self._pending_results = collections.deque()
        self._own_stream = None
        # What every frame passes: its desc and an out parameter (a handle, a pointer), with
        # their byref()s, made once. A viewer belongs to one thread (estuary.h).
        self._frame_desc = _capi.FrameDesc()
        self._frame_desc_ref = ctypes.byref(self._frame_desc)
        self._out = ctypes.c_void_p()
        self._out_ref = ctypes.byref(self._out)
        self._frame_out = ctypes.c_void_p()  # begin's out parameter: the open frame's handle
        self._frame_out_ref = ctypes.byref(self._frame_out)
        self._source = ctypes.c_void_p()  # show's source pointer
        self._stream_cache = (None, None)  # the stream object last given, and its handle
        # The index the next frame() gets, as estuary counts (frames that ended well); None:
        # unknown (a failed end, display()'s frames), asked of estuary at the next begin.
        self._next_index = 0
        self._host_memory = {}  # ctypes arrays over the frames' host memory (_frame._host_array)
        info = _capi.ViewerInfo()
        _check(_lib.estuary_get_viewer_info(self._handle, ctypes.byref(info)))
        self.info = {name: (v.decode() if isinstance(v, bytes) else v)
                     for name, v in _as_dict(info).items()}
        self.has_cuda = bool(info.has_cuda)
        self.cuda_device = info.cuda_device
        self.headless = bool(info.headless)
        self.frames_in_flight = info.frames_in_flight

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *_):
        if exc_type is not None and self._frame is not None:
            # The block is left by an exception with a frame still open (not in a `with`): the
            # frame is abandoned, ended so that the viewer can close.
            try:
                self._frame.end()
            except EstuaryError:
                pass
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_handle", None):
            _lib.estuary_destroy_viewer(self._handle, None)
            self._forget()

    def _use(self):
        if self._handle is None:
            raise InvalidHandleError("the viewer is closed")
        return self._handle

    def _forget(self):
        self._handle = None
        self._stream_cache = (None, None)  # the stream object held goes
        if self._frame is not None:
            self._frame._ended()
        self._pending_results.clear()
        self._host_memory.clear()

    def _results_drawn_before(self, index):
        """Frame `index` has begun: estuary filled the reads and picks of the frames its begin
        waited for (index - frames_in_flight and before), which need not be kept alive now."""
        results, done = self._pending_results, index - self.frames_in_flight
        while results and results[0][0] <= done:
            results.popleft()

    def close(self):
        """Destroys the viewer and everything made from it; returns the validation layer's
        message count (an error when the layer was on and reported any: estuary treats them as
        failures). Refused inside a frame (end it first); a second call does nothing. Its
        images, buffers, views and frames raise estuary.InvalidHandleError afterwards."""
        if self._handle is None:
            return 0
        if self._frame is not None:
            if self._frame._by_display:
                raise InvalidArgument(f"viewer.close() inside frame {self._frame.index} of "
                                      "viewer.display(): return True from the callback to stop "
                                      "the loop, then close the viewer; nothing was closed")
            raise InvalidArgument(f"viewer.close() inside frame {self._frame.index}: end the "
                                  "frame first (leave its `with` block or call frame.end()); "
                                  "nothing was closed")
        handle = self._handle
        self._forget()
        messages = ctypes.c_uint32()
        _check(_lib.estuary_destroy_viewer(handle, ctypes.byref(messages)))
        return messages.value

    # -- images and buffers

    def image(self, shape, format="r32f", kind=None, levels=0, writer="auto", single=False,
              generate_mips=False, name=None, origin=None, spacing=None):
        """An image whose level 0 has `shape` in NumPy order: (width,) for 1D, (height, width),
        (depth, height, width) for 3D, (layers, height, width) with kind="2d_array", (6, size,
        size) with kind="cube". `format`: r32f, rg32f, rgba32f, rgba16f, rgba8. `origin` and
        `spacing` (x, y[, z]): where cell (0, 0, 0)'s centre is and the step between cells in your
        units, which axes and scale bars read (None: cells)."""
        shape = _sizes(shape, "image shape", 2**32 - 1, "uint32_t")
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
        for field, values in (("origin", origin), ("spacing", spacing)):
            if values is None:
                continue
            values = tuple(float(x) for x in values)
            if not 1 <= len(values) <= 3:
                raise InvalidArgument(f"image {field} {values}: 1 to 3 values (x, y, z)",
                                      _capi.ERROR_INVALID_ARGUMENT)
            getattr(desc, field)[:len(values)] = values
        handle = ctypes.c_void_p()
        _check(_lib.estuary_create_image(self._use(), ctypes.byref(desc), ctypes.byref(handle)))
        return Image(self, handle.value, format, kind, shape, name)

    def buffer(self, shape, dtype=np.float32, writer="auto", single=False, name=None):
        """A buffer holding an array of `shape` and `dtype` per copy."""
        shape = _sizes((shape,) if np.ndim(shape) == 0 else shape, "buffer shape", 2**64 - 1,
                       "uint64_t")
        dtype = np.dtype(dtype)
        desc = _capi.BufferDesc()
        size = math.prod(shape) * dtype.itemsize
        if size > 2**64 - 1:
            raise InvalidArgument(f"buffer shape {shape} of {dtype}: {size} bytes, more than a "
                                  f"buffer's size (the C API's uint64_t) holds: 1 to {2**64 - 1}")
        desc.size = size
        desc.writer = _choice(_capi.WRITER, writer, "writer")
        desc.flags = _capi.ALLOC_SINGLE if single else 0
        desc.name = _text(name)
        handle = ctypes.c_void_p()
        _check(_lib.estuary_create_buffer(self._use(), ctypes.byref(desc),
                                          ctypes.byref(handle)))
        return Buffer(self, handle.value, shape, dtype, name)

    # -- views

    def field_view(self, image, shading="scalar", colormap="viridis", value_range=None,
                   label=None, colorbar=True, hidden=False, shader=None, panel=0):
        d = _capi.FieldViewDesc()
        d.image = image._use()
        d.shading = _choice(_capi.SHADING, shading, "shading")
        _set_colour(d, colormap, value_range)
        d.label, d.shader = _text(label), _text(shader)
        d.flags = _view_flags(colorbar, hidden)
        return self._add(_lib.estuary_add_field_view, d, panel)

    def volume_view(self, image, style="march", colormap="viridis", value_range=None, opacity=0.0,
                    label=None, colorbar=True, hidden=False, panel=0):
        d = _capi.VolumeViewDesc()
        d.image = image._use()
        d.style = _choice(_capi.VOLUME_STYLE, style, "style")
        _set_colour(d, colormap, value_range)
        d.opacity, d.label = opacity, _text(label)
        d.flags = _view_flags(colorbar, hidden)
        return self._add(_lib.estuary_add_volume_view, d, panel)

    def points_view(self, buffer=None, layout="xy_velocity", count=0, size=0.0, intensity=0.0,
                    colormap="viridis", value_range=None, bounds=None, label=None, colorbar=False,
                    hidden=False, position=None, value=None, direction=None, panel=0):
        """Points from a buffer of float32 (x, y, vx, vy) (layout "xy_velocity") or (x, y, z, s)
        ("xyz_scalar") per point, or from arrays of their own (`position`, `value`, `direction`:
        see `_set_attributes`), read where they lie with no copy."""
        d = _capi.PointsViewDesc()
        d.buffer = _use_or_none(buffer)
        _set_attributes(d, position=position, value=value, direction=direction)
        d.layout = _choice(_capi.POINTS_LAYOUT, layout, "layout")
        d.count, d.size, d.intensity = count, size, intensity
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = _overlay_flags(colorbar, hidden)
        return self._add(_lib.estuary_add_points_view, d, panel)

    def markers_view(self, buffer=None, shape="arrow", count=0, size=0.0, line_width=0.0,
                     colormap="viridis", value_range=None, bounds=None, label=None,
                     three_d=False, outline=False, world_size=False, scale_by_length=False,
                     rgba=False, colorbar=False, hidden=False, position=None, value=None,
                     direction=None, marker_size=None, panel=0):
        """Markers from a buffer of float32 (x, y, z, value, dx, dy, dz, size) per marker: a shape
        turned along (dx, dy, dz), sized by `size` times the marker's own where it gives one. Or
        from arrays of their own, read where they lie: `position`, `value`, `direction` and
        `marker_size` (the size channel), see `_set_attributes`; `buffer` may then be None."""
        d = _capi.MarkersViewDesc()
        d.buffer = _use_or_none(buffer)
        _set_attributes(d, position=position, value=value, direction=direction,
                        size=marker_size)
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
        return self._add(_lib.estuary_add_markers_view, d, panel)

    def lines_view(self, vertices=None, indices=None, topology="segments", count=0, width=0.0,
                   colormap="viridis", value_range=None, bounds=None, label=None, three_d=False,
                   rgba=False, colorbar=False, hidden=False, position=None, value=None,
                   index=None, panel=0):
        """Lines between float32 (x, y, z, value) vertices: "segments" (pairs) or a "strip",
        directly or through a buffer of uint32 indices (0xFFFFFFFF restarts a strip). Or from
        arrays of their own (`position`, `value`, `index`: see `_set_attributes`)."""
        d = _capi.LinesViewDesc()
        d.vertices = _use_or_none(vertices)
        _set_attributes(d, position=position, value=value, index=index)
        d.indices = indices._use() if indices is not None else None
        d.topology = _choice(_capi.LINE_TOPOLOGY, topology, "topology")
        d.count, d.width = count, width
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = (_overlay_flags(colorbar, hidden) | (_capi.LINES_3D if three_d else 0) |
                   (_capi.LINES_RGBA if rgba else 0))
        return self._add(_lib.estuary_add_lines_view, d, panel)

    def glyph_view(self, image, shape="arrow", spacing=0, size=0.0, colormap="viridis",
                   value_range=None, label=None, outline=False, colorbar=False, hidden=False,
                   panel=0):
        """Vector glyphs of a 2D velocity image (channels 0 and 1), or of a 3D one (channels 0, 1
        and 2) under the orbit camera: one every `spacing` cells."""
        d = _capi.GlyphViewDesc()
        d.image = image._use()
        d.shape = _choice(_capi.MARKER_SHAPE, shape, "shape")
        d.spacing, d.size = spacing, size
        _set_colour(d, colormap, value_range)
        d.label = _text(label)
        d.flags = _overlay_flags(colorbar, hidden) | (_capi.MARKERS_OUTLINE if outline else 0)
        return self._add(_lib.estuary_add_glyph_view, d, panel)

    def mesh_view(self, vertices=None, indices=None, normals=None, shading="smooth", count=0,
                  wireframe=False, wire_width=0.0, wire_color=None, colormap="viridis",
                  value_range=None, bounds=None, label=None, rgba=False, colorbar=False,
                  hidden=False, position=None, value=None, normal=None, index=None, panel=0):
        """Lit triangles of float32 (x, y, z, value) vertices under the orbit camera: three
        consecutive vertices or three uint32 indices each; "smooth" shading reads `normals`
        (float32 (nx, ny, nz, unused) per vertex) or sums them from the triangles each frame."""
        d = _capi.MeshViewDesc()
        d.vertices = _use_or_none(vertices)
        _set_attributes(d, position=position, value=value, normal=normal, index=index)
        d.indices = indices._use() if indices is not None else None
        d.normals = normals._use() if normals is not None else None
        d.shading = _choice(_capi.MESH_SHADING, shading, "shading")
        d.count, d.wire_width = count, wire_width
        if wire_color is not None:
            d.wire_color[:] = [float(c) for c in wire_color]
        _set_colour(d, colormap, value_range)
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = (_overlay_flags(colorbar, hidden) |
                   (_capi.MESH_WIREFRAME if wireframe else 0) | (_capi.MESH_RGBA if rgba else 0))
        return self._add(_lib.estuary_add_mesh_view, d, panel)

    def text_view(self, text="", position=(0.0, 0.0), size=0.0, color=None, align="left",
                  valign="baseline", rotation=0.0, world=False, three_d=False, bounds=None,
                  label=None, hidden=False):
        """Text (str) anchored at `position`: pixels (x, y) from the picture's top-left, or with
        `world` a point in the view's coordinates (2D as buffer views place their elements; with
        `three_d` (x, y, z) under the orbit camera). `size`: em size in pixels (0: 14); `color`:
        sRGB-encoded RGBA 0..1 (None: white). view.set_text changes it between frames."""
        d = _capi.TextViewDesc()
        d.text = (text or "").encode("utf-8")
        for i, value in enumerate(position):
            d.position[i] = value
        d.size, d.rotation = size, rotation
        if color is not None:
            d.color[:] = [float(c) for c in color]
        d.align = _choice(_capi.TEXT_ALIGN, align, "align")
        d.valign = _choice(_capi.TEXT_VALIGN, valign, "valign")
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = ((_capi.VIEW_HIDDEN if hidden else 0) | (_capi.TEXT_WORLD if world else 0) |
                   (_capi.TEXT_3D if three_d else 0))
        return self._add(_lib.estuary_add_text_view, d)

    def labels_view(self, buffer=None, strings=(), count=0, size=0.0, color=None,
                    offset=(0.0, 0.0), align="left", valign="baseline", bounds=None, label=None,
                    three_d=False, hidden=False, position=None, index=None):
        """Labels from a buffer of 16-byte anchors, float32 (x, y, z) then a uint32 index into
        `strings` (written by your CUDA code each frame; an index past them draws nothing), or
        from arrays of their own (`position`, `index`: see `_set_attributes`)."""
        d = _capi.LabelsViewDesc()
        d.buffer = _use_or_none(buffer)
        _set_attributes(d, position=position, index=index)
        encoded = [str(s).encode("utf-8") for s in strings]
        table = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
        d.strings = ctypes.cast(table, ctypes.POINTER(ctypes.c_char_p))
        d.string_count = len(encoded)
        d.count, d.size = count, size
        if color is not None:
            d.color[:] = [float(c) for c in color]
        d.offset[:] = [float(o) for o in offset]
        d.align = _choice(_capi.TEXT_ALIGN, align, "align")
        d.valign = _choice(_capi.TEXT_VALIGN, valign, "valign")
        _set_bounds(d, bounds)
        d.label = _text(label)
        d.flags = (_capi.VIEW_HIDDEN if hidden else 0) | (_capi.LABELS_3D if three_d else 0)
        return self._add(_lib.estuary_add_labels_view, d)

    def record_start(self, path, fps=0, quality=0, encoder=None):
        """Records every picture drawn from now on into `path` (.mp4 or .mkv) until record_stop."""
        d = _capi.RecordDesc()
        d.path = _text(os.fspath(path))
        d.fps, d.quality, d.encoder = fps, quality, _text(encoder)
        _check(_lib.estuary_record_start(self._use(), ctypes.byref(d)))

    def serve(self, port=0, address="127.0.0.1", allow_remote=False, token=None, codec="auto",
              max_clients=0, jpeg_quality=0):
        """Serves the live picture to browsers at http://address:port/ (port 0: a free one) until
        serve_stop or close; returns serve_info() (its "url" has the token where one is needed).
        Frames reach the pages only while frames are drawn: keep the loop running (a thread of
        its own in a notebook). Between frames."""
        return _serve.start(self._use(), address, port, allow_remote, token, codec, max_clients,
                            jpeg_quality)

    def serve_stop(self):
        """Closes the pages' connections (1001) and stops the server, within about a second."""
        _serve.stop(self._use())

    def serve_info(self):
        """The server's url, port, encoder, clients and counts (estuary_serve_info)."""
        return _serve.info(self._use())

    def show_notebook(self, width=800, height=600, **serve_options):
        """The served page in a Jupyter cell (an IFrame), serving first if not yet serving. The
        browser running the notebook must reach the server's address (an ssh forward of the
        port where the kernel is remote: see examples/notebook/serve.ipynb)."""
        info = self.serve_info()
        if not info["running"]:
            info = self.serve(**serve_options)
        return _serve.notebook_frame(info["url"], width, height)

    def record_stop(self):
        """Finishes the recording; returns {"frames", "copy_ms_mean", "stall_ms_total",
        "encoder"}."""
        info = _capi.RecordInfo()
        _check(_lib.estuary_record_stop(self._use(), ctypes.byref(info)))
        return {"frames": info.frames, "copy_ms_mean": info.copy_ms_mean,
                "stall_ms_total": info.stall_ms_total,
                "encoder": (info.encoder or b"").decode("utf-8", "replace")}

    def _add(self, function, desc, panel=0):
        handle = ctypes.c_void_p()
        _check(function(self._use(), ctypes.byref(desc), ctypes.byref(handle)))
        view = View(self, handle.value, function.__name__[len("estuary_add_"):-len("_view")])
        if panel:  # drawn in that panel of the layout (set_layout)
            try:
                view.update(panel=panel)
            except Exception:
                view.destroy()
                raise
        return view

    # -- frames

    def frame(self, stream=None, defer_wait=False):
        """Begins the next frame: `with viewer.frame(stream=torch.cuda.current_stream()) as f:`.
        The slot's wait goes on `stream` before your work (GPU-side), the signal after it when the
        block ends; the host waits only for the frames-in-flight limit. A stream object's handle
        is read when it is given, and kept while the same object is given frame after frame."""
        return Frame(self, stream, defer_wait)

    def display(self, callback, frames=0, stream=None):
        """Runs frames until the window closes, `frames` are done (0: no limit) or `callback(frame)`
        returns True. ESTUARY_FRAMES and ESTUARY_SCREENSHOT apply, as for every estuary program.
        `stream`: your work's stream (torch.cuda.current_stream(), a CuPy stream), which every
        frame's wait and signal then go on; None: the viewer's own. An exception of the callback
        ends its frame, stops the loop and is raised here; so is Ctrl-C (KeyboardInterrupt),
        whether it comes during the callback or between frames."""
        frames = _capi.fit(frames, ctypes.c_uint64, "display frames")
        with _Interrupts() as interrupts:
            if stream is not None:
                self._display_on(callback, frames, stream, interrupts)
            else:
                self._display_in_c(callback, frames, interrupts)

    def _display_in_c(self, callback, frames, interrupts):
        raised = []

        def call(handle, _user):
            # Nothing may leave a ctypes callback (ctypes would print it and go on), and Ctrl-C
            # raises only while the user's callback runs (elsewhere it waits in `interrupts`).
            frame = None
            try:
                frame = Frame._begun(self, handle)
                if interrupts.pending:
                    return 1
                interrupts.inside = True
                try:
                    stop = bool(callback(frame))
                finally:
                    interrupts.inside = False
                return 1 if stop or interrupts.pending else 0
            except BaseException as error:  # carried out of C, raised below
                raised.append(error)
                return 1
            finally:
                if frame is not None:  # estuary_display ends it when this returns
                    frame._ended()

        trampoline = _capi.FRAME_FN(call)
        status = _lib.estuary_display(self._use(), trampoline, None, frames)
        if raised:
            raise raised[0]
        interrupts.raise_pending()
        _check(status)

    def _display_on(self, callback, frames, stream, interrupts):
        # estuary_display's loop on a stream of the caller's, with its environment variables.
        text = os.environ.get("ESTUARY_FRAMES", "") or "0"
        if not text.isdigit():
            raise InvalidArgument(f"ESTUARY_FRAMES={text}: a count of frames (digits only)",
                                  _capi.ERROR_INVALID_ARGUMENT)
        cap = int(text)
        limit = min(n for n in (frames, cap) if n) if (frames or cap) else 0
        count = 0
        while not interrupts.pending and not self.should_close() and (not limit or count < limit):
            with self.frame(stream=stream) as frame:
                interrupts.inside = True
                try:
                    stop = bool(callback(frame))
                finally:
                    interrupts.inside = False
            count += 1
            if stop:
                break
        self.finish()
        interrupts.raise_pending()
        shot = os.environ.get("ESTUARY_SCREENSHOT")
        if shot:
            self.screenshot(shot)

    def wait_frame(self, index):
        """Waits until frame `index` and every frame before it are drawn: their reads and picks
        are filled then."""
        index = _capi.fit(index, ctypes.c_uint64, "frame index")
        _check(_lib.estuary_wait_frame(self._use(), index))
        results = self._pending_results
        while results and results[0][0] <= index:
            results.popleft()

    def finish(self):
        """Waits for every frame ended so far (their reads and picks are filled then)."""
        _check(_lib.estuary_finish(self._use()))
        self._pending_results.clear()

    # -- pictures and numbers

    def screenshot(self, path):
        """The last frame's picture as a PNG, written atomically."""
        _check(_lib.estuary_screenshot(self._use(), _text(os.fspath(path))))

    def pixels(self):
        """The last frame's picture as an (height, width, 4) uint8 array, top row first."""
        info = _capi.ViewerInfo()
        _check(_lib.estuary_get_viewer_info(self._use(), ctypes.byref(info)))
        out = np.empty((info.height, info.width, 4), dtype=np.uint8)
        _check(_lib.estuary_read_pixels(self._use(), out.ctypes.data, out.nbytes))
        return out

    def stats(self):
        """The drawn frames' times not read yet, oldest first, as dicts."""
        out, s = [], _capi.FrameStats()
        names = _STATS_NAMES
        handle, stats = self._use(), ctypes.byref(s)
        while True:
            status = _lib.estuary_next_frame_stats(handle, stats)
            if status == _capi.NOT_READY:
                return out
            _check(status)
            out.append({n: getattr(s, n) for n in names})

    def metrics(self):
        m = _capi.Metrics()
        _check(_lib.estuary_get_metrics(self._use(), ctypes.byref(m)))
        return _as_dict(m)

    @property
    def camera(self):
        c = _capi.Camera()
        _check(_lib.estuary_get_camera(self._use(), ctypes.byref(c)))
        return _as_dict(c)

    @camera.setter
    def camera(self, values):
        c = _capi.Camera()
        _check(_lib.estuary_get_camera(self._use(), ctypes.byref(c)))
        names = _as_dict(c)
        for name, value in values.items():
            if name not in names:
                raise InvalidArgument(f"camera has no {name!r}: {', '.join(names)}",
                                      _capi.ERROR_INVALID_ARGUMENT)
            setattr(c, name, value)
        _check(_lib.estuary_set_camera(self._use(), ctypes.byref(c)))

    # -- panels

    def set_layout(self, rows=1, columns=1, row_heights=None, column_widths=None, gap=0.0):
        """The picture as rows by columns of panels (numbered row by row: row * columns +
        column), `gap` pixels apart, sized by relative `row_heights` and `column_widths` (None:
        equal). Views go in a panel with `panel=` (or view.update(panel=...)); each panel has its
        own camera (panel_camera) unless linked (set_panel)."""
        heights = None if row_heights is None else (ctypes.c_float * len(row_heights))(*row_heights)
        widths = None if column_widths is None else \
            (ctypes.c_float * len(column_widths))(*column_widths)
        for name, sizes, count in (("row_heights", heights, rows),
                                   ("column_widths", widths, columns)):
            if sizes is not None and len(sizes) != max(count, 1):
                raise InvalidArgument(f"{name} has {len(sizes)} sizes for {max(count, 1)} "
                                      f"{'rows' if name == 'row_heights' else 'columns'}",
                                      _capi.ERROR_INVALID_ARGUMENT)
        d = _capi.LayoutDesc(rows=rows, columns=columns, gap_pixels=float(gap))
        if heights is not None:
            d.row_heights = ctypes.cast(heights, ctypes.POINTER(ctypes.c_float))
        if widths is not None:
            d.column_widths = ctypes.cast(widths, ctypes.POINTER(ctypes.c_float))
        _check(_lib.estuary_set_layout(self._use(), ctypes.byref(d)))

    def set_panel(self, panel, title=None, camera_link=0, axes=False, grid=False, log_x=False,
                  log_y=False, scale_bar=False, axis_titles=None, scale_bar_unit=None,
                  time_x=False, time_origin=0.0):
        """A panel's settings: its title, its camera link (panels with the same non-zero link
        share a camera), axes (2D, or box axes and a gizmo in 3D) with optional grid lines and
        log scales, a scale bar, axis titles with units ("x [mm]", up to three) and the scale
        bar's unit. time_x: x is time, in seconds after time_origin (seconds since the Unix
        epoch, or a datetime: naive ones are taken as UTC), ticked on the calendar."""
        flags = ((_capi.PANEL_AXES if axes else 0) | (_capi.PANEL_GRID if grid else 0) |
                 (_capi.PANEL_LOG_X if log_x else 0) | (_capi.PANEL_LOG_Y if log_y else 0) |
                 (_capi.PANEL_SCALE_BAR if scale_bar else 0) |
                 (_capi.PANEL_TIME_X if time_x else 0))
        if isinstance(time_origin, datetime.datetime):
            if time_origin.tzinfo is None:
                time_origin = time_origin.replace(tzinfo=datetime.timezone.utc)
            time_origin = time_origin.timestamp()
        d = _capi.PanelDesc(camera_link=camera_link, flags=flags, time_origin=float(time_origin))
        d.title = _text(title)
        titles = list(axis_titles or [])
        if len(titles) > 3:
            raise InvalidArgument(f"axis_titles has {len(titles)} titles: at most 3 (x, y, z)",
                                  _capi.ERROR_INVALID_ARGUMENT)
        for i, t in enumerate(titles):
            d.axis_titles[i] = _text(t)
        d.scale_bar_unit = _text(scale_bar_unit)
        _check(_lib.estuary_set_panel(self._use(), int(panel), ctypes.byref(d)))

    def panel_camera(self, panel):
        """The camera of `panel` as a dict (viewer.camera is panel 0's)."""
        c = _capi.Camera()
        _check(_lib.estuary_get_panel_camera(self._use(), int(panel), ctypes.byref(c)))
        return _as_dict(c)

    def set_panel_camera(self, panel, **values):
        """Changes some of a panel's camera values (zoom, pan_x, pan_y, yaw_degrees,
        pitch_degrees); panels linked to it follow."""
        c = _capi.Camera()
        _check(_lib.estuary_get_panel_camera(self._use(), int(panel), ctypes.byref(c)))
        names = _as_dict(c)
        for name, value in values.items():
            if name not in names:
                raise InvalidArgument(f"camera has no {name!r}: {', '.join(names)}",
                                      _capi.ERROR_INVALID_ARGUMENT)
            setattr(c, name, value)
        _check(_lib.estuary_set_panel_camera(self._use(), int(panel), ctypes.byref(c)))

    def panel_at(self, x, y):
        """The panel at framebuffer pixel (x, y), or None in a gap or outside the picture."""
        panel = ctypes.c_uint32()
        _check(_lib.estuary_panel_at(self._use(), float(x), float(y), ctypes.byref(panel)))
        return None if panel.value == _capi.PANEL_NONE else panel.value

    def create_colormap(self, stops=None, samples=None, name=None, categorical=False,
                        linear=False):
        """A colormap of yours, usable wherever a colormap is taken (its int value). From stops,
        [(position 0..1, (r, g, b, a)), ...] with increasing positions, or from samples, an
        (n, 4) array of uint8 (0..255) or float (0..1) RGBA; colours are sRGB-encoded values,
        interpolated in those values (linear=True: in linear light). categorical=True: a palette
        that draws integer value v as entry v mod n. Used from the next frame on."""
        d = _capi.ColormapDesc()
        d.name = _text(name)
        d.flags = (_capi.COLORMAP_CATEGORICAL if categorical else 0) | \
            (_capi.COLORMAP_LINEAR_BLEND if linear else 0)
        keep = None
        if stops is not None:
            stops = list(stops)
            keep = (_capi.ColormapStop * max(len(stops), 1))()
            for i, (position, rgba) in enumerate(stops):
                rgba = tuple(rgba)
                if len(rgba) not in (3, 4):
                    raise InvalidArgument(f"stop {i}: a colour is (r, g, b) or (r, g, b, a), "
                                          f"got {rgba!r}", _capi.ERROR_INVALID_ARGUMENT)
                keep[i].position = position
                keep[i].rgba[:] = [float(c) for c in rgba] + ([1.0] if len(rgba) == 3 else [])
            d.stops = keep if stops else None
            d.stop_count = len(stops)
        if samples is not None:
            array = np.asarray(samples)
            if array.ndim != 2 or array.shape[1] != 4:
                raise InvalidArgument(f"samples must be an (n, 4) RGBA array, got shape "
                                      f"{array.shape}", _capi.ERROR_INVALID_ARGUMENT)
            if array.dtype == np.uint8:
                keep = np.ascontiguousarray(array)
                d.sample_format = _capi.COLORMAP_SAMPLES["rgba8"]
            else:
                keep = np.ascontiguousarray(array, dtype=np.float32)
                d.sample_format = _capi.COLORMAP_SAMPLES["rgba32f"]
            d.samples = keep.ctypes.data_as(ctypes.c_void_p) if len(keep) else None
            d.sample_count = len(keep)
        made = ctypes.c_int(0)
        _check(_lib.estuary_create_colormap(self._use(), ctypes.byref(d), ctypes.byref(made)))
        return made.value

    def set_background(self, red, green, blue):
        _check(_lib.estuary_set_background(self._use(), red, green, blue))

    def should_close(self):
        return bool(_lib.estuary_should_close(self._use()))

    def request_close(self):
        _check(_lib.estuary_request_close(self._use()))

    def validation_messages(self):
        return _lib.estuary_validation_messages(self._use())


_STATS_NAMES = tuple(n for n in _field_names(_capi.FrameStats) if not n.startswith("raw_"))


def _view_flags(colorbar, hidden):
    return (0 if colorbar else _capi.VIEW_NO_COLORBAR) | (_capi.VIEW_HIDDEN if hidden else 0)


def _overlay_flags(colorbar, hidden):
    """Points, markers, lines and glyphs: their colorbar is asked for, not on by default."""
    return (_capi.POINTS_COLORBAR if colorbar else 0) | (_capi.VIEW_HIDDEN if hidden else 0)


def _use_or_none(buffer):
    return buffer._use() if buffer is not None else None


# The attribute format of a buffer's array: its dtype, and its last axis the components.
_DTYPE_FORMATS = {("float32", 1): "f32", ("float32", 2): "f32x2", ("float32", 3): "f32x3",
                  ("float32", 4): "f32x4", ("float16", 1): "f16", ("float16", 2): "f16x2",
                  ("float16", 3): "f16x3", ("float16", 4): "f16x4", ("uint8", 4): "unorm8x4",
                  ("int32", 1): "i32", ("uint32", 1): "u32"}


def _set_attributes(desc, **channels):
    """Each channel given (keyword: position, value, size, direction, normal, index) is read
    where it lies, with no copy: an estuary Buffer, its format taken from its array (float32 or
    float16 of shape (n,) or (n, 2..4), uint32 or int32 (n,), uint8 (n, 4) a colour), or a tuple
    (buffer, offset, stride, format): bytes to element 0, bytes between elements (0: packed), a
    format name ("f32", "f32x2".."f32x4", "f16".."f16x4", "unorm8x4", "i32", "u32"; None: from
    the array). A tuple's buffer may be None: the view's main buffer."""
    for name, given in channels.items():
        if given is None:
            continue
        parts = tuple(given) if isinstance(given, (tuple, list)) else (given,)
        if not 1 <= len(parts) <= 4:
            raise InvalidArgument(f"{name}: a Buffer or (buffer, offset, stride, format), not "
                                  f"{given!r}", _capi.ERROR_INVALID_ARGUMENT)
        buffer, offset, stride, format = (parts + (0, 0, None)[len(parts) - 1:])[:4]
        if format is None:
            if buffer is None:
                raise InvalidArgument(f"{name}: name a format for the main buffer's channel",
                                      _capi.ERROR_INVALID_ARGUMENT)
            components = buffer.shape[-1] if len(buffer.shape) > 1 else 1
            format = _DTYPE_FORMATS.get((buffer.dtype.name, components))
            if format is None:
                raise InvalidArgument(
                    f"{name}: a buffer of {buffer.dtype} {buffer.shape} has no attribute format "
                    f"(float32 or float16 (n,) or (n, 2..4), uint32 or int32 (n,), uint8 (n, 4));"
                    f" give (buffer, offset, stride, format)", _capi.ERROR_INVALID_ARGUMENT)
        a = desc.attributes[_capi.CHANNEL[name]]
        a.buffer = _use_or_none(buffer)
        a.offset, a.stride = offset, stride
        a.format = _choice(_capi.ATTRIBUTE_FORMAT, format, f"{name} format")


def _set_colour(desc, colormap, value_range):
    desc.colormap = _colormap(colormap)
    if value_range is not None:
        desc.value_min, desc.value_max = value_range


__all__ = ["Viewer", "Image", "Buffer", "View", "Frame", "DeviceArray", "Pick", "EstuaryError",
           "InvalidArgument", "Unsupported", "RuntimeFailure", "OutOfMemoryError",
           "DeviceLostError", "GpuTimeoutError", "InvalidHandleError", "NotReady",
           "library_path"]
