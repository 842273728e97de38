"""The package on lavapipe (or any Vulkan device), headless, without CUDA: NumPy arrays in, the
pictures and the frame protocol checked, errors raised with the C API's messages."""
import os
import subprocess
import sys

import numpy as np
import pytest

import estuary

# The viridis table's ends, as estuary's colormap file has them.
VIRIDIS_FIRST, VIRIDIS_LAST = (68, 1, 84), (253, 231, 37)


def near(pixel, rgb, tolerance=3):
    return all(abs(int(a) - b) <= tolerance for a, b in zip(pixel[:3], rgb))


def test_a_numpy_field_is_drawn_through_the_colormap(open_viewer):
    viewer = open_viewer(width=128, height=128)
    field = viewer.image((32, 64), generate_mips=True, name="halves")
    viewer.field_view(field, colorbar=False)
    with viewer.frame() as frame:
        frame.show(field, np.where(np.arange(64) < 32, 0.0, 1.0).astype(np.float32)[None, :]
                   .repeat(32, axis=0))
    pixels = viewer.pixels()
    assert pixels.shape == (128, 128, 4)
    assert near(pixels[64, 20], VIRIDIS_FIRST)
    assert near(pixels[64, 108], VIRIDIS_LAST)
    assert not near(pixels[8, 64], VIRIDIS_FIRST), "letterboxed: the background above the field"


def test_value_range_and_colormap_change_between_frames(open_viewer):
    viewer = open_viewer(width=64, height=64)
    field = viewer.image((16, 16))
    view = viewer.field_view(field, colorbar=False, value_range=(0.0, 2.0))
    for _ in range(2):
        with viewer.frame() as frame:
            frame.show(field, np.full((16, 16), 2.0, np.float32))
    assert near(viewer.pixels()[32, 32], VIRIDIS_LAST)
    view.update(value_range=(0.0, 4.0), colormap="magma")
    assert view.params()["value_max"] == 4.0
    with viewer.frame() as frame:
        frame.show(field, np.full((16, 16), 2.0, np.float32))
    assert not near(viewer.pixels()[32, 32], VIRIDIS_LAST)


def test_a_colormap_of_stops_samples_or_a_name_draws_its_colours(open_viewer):
    viewer = open_viewer(width=64, height=64)
    field = viewer.image((8, 8))
    view = viewer.field_view(field, colorbar=False, colormap="turbo")

    def centre(value):
        with viewer.frame() as frame:
            frame.show(field, np.full((8, 8), value, np.float32))
        return viewer.pixels()[32, 32]

    assert near(centre(0.0), (48, 18, 59))  # turbo's first entry, by name
    red_blue = viewer.create_colormap(stops=[(0.0, (1, 0, 0, 1)), (1.0, (0, 0, 1))],
                                      name="red-blue")
    view.update(colormap=red_blue)
    assert near(centre(0.0), (255, 0, 0)) and near(centre(1.0), (0, 0, 255))
    palette = viewer.create_colormap(samples=np.array([[0, 0, 0, 255], [10, 200, 30, 255]],
                                                      np.uint8), categorical=True)
    view.update(colormap=palette)
    assert near(centre(3.0), (10, 200, 30), 0)  # 3 mod 2 = 1, exactly
    with pytest.raises(estuary.InvalidArgument, match="must increase"):
        viewer.create_colormap(stops=[(0.5, (0, 0, 0)), (0.2, (1, 1, 1))])
    with pytest.raises(estuary.InvalidArgument, match="not one of"):
        view.update(colormap="jet")


def test_rgba8_images_are_shown_as_colour(open_viewer):
    viewer = open_viewer(width=64, height=64)
    picture = viewer.image((8, 8), format="rgba8")
    viewer.field_view(picture, shading="rgb", colorbar=False)
    texels = np.zeros((8, 8, 4), np.uint8)
    texels[..., 0], texels[..., 3] = 255, 255
    with viewer.frame() as frame:
        frame.show(picture, texels)
    assert near(viewer.pixels()[32, 32], (255, 0, 0))


