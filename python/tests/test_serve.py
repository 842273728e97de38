"""Serving (Viewer.serve): the page and a hostile path over plain HTTP, the counts, the notebook's
IFrame, and the errors bad arguments get. The server's hostile-request tests are C++
(tests/serve); the browser's are tests/serve/browser_test.py."""
import sys
import types
import urllib.error
import urllib.request

import numpy as np
import pytest

import estuary


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, ""


def test_the_page_is_served_and_other_paths_are_not(open_viewer):
    viewer = open_viewer(width=64, height=48)
    field = viewer.image((16, 16))
    viewer.field_view(field, colorbar=False)
    info = viewer.serve()
    assert info["running"] and info["port"] > 0
    assert info["encoder"] in ("jpeg", "libx264", "h264_nvenc", "nvenc (CUDA input)",
                               "nvenc (CUDA input, copied)")
    assert info["url"] == f"http://127.0.0.1:{info['port']}/"
    for _ in range(3):
        with viewer.frame() as frame:
            frame.show(field, np.random.rand(16, 16).astype(np.float32))
    status, page = fetch(info["url"])
    assert status == 200 and '<canvas id="view"' in page
    assert fetch(info["url"] + "../../etc/passwd")[0] == 404
    assert viewer.serve_info()["requests_refused"] >= 1
    viewer.serve_stop()
    assert viewer.serve_info()["running"] is False


def test_show_notebook_is_an_iframe_of_the_page(open_viewer, monkeypatch):
    # IPython's IFrame where IPython is installed; else a stand-in with its signature, so that the
    # test runs in CI's plain python3 too.
    try:
        import IPython.display  # noqa: F401
    except ImportError:
        display = types.ModuleType("IPython.display")

        class IFrame:
            def __init__(self, src, width, height):
                self.src, self.width, self.height = src, width, height

        display.IFrame = IFrame
        package = types.ModuleType("IPython")
        package.display = display
        monkeypatch.setitem(sys.modules, "IPython", package)
        monkeypatch.setitem(sys.modules, "IPython.display", display)
    viewer = open_viewer(width=64, height=48)
    frame = viewer.show_notebook(width=320, height=240)
    assert frame.src == viewer.serve_info()["url"]
    assert (frame.width, frame.height) == (320, 240)


def test_a_remote_address_needs_allow_remote_and_gets_a_token(open_viewer):
    viewer = open_viewer(width=64, height=48)
    with pytest.raises(estuary.InvalidArgument, match="allow_remote"):
        viewer.serve(address="127.0.0.2")
    info = viewer.serve(address="127.0.0.2", allow_remote=True)
    assert "?token=" in info["url"]
    assert fetch(info["url"].split("?")[0])[0] == 403
    assert fetch(info["url"])[0] == 200
    with pytest.raises(estuary.InvalidArgument, match="already serving"):
        viewer.serve()
    with pytest.raises(estuary.InvalidArgument, match="codec"):
        estuary.Viewer.serve(viewer, codec="webp")
