"""The C API of libestuary (include/estuary/estuary.h) as ctypes declarations.

The structures mirror the header field for field; a test compiles the header and compares
their sizes and offsets (python/tests/test_abi.py), so a change on one side cannot go unseen.
"""

import ctypes
import operator
import os
import pathlib
from ctypes import (POINTER, c_char_p, c_double, c_float, c_int, c_int32, c_uint32, c_uint64,
                    c_void_p)

from . import _errors
from ._errors import InvalidArgument

API_VERSION = (0 << 22) | (3 << 12) | 5  # ESTUARY_MAKE_VERSION(0, 3, 5)

# estuary_status: the errors' numbers live beside their exceptions (_errors.py).
OK, NOT_READY = 0, _errors.NOT_READY
ERROR_RUNTIME, ERROR_INVALID_ARGUMENT = _errors.RUNTIME, _errors.INVALID_ARGUMENT
ERROR_UNSUPPORTED, ERROR_OUT_OF_MEMORY = _errors.UNSUPPORTED, _errors.OUT_OF_MEMORY
ERROR_DEVICE_LOST, ERROR_TIMEOUT = _errors.DEVICE_LOST, _errors.TIMEOUT
ERROR_INVALID_HANDLE = _errors.INVALID_HANDLE

# Enumerations, by the names the Python layer accepts.
DISPLAY = {"auto": 0, "window": 1, "headless": 2}
CUDA_MODE = {"auto": 0, "required": 1, "device": 2, "off": 3}
PRESENT = {"fifo": 0, "mailbox": 1, "immediate": 2}
FORMAT = {"r32f": 0, "rg32f": 1, "rgba32f": 2, "rgba16f": 3, "rgba8": 4}
IMAGE_KIND = {"2d": 0, "3d": 1, "2d_array": 2, "cube": 3, "1d": 4}
WRITER = {"auto": 0, "cuda": 1, "host": 2}
COLORMAP = {"viridis": 0, "magma": 1, "cividis": 2, "inferno": 3, "plasma": 4, "turbo": 5,
            "twilight": 6, "coolwarm": 7, "tab10": 8, "okabe_ito": 9}
COLORMAP_USER_FIRST = 10
COLORMAP_CATEGORICAL, COLORMAP_LINEAR_BLEND = 0x1, 0x2
COLORMAP_SAMPLES = {"rgba8": 0, "rgba32f": 1}
SHADING = {"scalar": 0, "magnitude": 1, "rgb": 2}
VOLUME_STYLE = {"march": 0, "slice": 1}
POINTS_LAYOUT = {"xy_velocity": 0, "xyz_scalar": 1}
MARKER_SHAPE = {"disc": 0, "square": 1, "triangle": 2, "diamond": 3, "cross": 4, "ring": 5,
                "arrow": 6}
LINE_TOPOLOGY = {"segments": 0, "strip": 1}
MESH_SHADING = {"smooth": 0, "flat": 1}
TEXT_ALIGN = {"left": 0, "center": 1, "right": 2}
TEXT_VALIGN = {"baseline": 0, "top": 1, "middle": 2, "bottom": 3}

VIEWER_VALIDATION, VIEWER_NO_UI, VIEWER_NO_PANELS, VIEWER_NO_HOTKEYS = 0x1, 0x2, 0x4, 0x8
VIEWER_NO_PIPELINE_CACHE = 0x10
ALLOC_SINGLE, IMAGE_GENERATE_MIPS = 0x1, 0x2
VIEW_HIDDEN, VIEW_NO_COLORBAR, POINTS_COLORBAR = 0x1, 0x2, 0x4
MARKERS_3D, MARKERS_OUTLINE, MARKERS_WORLD_SIZE = 0x10, 0x20, 0x40
MARKERS_SCALE_BY_LENGTH, MARKERS_RGBA = 0x80, 0x100
LINES_3D, LINES_RGBA = 0x10, 0x100
MESH_WIREFRAME, MESH_RGBA = 0x20, 0x100
TEXT_WORLD, TEXT_3D, LABELS_3D = 0x10, 0x20, 0x10
FRAME_DEFER_WAIT = 0x1
READ_AFTER_DRAW = 0x1
PANEL_NONE = 0xFFFFFFFF  # estuary_panel_at, estuary_pick.panel: a gap between panels
PANEL_AXES, PANEL_GRID, PANEL_LOG_X, PANEL_LOG_Y, PANEL_SCALE_BAR = 0x1, 0x2, 0x4, 0x8, 0x10
PANEL_TIME_X = 0x20
FAULT = {"device_lost": 0, "vulkan_stall": 1, "alloc_fail": 2, "cuda_stall": 3}