@pytest.mark.parametrize("frames_in_flight", [1, 2, 3, 8])
def test_every_draw_sees_its_own_frame(open_viewer, frames_in_flight):
    """Each frame stamps its index into an image and a buffer; the frame's own draw reads them
    back before and after drawing. Another frame's data, or a write landing mid-draw, shows."""
    viewer = open_viewer(frames_in_flight=frames_in_flight, width=64, height=64)
    assert viewer.frames_in_flight == frames_in_flight
    field = viewer.image((16, 16))
    points = viewer.buffer((16, 4), writer="host")
    viewer.field_view(field)
    viewer.points_view(points)
    reads = []
    for index in range(3 * frames_in_flight + 4):
        with viewer.frame() as frame:
            assert frame.index == index and frame.slot == index % frames_in_flight
            frame.show(field, np.full((16, 16), index, np.float32))
            frame.buffer(points)[:] = index
            reads.append((frame.read_image(field), frame.read_image(field, after_draw=True),
                          frame.read_buffer(points, 0, 16)))
    viewer.finish()
    for index, (before, after, words) in enumerate(reads):
        assert before[0, 0] == index and after[0, 0] == index
        assert list(words) == [index] * 4


def test_host_levels_and_buffers_are_numpy_views_of_the_frames_memory(open_viewer):
    viewer = open_viewer()
    volume = viewer.image((4, 8, 8), writer="host")
    assert volume.kind == "3d" and volume.level_shape(1) == (2, 4, 4)
    viewer.volume_view(volume)
    with viewer.frame() as frame:
        level = frame.host_level(volume)
        assert level.shape == (4, 8, 8) and level.dtype == np.float32 and level.flags.writeable
        level[:] = 0.5
        reads = frame.read_image(volume, width=8, height=8)
    viewer.finish()
    assert np.all(reads == 0.5)


def test_shown_arrays_of_every_kind_reach_the_image(open_viewer):
    """show() takes a read-only array, a strided one, a Fortran-ordered one, and a level given
    as a NumPy int: each arrives as given (the binding reads each kind's address its own way)."""
    viewer = open_viewer()
    field = viewer.image((8, 8), levels=2)
    viewer.field_view(field)
    read_only = np.full((8, 8), 1.0, np.float32)
    read_only.flags.writeable = False
    strided = np.arange(256, dtype=np.float32).reshape(16, 16)[::2, ::2]
    fortran = np.asfortranarray(np.arange(16, dtype=np.float32).reshape(4, 4))
    shown = []
    for array, level in ((read_only, 0), (strided, np.int64(0)), (fortran, 1)):
        with viewer.frame() as frame:
            frame.show(field, array, level=level)
            shown.append((array,
                          frame.read_image(field, width=8 >> int(level), height=8 >> int(level),
                                           level=int(level))))
    viewer.finish()
    for expected, read in shown:
        assert np.array_equal(read, expected)


def test_stats_metrics_and_the_camera(open_viewer):
    viewer = open_viewer()
    field = viewer.image((8, 8))
    viewer.field_view(field)
    for _ in range(5):
        with viewer.frame() as frame:
            frame.show(field, np.zeros((8, 8), np.float32))
    viewer.finish()
    stats = viewer.stats()
    assert [s["frame"] for s in stats] == list(range(5))
    assert all(s["host_busy_us"] > 0 for s in stats)
    assert viewer.metrics()["frames_drawn"] == 5
    viewer.camera = {"zoom": 2.0}
    assert viewer.camera["zoom"] == 2.0


def test_bad_arguments_raise_naming_the_value(open_viewer):
    with pytest.raises(estuary.InvalidArgument, match="frames_in_flight 33"):
        estuary.Viewer(display="headless", cuda="off", frames_in_flight=33)
    viewer = open_viewer()
    with pytest.raises(estuary.InvalidArgument, match="format 'r8'"):
        viewer.image((8, 8), format="r8")
    with pytest.raises(estuary.InvalidArgument, match="for kind 3d: 3 dimension"):
        viewer.image((8, 8), kind="3d")
    with pytest.raises(estuary.EstuaryError) as raised:
        viewer.image((8, 8), writer="cuda")
    assert raised.value.status in (2, 3) and "CUDA" in str(raised.value)
    field = viewer.image((8, 8))
    viewer.field_view(field)
    with viewer.frame() as frame:
        with pytest.raises(estuary.InvalidArgument, match=r"shape \(8, 9\).*expected \(8, 8\)"):
            frame.show(field, np.zeros((8, 9), np.float32))
        with pytest.raises(estuary.InvalidArgument, match="dtype float64.*expected float32"):
            frame.show(field, np.zeros((8, 8)))
        frame.show(field, np.zeros((8, 8), np.float32))
    with pytest.raises(estuary.InvalidHandleError, match="frame 0 has ended"):
        frame.show(field, np.zeros((8, 8), np.float32))
    with pytest.raises(estuary.InvalidArgument, match="destroy them first"):
        field.destroy()
    with pytest.raises(estuary.InvalidArgument, match="stream"):
        viewer.frame(stream="default")


