"""The binding keeps estuary's contract under every legal use and refuses the rest with an
exception, never a crash: closing inside a frame, anything used after close or destroy, Ctrl-C in
display(), sizes that do not fit the C types, picks asked before their frame is drawn, and the
statuses of 0.3 (out of memory, device lost, timeout, invalid handle) as exceptions of their own.
Headless, without CUDA (lavapipe in CI), the validation layer on."""
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import estuary
from estuary import _capi
from estuary._library import lib


def a_field(viewer, shape=(8, 8)):
    field = viewer.image(shape, name="field")
    view = viewer.field_view(field, colorbar=False)
    return field, view


def zeros(shape=(8, 8)):
    return np.zeros(shape, np.float32)


# -- what the frame path keeps between frames


def test_frame_indices_stay_estuarys_past_display_and_an_unknown_count(open_viewer):
    """The binding counts frames itself instead of asking each frame: its index must be
    estuary's after plain frames, after display()'s, and where it lost count (a failed end)."""
    viewer = open_viewer()
    field, _ = a_field(viewer)
    seen = []

    def check(frame):
        seen.append((frame.index, lib.estuary_frame_index(frame._handle)))
        assert frame.slot == frame.index % viewer.frames_in_flight
        frame.show(field, zeros())

    for _ in range(3):
        with viewer.frame() as frame:
            check(frame)
    viewer.display(lambda frame: check(frame) or frame.index == 5)
    with viewer.frame() as frame:
        check(frame)
    viewer._next_index = None  # as a failed end leaves it
    for _ in range(2):
        with viewer.frame() as frame:
            check(frame)
    assert seen == [(i, i) for i in range(9)]


def test_each_frame_goes_on_the_stream_it_names(open_viewer, monkeypatch):
    """The frame desc is set only where the stream changes: a stream, none, another, an int
    given again as a new object, each must reach estuary_begin_frame. Without CUDA here estuary
    refuses streams, so the desc's stream is taken at the call and NULL passed on."""
    viewer = open_viewer()
    desc, begin, given_to_c = viewer._frame_desc, estuary._frame._begin_frame, []

    def begin_seen(*args):
        given_to_c.append(desc.stream)
        stream, desc.stream = desc.stream, None
        try:
            return begin(*args)
        finally:
            desc.stream = stream

    monkeypatch.setattr(estuary._frame, "_begin_frame", begin_seen)

    class Stream:
        def __init__(self, handle):
            self.cuda_stream = handle

    first, second = Stream(0x5000), Stream(0x6000)
    cases = ((first, 0x5000), (first, 0x5000), (None, None), (second, 0x6000), (0, 1),
             (int("7000"), 7000), (int("7000"), 7000), (None, None))
    for given, expected in cases:
        with viewer.frame(stream=given) as frame:
            assert frame.stream == expected, given
    assert given_to_c == [expected for _, expected in cases]
    with pytest.raises(estuary.InvalidArgument, match="stream 'fast'"):
        viewer.frame(stream="fast")
    with viewer.frame() as frame:  # the refused stream changed nothing
        assert frame.stream is None and given_to_c[-1] is None


# -- closing and stale objects