LOG_FN = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_char_p)
FRAME_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_void_p)

# The ranges of the C integer types, for refusing (not wrapping) what does not fit.
# (ctypes' c_int32 is c_int where int has 32 bits, as on every platform estuary builds for.)
RANGES = {c_int: (-2**31, 2**31 - 1), c_int32: (-2**31, 2**31 - 1), c_uint32: (0, 2**32 - 1),
          c_uint64: (0, 2**64 - 1)}
_TYPE_NAMES = {c_int: "int", c_int32: "int32_t", c_uint32: "uint32_t", c_uint64: "uint64_t"}


def fit(value, ctype, what):
    """`value` as an int of C type `ctype`, or InvalidArgument (a ValueError) naming `what`, the
    value and the range: ctypes would wrap 2**32 + 16 to 16, and -1 to 4294967295, silently."""
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidArgument(f"{what} {value!r}: an integer is needed") from None
    low, high = RANGES[ctype]
    if not low <= number <= high:
        raise InvalidArgument(f"{what} {number} does not fit the C API's {_TYPE_NAMES[ctype]}: "
                              f"{low} to {high}")
    return number


class Struct(ctypes.Structure):
    """A C struct of estuary.h. Integer fields refuse values outside their C type's range
    (InvalidArgument naming the struct, the field and the range) instead of wrapping silently."""

    def __setattr__(self, name, value):
        ctype = self._integer_fields().get(name)
        if ctype is not None:
            value = fit(value, ctype, f"{self._c_name}.{name}")
        super().__setattr__(name, value)

    @classmethod
    def _integer_fields(cls):
        fields = cls.__dict__.get("_integers")
        if fields is None:
            fields = {n: t for n, t in cls._fields_ if t in RANGES}
            cls._integers = fields
        return fields


class Sized(Struct):
    """A struct that starts with `uint32_t struct_size` (ESTUARY_STRUCT_SIZE): set to its size
    whenever Python makes one, as C++'s default member initializer does. (Arrays of them made by
    ctypes, `(FrameStats * n)()`, do not run __init__: set each element's struct_size.)"""

    def __init__(self, *args, **fields):
        super().__init__(*args, **fields)
        ctypes.Structure.__setattr__(self, "struct_size", ctypes.sizeof(self))


def _sized(*fields):
    return [("struct_size", c_uint32)] + list(fields)


class ViewerDesc(Sized):
    _c_name = "estuary_viewer_desc"
    _fields_ = _sized(("api_version", c_uint32), ("display", c_int), ("width", c_uint32),
                      ("height", c_uint32), ("title", c_char_p), ("frames_in_flight", c_uint32),
                      ("present_mode", c_int), ("cuda", c_int), ("cuda_device", c_int32),
                      ("draw_path", c_int), ("consumer", c_int), ("gl_handoff", c_int),
                      ("flags", c_uint32), ("data_dir", c_char_p), ("screenshot_dir", c_char_p),
                      ("log", LOG_FN), ("log_user", c_void_p), ("handoff_batch", c_uint32))


class ViewerInfo(Sized):
    _c_name = "estuary_viewer_info"
    _fields_ = _sized(("has_cuda", c_int), ("cuda_device", c_int32), ("headless", c_int),
                      ("frames_in_flight", c_uint32), ("width", c_uint32), ("height", c_uint32),
                      ("draw_path", c_int), ("consumer", c_int), ("gl_handoff", c_int),
                      ("device_name", c_char_p), ("device_uuid", c_char_p),
                      ("device_type", c_char_p), ("cuda_choice", c_char_p),
                      ("vulkan_version", c_char_p), ("driver_version", c_char_p),
                      ("data_dir", c_char_p), ("gl_debug_messages", c_uint32))