def test_display_runs_the_loop_and_carries_exceptions_out(open_viewer, tmp_path):
    viewer = open_viewer()
    field = viewer.image((8, 8))
    viewer.field_view(field)
    seen = []

    def draw(frame):
        frame.show(field, np.full((8, 8), frame.index / 10, np.float32))
        seen.append(frame.index)
        return frame.index == 4

    viewer.display(draw)
    assert seen == [0, 1, 2, 3, 4]

    def fail(frame):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        viewer.display(fail)
    shot = tmp_path / "shot.png"
    viewer.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(estuary.EstuaryError, match="missing-folder"):
        viewer.screenshot("/proc/missing-folder/shot.png")  # a folder nobody can make


def test_the_environment_caps_display_and_names_its_screenshot(tmp_path):
    """ESTUARY_FRAMES and ESTUARY_SCREENSHOT work for Python programs unchanged."""
    program = (
        "import numpy as np, estuary\n"
        "v = estuary.Viewer(display='headless', cuda='off', width=64, height=48)\n"
        "f = v.image((8, 8)); v.field_view(f)\n"
        "v.display(lambda fr: fr.show(f, np.ones((8, 8), np.float32)))\n"
        "print('frames', v.metrics()['frames_drawn']); assert v.close() == 0\n")
    shot = tmp_path / "env.png"
    env = dict(os.environ, ESTUARY_FRAMES="7", ESTUARY_SCREENSHOT=str(shot),
               ESTUARY_VALIDATION="1")
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "frames 7" in done.stdout
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def red_bits():
    return np.array([0xFF0000FF], np.uint32).view(np.float32)[0]


def test_markers_lines_and_glyphs_are_drawn(open_viewer):
    """An arrow along +y, a line across, and glyphs of a velocity image, each where it should be
    (positions in the unit square, which fills the 128 x 128 picture)."""
    viewer = open_viewer(width=128, height=128)
    arrows = viewer.buffer((1, 8), writer="host")
    viewer.markers_view(arrows, shape="arrow", size=40.0, rgba=True)
    vertices = viewer.buffer((2, 4), writer="host")
    viewer.lines_view(vertices, width=4.0, rgba=True)
    with viewer.frame() as frame:
        frame.buffer(arrows)[:] = [[0.5, 0.5, 0.0, red_bits(), 0.0, 1.0, 0.0, 0.0]]
        frame.buffer(vertices)[:] = [[0.1, 0.9, 0.0, red_bits()], [0.9, 0.9, 0.0, red_bits()]]
    pixels = viewer.pixels()
    assert near(pixels[81, 64], (255, 0, 0)), "the arrow's head, 17 pixels down"
    assert near(pixels[64, 81], (20, 20, 26)), "nothing to its right"
    assert near(pixels[115, 64], (255, 0, 0)), "the line at y = 0.9"
    assert near(pixels[100, 64], (20, 20, 26))
    with pytest.raises(estuary.InvalidArgument, match="shape"):
        viewer.markers_view(arrows, shape="star")