def test_close_inside_a_frame_is_refused_and_changes_nothing(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    with viewer.frame() as frame:
        with pytest.raises(estuary.InvalidArgument, match="inside frame 0: end the frame first"):
            viewer.close()
        frame.show(field, np.full((8, 8), 1.0, np.float32))  # the frame and viewer work on
        read = frame.read_image(field)
    viewer.finish()
    assert read[0, 0] == 1.0
    with viewer.frame() as frame:
        frame.show(field, zeros())
    # the fixture closes it: 0 validation messages


def test_close_inside_a_display_callback_is_refused(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    refused = []

    def draw(frame):
        with pytest.raises(estuary.InvalidArgument, match="return True from the callback"):
            viewer.close()
        refused.append(frame.index)
        frame.show(field, zeros())
        return frame.index == 2

    viewer.display(draw)
    assert refused == [0, 1, 2]


def test_leaving_a_viewer_block_by_an_exception_ends_an_open_frame(tmp_path):
    with pytest.raises(KeyError):
        with estuary.Viewer(display="headless", cuda="off", width=64, height=48,
                            validation=True) as viewer:
            field, _ = a_field(viewer)
            frame = viewer.frame()
            frame.show(field, zeros())
            raise KeyError("in the middle of a frame")
    with pytest.raises(estuary.InvalidHandleError, match="viewer is closed"):
        viewer.metrics()


def test_everything_used_after_the_viewer_closed_raises(open_viewer):
    viewer = open_viewer()
    field, view = a_field(viewer)
    points = viewer.buffer((4, 4), writer="host")
    with viewer.frame() as frame:
        frame.show(field, zeros())
    assert viewer.close() == 0
    assert viewer.close() == 0, "a second close does nothing"
    closed = "viewer (is|that was) closed"
    for use in (lambda: viewer.image((8, 8)), lambda: viewer.buffer(4), viewer.frame,
                lambda: viewer.display(lambda f: True), viewer.metrics, viewer.pixels,
                viewer.finish, lambda: viewer.wait_frame(0), lambda: viewer.field_view(field),
                lambda: viewer.camera, viewer.should_close, viewer.stats):
        with pytest.raises(estuary.InvalidHandleError, match=closed):
            use()
    with pytest.raises(estuary.InvalidHandleError, match="field.*viewer that was closed"):
        view.update(value_range=(0, 2))
    with pytest.raises(estuary.InvalidHandleError, match="viewer that was closed"):
        view.params()
    with pytest.raises(estuary.InvalidHandleError, match="frame 0"):
        frame.show(field, zeros())
    other = open_viewer()
    with pytest.raises(estuary.InvalidHandleError, match=r"buffer \(4, 4\).*that was closed"):
        other.points_view(points)
    with pytest.raises(ValueError):  # InvalidHandleError is a ValueError, as a closed file's use
        other.field_view(field)
    field.destroy(), points.destroy(), view.destroy()  # freed with the viewer: harmless


def test_destroyed_images_buffers_and_views_raise_and_destroying_twice_is_harmless(open_viewer):
    viewer = open_viewer()
    field, view = a_field(viewer)
    points = viewer.buffer((4, 4), writer="host")
    points_view = viewer.points_view(points)
    view.destroy()
    view.destroy()
    points_view.destroy()
    field.destroy()
    field.destroy()
    points.destroy()
    with pytest.raises(estuary.InvalidHandleError, match="field view"):
        view.update(visible=False)
    with pytest.raises(estuary.InvalidHandleError, match="image.*'field' was destroyed"):
        viewer.field_view(field)
    with viewer.frame() as frame:
        with pytest.raises(estuary.InvalidHandleError, match="image.*'field' was destroyed"):
            frame.show(field, zeros())
        with pytest.raises(estuary.InvalidHandleError, match=r"buffer \(4, 4\) was destroyed"):
            frame.buffer(points)
        with pytest.raises(estuary.InvalidHandleError, match="was destroyed"):
            frame.read_image(field)


def test_an_object_of_another_viewer_is_an_invalid_handle(open_viewer):
    """Refused by the C library (ESTUARY_ERROR_INVALID_HANDLE), raised as InvalidHandleError."""
    first, second = open_viewer(), open_viewer()
    field, _ = a_field(first)
    with second.frame() as frame:
        with pytest.raises(estuary.InvalidHandleError, match="another viewer") as raised:
            frame.show(field, zeros())
    assert raised.value.status == _capi.ERROR_INVALID_HANDLE == 8


def test_stale_handles_past_the_binding_return_a_status_not_a_crash(open_viewer):
    """Handles that reach C after their object went (as a binding with a bug would pass them)."""
    viewer = open_viewer()
    field, _ = a_field(viewer)
    gone = viewer.buffer(4, writer="host")
    stale = gone._handle
    gone.destroy()
    info = _capi.BufferInfo()
    assert lib.estuary_get_buffer_info(stale, ctypes.byref(info)) == _capi.ERROR_INVALID_HANDLE
    assert lib.estuary_destroy_buffer(viewer._handle, stale) == _capi.ERROR_INVALID_HANDLE
    assert lib.estuary_get_buffer_info(0xDEADBEEF, ctypes.byref(info)) == \
        _capi.ERROR_INVALID_HANDLE
    with viewer.frame() as frame:
        frame_handle = frame._handle
        frame.show(field, zeros())
    assert lib.estuary_end_frame(frame_handle) == _capi.ERROR_INVALID_HANDLE


def test_an_ended_frame_and_its_host_arrays_take_no_more_writes(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    points = viewer.buffer((4, 4), writer="host")
    viewer.points_view(points)
    with viewer.frame() as frame:
        array = frame.buffer(points)
        array[:] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        array[:] = 2.0
    for use in (lambda: frame.show(field, zeros()), lambda: frame.buffer(points), frame.wait,
                lambda: frame.read_buffer(points)):
        with pytest.raises(estuary.InvalidHandleError, match="frame 0 has ended"):
            use()
    frame.end()  # a second end does nothing


def test_a_host_array_stays_read_only_when_its_memory_comes_round_again(open_viewer):
    """A later frame is handed the host memory of an earlier one again (the binding keeps one
    ctypes array over each): its array is writable, the ended one over it stays read-only."""
    viewer = open_viewer(frames_in_flight=2)
    points = viewer.buffer((4, 4), writer="host")
    viewer.points_view(points)
    arrays = []
    for index in range(8):
        with viewer.frame() as frame:
            arrays.append(frame.buffer(points))
            assert arrays[-1].flags.writeable
            arrays[-1][:] = index
        if index and arrays[-1].ctypes.data == arrays[0].ctypes.data:
            break
    assert len(arrays) < 8, "no frame came round to frame 0's memory in 8 frames"
    for array in arrays:
        with pytest.raises(ValueError, match="read-only"):
            array[:] = 99.0
    assert np.all(arrays[0] == len(arrays) - 1), "frame 0's array sees the memory's last write"


# -- Ctrl-C in display()


def test_keyboard_interrupt_from_the_callback_ends_the_frame_and_stops_the_loop(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    seen = []

    def draw(frame):
        seen.append(frame.index)
        frame.show(field, zeros())
        if frame.index == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        viewer.display(draw)
    assert seen == [0, 1, 2, 3]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler, "handler given back"
    with viewer.frame() as frame:  # frame 3 was ended: the next one begins
        assert frame.index == 4
        frame.show(field, zeros())


def test_ctrl_c_during_the_callback_is_raised_from_display(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    seen = []

    def draw(frame):
        seen.append(frame.index)
        frame.show(field, zeros())
        if frame.index == 2:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # Python runs the handler at the next bytecode or so
                time.sleep(0.001)
            seen.append("went on")

    with pytest.raises(KeyboardInterrupt):
        viewer.display(draw)
    assert seen == [0, 1, 2]


def frames_on_a_stream_of_yours(viewer, monkeypatch):
    """display(stream=...) runs the binding's own loop; without CUDA here, its frames go on the
    viewer's own stream (the stream changes nothing the loop does with Ctrl-C)."""
    monkeypatch.setattr(viewer, "frame", lambda stream=None, defer_wait=False: estuary.Frame(
        viewer, None, defer_wait))
    return 1


@pytest.mark.parametrize("loop", ["estuary_display", "the binding's, for a stream"])
def test_ctrl_c_between_frames_stops_display_instead_of_being_swallowed(open_viewer, loop,
                                                                      monkeypatch):
    """The signal lands while the loop runs estuary's calls (begin, draw, end): Python runs its
    handler at the next bytecode, where the binding once let ctypes print it and go on (a ctypes
    callback's entry) or could leave a frame begun and never ended."""
    viewer = open_viewer()
    field, _ = a_field(viewer)
    stream = None if loop == "estuary_display" else frames_on_a_stream_of_yours(viewer, monkeypatch)
    seen = []

    def send_ctrl_c():
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    def draw(frame):
        seen.append(frame.index)
        if frame.index == 5:
            threading.Thread(target=send_ctrl_c).start()
        return frame.index == 5000  # only reached when Ctrl-C was swallowed

    with pytest.raises(KeyboardInterrupt):
        viewer.display(draw, stream=stream)
    assert 5 < len(seen) < 5000
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with viewer.frame() as frame:
        frame.show(field, zeros())


# -- sizes that do not fit the C types


@pytest.fixture
def no_c_call(monkeypatch):
    """Makes the named C functions fail the test if called: a refusal must come before C."""
    def forbid(*names):
        for name in names:
            def called(*args, name=name):
                raise AssertionError(f"{name} was called")
            monkeypatch.setattr(lib, name, called)
    return forbid


@pytest.mark.parametrize("shape, size", [((16, 2**32 + 16), 2**32 + 16), ((-1, 16), -1),
                                         ((0, 16), 0), ((2**32, 4, 4), 2**32), ((2**40,), 2**40)])
def test_image_sizes_outside_uint32_are_refused_before_c(open_viewer, no_c_call, shape, size):
    viewer = open_viewer()
    no_c_call("estuary_create_image")
    with pytest.raises(ValueError, match=rf"size {size} is outside 1 to 4294967295"):
        viewer.image(shape)
    with pytest.raises(estuary.InvalidArgument, match="integer sizes"):
        viewer.image((8.5, 8))


def test_buffer_sizes_outside_uint64_are_refused_before_c(open_viewer, no_c_call):
    viewer = open_viewer()
    no_c_call("estuary_create_buffer")
    with pytest.raises(ValueError, match=r"73786976294838206464 bytes.*1 to 18446744073709551615"):
        viewer.buffer((2**62, 4), np.float32)
    with pytest.raises(ValueError, match="size -4 is outside"):
        viewer.buffer((-4, -4))
    with pytest.raises(ValueError, match="size 18446744073709551616 is outside"):
        viewer.buffer(2**64)


def test_counts_and_indices_outside_their_c_types_are_refused(open_viewer, no_c_call):
    viewer = open_viewer()
    field, view = a_field(viewer)
    points = viewer.buffer((4, 4), writer="host")
    dots = viewer.points_view(points)
    with pytest.raises(ValueError, match=r"estuary_viewer_desc.frames_in_flight 4294967298 does "
                                         r"not fit the C API's uint32_t: 0 to 4294967295"):
        estuary.Viewer(display="headless", cuda="off", frames_in_flight=2**32 + 2)
    no_c_call("estuary_add_points_view", "estuary_add_lines_view", "estuary_set_view_params",
              "estuary_wait_frame", "estuary_display")
    with pytest.raises(ValueError, match="estuary_points_view_desc.count 4294967296 .* 0 to "
                                         "4294967295"):
        viewer.points_view(points, count=2**32)
    with pytest.raises(ValueError, match="estuary_lines_view_desc.count -1"):
        viewer.lines_view(points, count=-1)
    with pytest.raises(ValueError, match="estuary_view_params.point_count 4294967296"):
        dots.update(point_count=2**32)
    with pytest.raises(ValueError, match="estuary_view_params.slice_axis -1"):
        view.update(slice_axis=-1)
    with pytest.raises(ValueError, match="frame index -1 .* uint64_t"):
        viewer.wait_frame(-1)
    with pytest.raises(ValueError, match="display frames 18446744073709551616"):
        viewer.display(lambda frame: True, frames=2**64)
    with viewer.frame() as frame:
        frame.show(field, zeros())
        for call, match in ((lambda: frame.read_image(field, width=2**32), "width 4294967296"),
                            (lambda: frame.read_image(field, x=-1), "x -1"),
                            (lambda: frame.show(field, zeros(), level=2**32), "level 4294967296"),
                            (lambda: frame.read_buffer(points, offset=-8), "offset -8"),
                            (lambda: frame.read_buffer(points, nbytes=2**64), "nbytes")):
            with pytest.raises(ValueError, match=match):
                call()


# -- picks and results


def test_a_pick_not_drawn_yet_is_pending_not_a_miss(open_viewer):
    viewer = open_viewer(width=128, height=128)
    markers = viewer.buffer((1, 8), writer="host")
    discs = viewer.markers_view(markers, shape="disc", size=20.0)
    with viewer.frame() as frame:
        frame.buffer(markers)[:] = [[0.25, 0.25, 0, 0.5, 0, 0, 0, 0]]
        on = frame.pick(discs, 32.0, 32.0)
        off = frame.pick(discs, 100.0, 100.0)
        assert not on.ready and not off.ready
        with pytest.raises(estuary.NotReady, match=r"frame 0 is not known yet.*wait_frame\(0\)"):
            on.hit
        with pytest.raises(estuary.NotReady):
            off.element
        assert "not known yet" in repr(off)
    assert not on.ready, "ended is not drawn: known by wait_frame, finish or a later begin"
    viewer.wait_frame(frame.index)
    assert on.ready and on.hit and on.element == 0 and on.value == pytest.approx(0.5)
    assert off.ready and not off.hit and "hit=False" in repr(off)


def test_metrics_carry_the_handoff_checks(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    for _ in range(4):
        with viewer.frame() as frame:
            frame.show(field, zeros())
    viewer.finish()
    metrics = viewer.metrics()
    assert "struct_size" not in metrics and metrics["frames_drawn"] == 4
    assert {"handoff_checks", "handoff_regressions"} <= metrics.keys()
    assert metrics["handoff_regressions"] == 0  # (checks are of CUDA's timeline: 0 here)


# -- the statuses of 0.3


def test_every_status_has_its_exception():
    expected = {1: estuary.RuntimeFailure, 2: estuary.InvalidArgument, 3: estuary.Unsupported,
                4: estuary.NotReady, 5: estuary.OutOfMemoryError, 6: estuary.DeviceLostError,
                7: estuary.GpuTimeoutError, 8: estuary.InvalidHandleError}
    from estuary._errors import BY_STATUS
    assert BY_STATUS == expected
    assert len(set(expected.values())) == len(expected)
    for status, error in expected.items():
        assert issubclass(error, estuary.EstuaryError)
        assert error("message", status).status == status
        name = lib.estuary_status_name(status).decode()
        assert name.startswith("ESTUARY_"), (status, name)
    assert estuary.GpuTimeoutError is not TimeoutError  # the builtin is left alone


def test_out_of_gpu_memory_is_out_of_memory_and_the_viewer_goes_on(open_viewer):
    viewer = open_viewer()
    assert lib.estuary_inject_fault(viewer._handle, _capi.FAULT["alloc_fail"], 0) == _capi.OK
    with pytest.raises(estuary.OutOfMemoryError, match="out of GPU memory") as raised:
        viewer.image((8, 8))
    assert raised.value.status == 5 and isinstance(raised.value, MemoryError)
    field, _ = a_field(viewer)  # retried: it fits now
    with viewer.frame() as frame:
        frame.show(field, zeros())


def test_a_lost_device_is_device_lost_and_the_viewer_refuses_frames(open_viewer):
    viewer = open_viewer()
    field, _ = a_field(viewer)
    assert lib.estuary_inject_fault(viewer._handle, _capi.FAULT["device_lost"], 1) == _capi.OK
    with pytest.raises(estuary.DeviceLostError, match="device was lost") as raised:
        for _ in range(3):
            with viewer.frame() as frame:
                frame.show(field, zeros())
    assert raised.value.status == 6 and isinstance(raised.value, estuary.RuntimeFailure)
    with pytest.raises(estuary.DeviceLostError, match="destroy it"):
        viewer.frame()


def test_a_gpu_wait_that_times_out_is_a_timeout(tmp_path):
    """In a process of its own: the viewer leaves its stalled objects to the driver."""
    program = (
        "import os, numpy as np, estuary\n"
        "from estuary import _capi\n"
        "from estuary._library import lib\n"
        "v = estuary.Viewer(display='headless', cuda='off', width=32, height=32)\n"
        "f = v.image((8, 8)); v.field_view(f)\n"
        "lib.estuary_inject_fault(v._handle, _capi.FAULT['vulkan_stall'], 1)\n"
        "try:\n"
        "    for i in range(4):\n"
        "        with v.frame() as frame: frame.show(f, np.zeros((8, 8), np.float32))\n"
        "    v.finish()\n"
        "except estuary.GpuTimeoutError as error:\n"
        "    print('timeout', error.status, isinstance(error, estuary.RuntimeFailure))\n"
        "os._exit(0)\n")
    env = dict(os.environ, ESTUARY_WAIT_TIMEOUT_S="1")
    env.pop("ESTUARY_VALIDATION", None)
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "timeout 7 True" in done.stdout, done.stdout + done.stderr