class ImageDesc(Sized):
    _c_name = "estuary_image_desc"
    _fields_ = _sized(("format", c_int), ("kind", c_int), ("width", c_uint32),
                      ("height", c_uint32), ("depth", c_uint32), ("layers", c_uint32),
                      ("levels", c_uint32), ("writer", c_int), ("flags", c_uint32),
                      ("name", c_char_p), ("origin", c_float * 3), ("spacing", c_float * 3))


class BufferDesc(Sized):
    _c_name = "estuary_buffer_desc"
    _fields_ = _sized(("size", c_uint64), ("writer", c_int), ("flags", c_uint32),
                      ("name", c_char_p))


class ImageInfo(Sized):
    _c_name = "estuary_image_info"
    _fields_ = _sized(("format", c_int), ("kind", c_int), ("width", c_uint32),
                      ("height", c_uint32), ("depth", c_uint32), ("layers", c_uint32),
                      ("levels", c_uint32), ("copies", c_uint32), ("writer", c_int),
                      ("texel_bytes", c_uint32), ("origin", c_float * 3),
                      ("spacing", c_float * 3))


class BufferInfo(Sized):
    _c_name = "estuary_buffer_info"
    _fields_ = _sized(("size", c_uint64), ("copies", c_uint32), ("writer", c_int))


class FieldViewDesc(Sized):
    _c_name = "estuary_field_view_desc"
    _fields_ = _sized(("image", c_void_p), ("shading", c_int), ("colormap", c_int),
                      ("value_min", c_float), ("value_max", c_float), ("label", c_char_p),
                      ("flags", c_uint32), ("shader", c_char_p))


class VolumeViewDesc(Sized):
    _c_name = "estuary_volume_view_desc"
    _fields_ = _sized(("image", c_void_p), ("style", c_int), ("colormap", c_int),
                      ("value_min", c_float), ("value_max", c_float), ("opacity", c_float),
                      ("label", c_char_p), ("flags", c_uint32))


ATTRIBUTE_FORMAT = {"f32": 1, "f32x2": 2, "f32x3": 3, "f32x4": 4, "f16": 5, "f16x2": 6,
                    "f16x3": 7, "f16x4": 8, "unorm8x4": 9, "i32": 10, "u32": 11}
CHANNEL = {"position": 0, "value": 1, "size": 2, "direction": 3, "normal": 4, "index": 5}
CHANNEL_COUNT = 8


class Attribute(Struct):
    _c_name = "estuary_attribute"
    _fields_ = [("buffer", c_void_p), ("offset", c_uint64), ("stride", c_uint32),
                ("format", c_int)]


class PointsViewDesc(Sized):
    _c_name = "estuary_points_view_desc"
    _fields_ = _sized(("buffer", c_void_p), ("layout", c_int), ("count", c_uint32),
                      ("size", c_float), ("intensity", c_float), ("colormap", c_int),
                      ("value_min", c_float), ("value_max", c_float), ("bounds", c_float * 6),
                      ("label", c_char_p), ("flags", c_uint32),
                      ("attributes", Attribute * CHANNEL_COUNT))


class MarkersViewDesc(Sized):
    _c_name = "estuary_markers_view_desc"
    _fields_ = _sized(("buffer", c_void_p), ("shape", c_int), ("count", c_uint32),
                      ("size", c_float), ("line_width", c_float), ("colormap", c_int),
                      ("value_min", c_float), ("value_max", c_float), ("bounds", c_float * 6),
                      ("label", c_char_p), ("flags", c_uint32),
                      ("attributes", Attribute * CHANNEL_COUNT))


class LinesViewDesc(Sized):
    _c_name = "estuary_lines_view_desc"
    _fields_ = _sized(("vertices", c_void_p), ("indices", c_void_p), ("topology", c_int),
                      ("count", c_uint32), ("width", c_float), ("colormap", c_int),
                      ("value_min", c_float), ("value_max", c_float), ("bounds", c_float * 6),
                      ("label", c_char_p), ("flags", c_uint32),
                      ("attributes", Attribute * CHANNEL_COUNT))