def test_markers_from_separate_arrays_draw_as_the_packed_layout(open_viewer):
    """Channels of their own (float32 (n, 2) positions, float16 values, a float32 (n, 2)
    direction read at a stride from a struct-like array): the picture of the 32-byte layout,
    pixel for pixel, with no copy into it."""
    viewer = open_viewer(width=128, height=128)
    rng = np.random.default_rng(7)
    n = 30
    xy = (rng.integers(6, 58, (n, 2)) / 64).astype(np.float32)
    values = (rng.integers(0, 64, n) / 64).astype(np.float16)
    direction = (rng.integers(-4, 5, (n, 2)) / 4).astype(np.float32)
    packed = np.zeros((n, 8), np.float32)
    packed[:, :2], packed[:, 3], packed[:, 4:6] = xy, values, direction
    main = viewer.buffer((n, 8), writer="host")
    view = viewer.markers_view(main, shape="arrow", size=12.0)
    with viewer.frame() as frame:
        frame.buffer(main)[:] = packed
    expected = viewer.pixels()
    view.destroy()
    positions = viewer.buffer((n, 2), writer="host")
    halves = viewer.buffer(n, np.float16, writer="host")
    structs = viewer.buffer((n, 5), writer="host")  # (tag, dx, dy, tag, tag): 20 bytes each
    view = viewer.markers_view(shape="arrow", size=12.0, position=positions, value=halves,
                               direction=(structs, 4, 20, "f32x2"))
    with viewer.frame() as frame:
        frame.buffer(positions)[:] = xy
        frame.buffer(halves)[:] = values
        frame.buffer(structs)[:, 1:3] = direction
    assert (viewer.pixels()[..., :3] == expected[..., :3]).all()
    assert (expected[..., :3] != expected[0, 0, :3]).any(axis=-1).sum() > 200, "something drawn"
    with pytest.raises(estuary.InvalidArgument, match="format F16 is not allowed for a markers "
                                                      "view's POSITION channel"):
        viewer.markers_view(position=(halves, 0, 0, "f16"))
    with pytest.raises(estuary.InvalidArgument, match="has no attribute format"):
        viewer.markers_view(position=viewer.buffer((n, 5), writer="host"))


def test_text_and_labels_are_drawn_where_anchored(open_viewer):
    """Screen text at its pixels, world text at its point, labels at the anchors a buffer holds
    (an index past the strings draws nothing); set_text changes the text."""
    viewer = open_viewer(width=128, height=128)
    text = viewer.text_view("Hµ", position=(10, 30), size=24.0)
    with viewer.frame():
        pass
    lit = viewer.pixels()[..., 0] > 120
    ys, xs = np.nonzero(lit)
    assert xs.min() >= 10 and xs.max() < 50 and ys.max() < 36 and ys.min() > 8
    text.set_text("")
    text.destroy()
    anchors = viewer.buffer((3, 4), writer="host")
    viewer.labels_view(anchors, strings=["A", "B"], size=20.0, align="center", valign="middle")
    with viewer.frame() as frame:
        a = frame.buffer(anchors)
        a[:, :3] = [[0.25, 0.25, 0.0], [0.75, 0.75, 0.0], [0.75, 0.25, 0.0]]
        a[:, 3] = np.array([0, 1, 7], np.uint32).view(np.float32)
    lit = viewer.pixels()[..., 0] > 120
    assert lit[20:44, 20:44].any() and lit[84:108, 84:108].any()
    assert not lit[:64, 64:].any(), "index 7 is past the strings"
    assert not lit[64:, :64].any()
    with pytest.raises(estuary.InvalidArgument, match="align"):
        viewer.text_view("x", align="justified")


def test_a_mesh_is_drawn_lit_and_depth_tested(open_viewer):
    """Two triangles facing the eye (yaw 0, pitch 0: looking along +z), the nearer red one drawn
    first over the farther blue one: red wins at the middle, lit by the light's share on a face
    looking straight at the viewer."""
    viewer = open_viewer(width=128, height=128)
    viewer.camera = {"zoom": 1.0, "yaw_degrees": 0.0, "pitch_degrees": 0.0}
    vertices = viewer.buffer((6, 4), writer="host")
    viewer.mesh_view(vertices, shading="flat", rgba=True)
    red = np.array([0x3F0000FF], np.uint32).view(np.float32)[0]  # alpha unused
    blue = np.array([0x3FFF0000], np.uint32).view(np.float32)[0]
    triangle = np.array([[-0.3, 0.3], [0.3, 0.3], [0.0, -0.3]], np.float32)
    with viewer.frame() as frame:
        rows = frame.buffer(vertices)
        rows[:3, :2], rows[:3, 2], rows[:3, 3] = triangle, -0.2, red
        rows[3:, :2], rows[3:, 2], rows[3:, 3] = triangle, 0.2, blue
    pixels = viewer.pixels()
    assert pixels[64, 64, 0] > 150 and pixels[64, 64, 2] == 0, pixels[64, 64]
    with pytest.raises(estuary.InvalidArgument, match="shading"):
        viewer.mesh_view(vertices, shading="phong")


