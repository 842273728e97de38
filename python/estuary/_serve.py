"""Serving the live picture to browsers and notebooks (estuary_serve_start in estuary.h): the
Viewer's serve, serve_stop, serve_info and show_notebook call these."""
import ctypes

from . import _capi
from ._library import as_dict, check, choice, lib, text


def start(handle, address, port, allow_remote, token, codec, max_clients, jpeg_quality):
    d = _capi.ServeDesc()
    d.address, d.port, d.allow_remote = text(address), port, 1 if allow_remote else 0
    d.token, d.codec = text(token), choice(_capi.SERVE_CODEC, codec, "codec")
    d.max_clients, d.jpeg_quality = max_clients, jpeg_quality
    check(lib.estuary_serve_start(handle, ctypes.byref(d)))
    return info(handle)


def info(handle):
    i = _capi.ServeInfo()
    check(lib.estuary_get_serve_info(handle, ctypes.byref(i)))
    out = as_dict(i)
    out["running"] = bool(i.running)
    for name in ("url", "encoder"):
        out[name] = (out[name] or b"").decode("utf-8", "replace")
    return out


def stop(handle):
    check(lib.estuary_serve_stop(handle))


def notebook_frame(url, width, height):
    try:
        from IPython.display import IFrame
    except ImportError as error:
        raise ImportError("show_notebook needs IPython (a Jupyter kernel has it; "
                          "pip install ipython)") from error
    return IFrame(url, width=width, height=height)