class GlyphViewDesc(Sized):
    _c_name = "estuary_glyph_view_desc"
    _fields_ = _sized(("image", c_void_p), ("shape", c_int), ("spacing", c_uint32),
                      ("size", c_float), ("colormap", c_int), ("value_min", c_float),
                      ("value_max", c_float), ("label", c_char_p), ("flags", c_uint32))


class MeshViewDesc(Sized):
    _c_name = "estuary_mesh_view_desc"
    _fields_ = _sized(("vertices", c_void_p), ("indices", c_void_p), ("normals", c_void_p),
                      ("shading", c_int), ("count", c_uint32), ("wire_width", c_float),
                      ("wire_color", c_float * 4), ("colormap", c_int), ("value_min", c_float),
                      ("value_max", c_float), ("bounds", c_float * 6), ("label", c_char_p),
                      ("flags", c_uint32), ("attributes", Attribute * CHANNEL_COUNT))


class TextViewDesc(Sized):
    _c_name = "estuary_text_view_desc"
    _fields_ = _sized(("text", c_char_p), ("position", c_float * 3), ("size", c_float),
                      ("color", c_float * 4), ("align", c_int), ("valign", c_int),
                      ("rotation", c_float), ("bounds", c_float * 6), ("label", c_char_p),
                      ("flags", c_uint32))


class LabelsViewDesc(Sized):
    _c_name = "estuary_labels_view_desc"
    _fields_ = _sized(("buffer", c_void_p), ("strings", POINTER(c_char_p)),
                      ("string_count", c_uint32), ("count", c_uint32), ("size", c_float),
                      ("color", c_float * 4), ("offset", c_float * 2), ("align", c_int),
                      ("valign", c_int), ("bounds", c_float * 6), ("label", c_char_p),
                      ("flags", c_uint32), ("attributes", Attribute * CHANNEL_COUNT))


class ViewParams(Sized):
    _c_name = "estuary_view_params"
    _fields_ = _sized(("visible", c_int), ("colormap", c_int), ("value_min", c_float),
                      ("value_max", c_float), ("mip_bias", c_float), ("opacity", c_float),
                      ("style", c_int), ("slice_axis", c_uint32), ("slice_position", c_float),
                      ("point_count", c_uint32), ("point_size", c_float),
                      ("point_intensity", c_float), ("panel", c_uint32))


class Camera(Sized):
    _c_name = "estuary_camera"
    _fields_ = _sized(("zoom", c_float), ("pan_x", c_float), ("pan_y", c_float),
                      ("yaw_degrees", c_float), ("pitch_degrees", c_float))


class LayoutDesc(Sized):
    _c_name = "estuary_layout_desc"
    _fields_ = _sized(("rows", c_uint32), ("columns", c_uint32),
                      ("row_heights", POINTER(c_float)), ("column_widths", POINTER(c_float)),
                      ("gap_pixels", c_float))


class PanelDesc(Sized):
    _c_name = "estuary_panel_desc"
    _fields_ = _sized(("title", c_char_p), ("camera_link", c_uint32), ("flags", c_uint32),
                      ("axis_titles", c_char_p * 3), ("scale_bar_unit", c_char_p),
                      ("time_origin", c_double))


class RecordDesc(Sized):
    _c_name = "estuary_record_desc"
    _fields_ = _sized(("path", c_char_p), ("fps", c_uint32), ("quality", c_uint32),
                      ("encoder", c_char_p))


class RecordInfo(Sized):
    _c_name = "estuary_record_info"
    _fields_ = _sized(("frames", c_uint64), ("copy_ms_mean", c_double),
                      ("stall_ms_total", c_double), ("encoder", c_char_p))


SERVE_CODEC = {"auto": 0, "h264": 1, "jpeg": 2}


class ServeDesc(Sized):
    _c_name = "estuary_serve_desc"
    _fields_ = _sized(("address", c_char_p), ("port", c_uint32), ("allow_remote", c_int),
                      ("token", c_char_p), ("codec", c_int), ("max_clients", c_uint32),
                      ("jpeg_quality", c_uint32))