def test_picking_finds_the_marker_and_the_triangle_under_a_point(open_viewer):
    """Frame.pick: the marker covering a pixel, none far from it, the nearer of two triangles
    with the point hit on it; filled once the frame is drawn."""
    viewer = open_viewer(width=128, height=128)
    viewer.camera = {"zoom": 1.0, "yaw_degrees": 0.0, "pitch_degrees": 0.0}
    markers = viewer.buffer((2, 8), writer="host")
    discs = viewer.markers_view(markers, shape="disc", size=20.0)
    vertices = viewer.buffer((6, 4), writer="host")
    mesh = viewer.mesh_view(vertices, shading="flat")
    triangle = np.array([[-0.3, 0.3], [0.3, 0.3], [0.0, -0.3]], np.float32)
    with viewer.frame() as frame:
        frame.buffer(markers)[:] = [[0.25, 0.25, 0, 0.3, 0, 0, 0, 0],
                                    [0.75, 0.25, 0, 0.6, 0, 0, 0, 0]]
        rows = frame.buffer(vertices)
        rows[:3, :2], rows[:3, 2], rows[:3, 3] = triangle, 0.2, 0.1
        rows[3:, :2], rows[3:, 2], rows[3:, 3] = triangle, -0.2, 0.5
        on_marker = frame.pick(discs, 97.0, 31.0)
        nowhere = frame.pick(discs, 64.0, 100.0, radius=4)
        on_mesh = frame.pick(mesh, 64.0, 64.0)
    viewer.finish()
    assert on_marker.hit and on_marker.element == 1 and on_marker.distance == 0.0
    assert on_marker.value == pytest.approx(0.6)
    assert on_marker.position == pytest.approx((0.75, 0.25, 0.0))
    assert not nowhere.hit and "hit=False" in repr(nowhere)
    assert on_mesh.hit and on_mesh.element == 1, "the nearer triangle, second in the buffer"
    assert on_mesh.value == pytest.approx(0.5)
    assert on_mesh.position[2] == pytest.approx(-0.2)
    with viewer.frame() as frame:
        with pytest.raises(estuary.InvalidArgument, match="radius 100"):
            frame.pick(discs, 0, 0, radius=100)


def test_glyphs_follow_a_velocity_image(open_viewer):
    viewer = open_viewer(width=128, height=128)
    velocity = viewer.image((32, 32), format="rg32f")
    viewer.glyph_view(velocity, spacing=16, size=24.0)
    with viewer.frame() as frame:
        frame.show(velocity, np.tile(np.array([1.0, 0.0], np.float32), (32, 32, 1)))
    pixels = viewer.pixels()
    assert near(pixels[34, 43], VIRIDIS_LAST), "the head of the arrow at cell (8, 8)"
    assert near(pixels[43, 34], (20, 20, 26))


def test_a_recording_is_written_and_named_in_errors(open_viewer, tmp_path):
    viewer = open_viewer(width=64, height=64)
    field = viewer.image((16, 16))
    viewer.field_view(field, colorbar=False)
    with pytest.raises(estuary.InvalidArgument, match=r"\.mp4 or \.mkv"):
        viewer.record_start(tmp_path / "clip.avi")
    try:
        viewer.record_start(tmp_path / "clip.mp4", encoder="libx264")
    except estuary.Unsupported as error:
        pytest.skip(f"no FFmpeg here: {error}")
    for index in range(5):
        with viewer.frame() as frame:
            frame.show(field, np.full((16, 16), index / 4.0, np.float32))
    info = viewer.record_stop()
    assert info["frames"] == 5 and info["encoder"] == "libx264"
    assert (tmp_path / "clip.mp4").stat().st_size > 0