class ServeInfo(Sized):
    _c_name = "estuary_serve_info"
    _fields_ = _sized(("running", c_int), ("port", c_uint32), ("url", c_char_p),
                      ("encoder", c_char_p), ("clients", c_uint32),
                      ("frames_encoded", c_uint64), ("frames_sent", c_uint64),
                      ("frames_dropped", c_uint64), ("sends_dropped", c_uint64),
                      ("requests_refused", c_uint64), ("encode_ms_mean", c_double),
                      ("encode_ms_last", c_double), ("latency_ms_last", c_double))


class SlabsDesc(Sized):
    _c_name = "estuary_slabs_desc"
    _fields_ = _sized(("format", c_int), ("width", c_uint32), ("height", c_uint32),
                      ("depth", c_uint32), ("halo", c_uint32), ("devices", c_uint32),
                      ("slabs", c_uint32), ("boundary", c_int), ("writer", c_int),
                      ("name", c_char_p))


class SlabsInfo(Sized):
    _c_name = "estuary_slabs_info"
    _fields_ = _sized(("slabs", c_uint32), ("devices", c_uint32), ("halo", c_uint32),
                      ("writer", c_int), ("texel_bytes", c_uint32))


class Slab(Sized):
    _c_name = "estuary_slab"
    _fields_ = _sized(("cuda_device", c_int32), ("data", c_void_p), ("stream", c_void_p),
                      ("first", c_uint32), ("count", c_uint32), ("halo", c_uint32),
                      ("width", c_uint32), ("height", c_uint32), ("depth", c_uint32),
                      ("pitch", c_uint64), ("plane_pitch", c_uint64))


class FrameDesc(Sized):
    _c_name = "estuary_frame_desc"
    _fields_ = _sized(("stream", c_void_p), ("flags", c_uint32), ("replay_key", c_uint64))
    # Set every frame, from constants: the range check (~1 us a field) is left out.
    __setattr__ = ctypes.Structure.__setattr__


class Pick(Sized):
    _c_name = "estuary_pick"
    _fields_ = _sized(("hit", c_int32), ("element", c_uint32), ("vertex", c_uint32),
                      ("distance", c_float), ("value", c_float), ("position", c_float * 3),
                      ("panel", c_uint32))
    __setattr__ = ctypes.Structure.__setattr__  # written by estuary, not by Python


class Input(Sized):
    _c_name = "estuary_input"
    _fields_ = _sized(("cursor_x", c_float), ("cursor_y", c_float), ("over_field", c_int),
                      ("field_x", c_float), ("field_y", c_float), ("buttons", c_uint32),
                      ("pressed", c_uint32), ("mods", c_uint32), ("scroll", c_float),
                      ("ui_wants_mouse", c_int), ("ui_wants_keyboard", c_int),
                      ("key_count", c_uint32), ("keys", POINTER(c_int32)), ("width", c_uint32),
                      ("height", c_uint32))


class Event(Sized):
    _c_name = "estuary_event"
    _fields_ = _sized(("kind", c_int), ("code", c_int32), ("action", c_int32),
                      ("mods", c_uint32), ("x", c_double), ("y", c_double))


class FrameStats(Sized):
    _c_name = "estuary_frame_stats"
    _fields_ = _sized(("frame", c_uint64), ("interval_ms", c_double), ("host_busy_us", c_double),
                      ("cuda_ms", c_double), ("cuda_wait_ms", c_double), ("draw_ms", c_double),
                      ("wait_ms", c_double), ("gpu_interval_ms", c_double),
                      ("handoff_ms", c_double), ("from_graph", c_int), ("begin_us", c_double),
                      ("wait_start_us", c_double), ("wait_end_us", c_double),
                      ("end_us", c_double), ("record_end_us", c_double),
                      ("submit_start_us", c_double), ("submit_end_us", c_double),
                      ("cuda_start_us", c_double), ("cuda_wait_start_us", c_double),
                      ("cuda_wait_end_us", c_double), ("cuda_end_us", c_double),
                      ("draw_start_us", c_double), ("draw_end_us", c_double),
                      ("raw_cuda_us", c_double * 4), ("raw_draw_ticks", c_uint64 * 2),
                      ("annotations_ms", c_double))


class ClockAlignment(Struct):
    _c_name = "estuary_clock_alignment"
    _fields_ = [("aligned", c_int), ("method", c_char_p), ("error_us", c_double),
                ("tightest_half_width_us", c_double), ("drift_ppm", c_double),
                ("span_s", c_double), ("calibrations", c_uint32)]


class ClockInfo(Sized):
    _c_name = "estuary_clock_info"
    _fields_ = _sized(("vulkan", ClockAlignment), ("vulkan_cross_check", ClockAlignment),
                      ("cross_check_offset_us", c_double), ("cuda", ClockAlignment),
                      ("handoff_error_us", c_double), ("summary", c_char_p))


class Metrics(Sized):
    _c_name = "estuary_metrics"
    _fields_ = _sized(("frames_drawn", c_uint64), ("frames_presented", c_uint64),
                      ("swapchain_recreations", c_uint32), ("stats_dropped", c_uint64),
                      ("fps", c_double), ("interval_ms_p50", c_double),
                      ("interval_ms_p99", c_double), ("cuda_ms_p50", c_double),
                      ("draw_ms_p50", c_double), ("wait_ms_p50", c_double),
                      ("handoff_ms_p50", c_double), ("host_busy_us_p50", c_double),
                      ("device_local_budget", c_uint64), ("device_local_usage", c_uint64),
                      ("host_visible_budget", c_uint64), ("host_visible_usage", c_uint64),
                      ("cuda_free", c_uint64), ("cuda_total", c_uint64),
                      ("allocated_device_bytes", c_uint64), ("allocated_host_bytes", c_uint64),
                      ("host_available", c_uint64), ("handoff_checks", c_uint64),
                      ("handoff_regressions", c_uint64), ("pipelines_created", c_uint32),
                      ("pipeline_cache_hits", c_uint32), ("pipeline_create_ms", c_double),
                      ("pipeline_cache_loaded_bytes", c_uint64))


class ColormapStop(Struct):
    _c_name = "estuary_colormap_stop"
    _fields_ = [("position", c_float), ("rgba", c_float * 4)]


class ColormapDesc(Sized):
    _c_name = "estuary_colormap_desc"
    _fields_ = _sized(("name", c_char_p), ("flags", c_uint32), ("stops", POINTER(ColormapStop)),
                      ("stop_count", c_uint32), ("samples", c_void_p), ("sample_count", c_uint32),
                      ("sample_format", c_int))


# Every struct of estuary.h, by its C name (test_abi.py compiles the header against them).
STRUCTS = {cls._c_name: cls for cls in Struct.__subclasses__() + Sized.__subclasses__()
           if cls is not Sized}

_P = c_void_p  # every handle is opaque
_PROTOTYPES = {
    "estuary_version": (c_uint32, []),
    "estuary_status_name": (c_char_p, [c_int]),
    "estuary_last_error": (c_char_p, []),
    "estuary_create_viewer": (c_int, [POINTER(ViewerDesc), POINTER(_P)]),
    "estuary_destroy_viewer": (c_int, [_P, POINTER(c_uint32)]),
    "estuary_get_viewer_info": (c_int, [_P, POINTER(ViewerInfo)]),
    "estuary_validation_messages": (c_uint32, [_P]),
    "estuary_create_image": (c_int, [_P, POINTER(ImageDesc), POINTER(_P)]),
    "estuary_create_buffer": (c_int, [_P, POINTER(BufferDesc), POINTER(_P)]),
    "estuary_destroy_image": (c_int, [_P, _P]),
    "estuary_destroy_buffer": (c_int, [_P, _P]),
    "estuary_get_image_info": (c_int, [_P, POINTER(ImageInfo)]),
    "estuary_get_image_level_bytes": (c_int, [_P, c_uint32, POINTER(c_uint64)]),
    "estuary_get_buffer_info": (c_int, [_P, POINTER(BufferInfo)]),
    "estuary_add_field_view": (c_int, [_P, POINTER(FieldViewDesc), POINTER(_P)]),
    "estuary_add_volume_view": (c_int, [_P, POINTER(VolumeViewDesc), POINTER(_P)]),
    "estuary_add_points_view": (c_int, [_P, POINTER(PointsViewDesc), POINTER(_P)]),
    "estuary_add_markers_view": (c_int, [_P, POINTER(MarkersViewDesc), POINTER(_P)]),
    "estuary_add_lines_view": (c_int, [_P, POINTER(LinesViewDesc), POINTER(_P)]),
    "estuary_add_glyph_view": (c_int, [_P, POINTER(GlyphViewDesc), POINTER(_P)]),
    "estuary_add_mesh_view": (c_int, [_P, POINTER(MeshViewDesc), POINTER(_P)]),
    "estuary_add_text_view": (c_int, [_P, POINTER(TextViewDesc), POINTER(_P)]),
    "estuary_set_text": (c_int, [_P, c_char_p]),
    "estuary_add_labels_view": (c_int, [_P, POINTER(LabelsViewDesc), POINTER(_P)]),
    "estuary_record_start": (c_int, [_P, POINTER(RecordDesc)]),
    "estuary_record_stop": (c_int, [_P, POINTER(RecordInfo)]),
    "estuary_serve_start": (c_int, [_P, POINTER(ServeDesc)]),
    "estuary_create_slabs": (c_int, [_P, POINTER(SlabsDesc), POINTER(_P)]),
    "estuary_destroy_slabs": (c_int, [_P, _P]),
    "estuary_get_slabs_info": (c_int, [_P, POINTER(SlabsInfo)]),
    "estuary_get_slab": (c_int, [_P, c_uint32, POINTER(Slab)]),
    "estuary_slabs_exchange": (c_int, [_P]),
    "estuary_frame_gather_slabs": (c_int, [_P, _P, _P]),
    "estuary_serve_stop": (c_int, [_P]),
    "estuary_get_serve_info": (c_int, [_P, POINTER(ServeInfo)]),
    "estuary_destroy_view": (c_int, [_P, _P]),
    "estuary_get_view_params": (c_int, [_P, POINTER(ViewParams)]),
    "estuary_set_view_params": (c_int, [_P, POINTER(ViewParams)]),
    "estuary_set_view_legend": (c_int, [_P, POINTER(c_char_p), c_uint32]),
    "estuary_get_camera": (c_int, [_P, POINTER(Camera)]),
    "estuary_set_camera": (c_int, [_P, POINTER(Camera)]),
    "estuary_set_layout": (c_int, [_P, POINTER(LayoutDesc)]),
    "estuary_set_panel": (c_int, [_P, c_uint32, POINTER(PanelDesc)]),
    "estuary_get_panel_camera": (c_int, [_P, c_uint32, POINTER(Camera)]),
    "estuary_set_panel_camera": (c_int, [_P, c_uint32, POINTER(Camera)]),
    "estuary_panel_at": (c_int, [_P, c_float, c_float, POINTER(c_uint32)]),
    "estuary_set_background": (c_int, [_P, c_float, c_float, c_float]),
    "estuary_create_colormap": (c_int, [_P, POINTER(ColormapDesc), POINTER(c_int)]),
    "estuary_begin_frame": (c_int, [_P, POINTER(FrameDesc), POINTER(_P)]),
    "estuary_frame_wait": (c_int, [_P]),
    "estuary_end_frame": (c_int, [_P]),
    "estuary_frame_index": (c_uint64, [_P]),
    "estuary_next_frame_index": (c_uint64, [_P]),
    "estuary_frame_slot": (c_uint32, [_P]),
    "estuary_frame_stream": (c_void_p, [_P]),
    "estuary_frame_surface": (c_int, [_P, _P, c_uint32, POINTER(c_uint64)]),
    "estuary_frame_device_pointer": (c_int, [_P, _P, POINTER(c_void_p)]),
    "estuary_frame_host_level": (c_int, [_P, _P, c_uint32, POINTER(c_void_p)]),
    "estuary_frame_host_pointer": (c_int, [_P, _P, POINTER(c_void_p)]),
    "estuary_frame_copy_to_image": (c_int, [_P, _P, c_uint32, c_void_p, c_uint64]),
    "estuary_frame_read_image": (c_int, [_P, _P, c_uint32, c_uint32, c_uint32, c_uint32,
                                         c_uint32, c_uint32, c_void_p]),
    "estuary_frame_read_buffer": (c_int, [_P, _P, c_uint64, c_uint64, c_uint32, c_void_p]),
    "estuary_frame_pick": (c_int, [_P, _P, c_float, c_float, c_float, c_void_p]),
    "estuary_display": (c_int, [_P, FRAME_FN, c_void_p, c_uint64]),
    "estuary_wait_frame": (c_int, [_P, c_uint64]),
    "estuary_finish": (c_int, [_P]),
    "estuary_screenshot": (c_int, [_P, c_char_p]),
    "estuary_read_pixels": (c_int, [_P, c_void_p, c_uint64]),
    "estuary_poll_events": (c_int, [_P]),
    "estuary_should_close": (c_int, [_P]),
    "estuary_request_close": (c_int, [_P]),
    "estuary_next_frame_stats": (c_int, [_P, POINTER(FrameStats)]),
    "estuary_get_metrics": (c_int, [_P, POINTER(Metrics)]),
    "estuary_get_clock_info": (c_int, [_P, POINTER(ClockInfo)]),
    "estuary_get_input": (c_int, [_P, POINTER(Input)]),
    "estuary_inject_event": (c_int, [_P, POINTER(Event)]),
    "estuary_inject_fault": (c_int, [_P, c_int, c_uint64]),
}


def _candidates():
    """Where libestuary may be, in the order it is looked for."""
    explicit = os.environ.get("ESTUARY_LIBRARY")
    if explicit:
        yield pathlib.Path(explicit)
        return
    here = pathlib.Path(__file__).resolve().parent
    # Beside the package, in a bundle (BUNDLE/python/estuary/, the library in BUNDLE/), then in
    # the install tree (LIBDIR/python3/site-packages/estuary/, the library in LIBDIR/).
    for folder in [here] + list(here.parents)[1:3:1]:
        yield from sorted(folder.glob("libestuary.so*"), key=lambda p: len(p.name))
    # The loader's own search (LD_LIBRARY_PATH, ldconfig), by the soname this binding pairs with.
    yield pathlib.Path(f"libestuary.so.{API_VERSION >> 22}.{(API_VERSION >> 12) & 0x3FF}")


def pairs(library_version, binding_version):
    """Whether a library of `library_version` serves a binding of `binding_version`: the same
    major version and, below 1.0, the same minor version (estuary_create_viewer's own rule), and
    not older than the binding, which may call functions and fill fields an older library lacks."""
    if library_version >> 22 != binding_version >> 22 or library_version < binding_version:
        return False
    return binding_version >> 22 >= 1 or (
        (library_version >> 12) & 0x3FF == (binding_version >> 12) & 0x3FF)


def load():
    """libestuary with every prototype declared; ImportError naming where it was looked for, or
    naming both versions when the library found does not pair with this binding."""
    tried = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as error:
            tried.append(f"{path}: {error}")
            continue
        lib.estuary_version.restype, lib.estuary_version.argtypes = c_uint32, []
        version = lib.estuary_version()
        if not pairs(version, API_VERSION):
            rule = ("major versions equal" if API_VERSION >> 22 >= 1 else
                    "below 1.0, major and minor versions equal")
            raise ImportError(f"{path} is libestuary {version_text(version)}, but this estuary "
                              f"package is the binding of {version_text(API_VERSION)} ({rule}); "
                              "install the matching package or point ESTUARY_LIBRARY at a "
                              "matching library")
        for name, (restype, argtypes) in _PROTOTYPES.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        lib.path = str(path)
        return lib
    raise ImportError("libestuary not found; set ESTUARY_LIBRARY to its path (tried: " +
                      "; ".join(tried) + ")")


def version_text(version):
    return f"{version >> 22}.{(version >> 12) & 0x3FF}.{version & 0xFFF}"
