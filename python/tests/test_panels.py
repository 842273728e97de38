"""Panels from Python (viewer.set_layout) headless on lavapipe with validation: views drawn in
their panel, panel cameras and links, the panel under a point, picks naming the panel, and the
errors bad layouts get."""
import numpy as np
import pytest

import estuary

VIRIDIS_LAST = (253, 231, 37)


def near(got, want, tolerance=3):
    return all(abs(int(g) - w) <= tolerance for g, w in zip(got[:3], want))


def test_each_panel_shows_its_views_and_the_gap_the_background(open_viewer):
    viewer = open_viewer(width=128, height=64)
    viewer.set_background(0.0, 0.0, 1.0)
    viewer.set_layout(1, 2, column_widths=[1.0, 1.0], gap=8)  # 60 and 60 pixels, 8 apart
    field = viewer.image((16, 16))
    shown = viewer.field_view(field, colorbar=False, panel=1)
    assert shown.params()["panel"] == 1
    with viewer.frame() as frame:
        frame.show(field, np.ones((16, 16), np.float32))
    pixels = viewer.pixels()
    assert near(pixels[32, 30], (0, 0, 255), 1), "panel 0 has no views: the background"
    assert near(pixels[32, 64], (0, 0, 255), 1), "the gap"
    assert near(pixels[32, 98], VIRIDIS_LAST), "panel 1 shows the field"
    assert viewer.panel_at(30, 10) == 0
    assert viewer.panel_at(64, 10) is None
    assert viewer.panel_at(100, 10) == 1


def test_linked_panels_share_a_camera(open_viewer):
    viewer = open_viewer(width=64, height=64)
    viewer.set_layout(2, 2)
    viewer.set_panel(1, title="slice", camera_link=3)
    viewer.set_panel(3, camera_link=3)
    viewer.set_panel_camera(1, zoom=2.5, pan_x=0.1)
    assert viewer.panel_camera(3)["zoom"] == pytest.approx(2.5)
    assert viewer.panel_camera(3)["pan_x"] == pytest.approx(0.1)
    assert viewer.panel_camera(2)["zoom"] == pytest.approx(1.0)
    viewer.camera = {"zoom": 1.5}
    assert viewer.panel_camera(0)["zoom"] == pytest.approx(1.5)
    assert viewer.panel_camera(1)["zoom"] == pytest.approx(2.5)


def test_a_pick_names_the_panel_and_finds_a_view_only_in_its_own(open_viewer):
    viewer = open_viewer(width=128, height=64)
    viewer.set_layout(1, 2)
    markers = viewer.buffer((1, 8), writer="host")
    discs = viewer.markers_view(markers, shape="disc", size=20.0, panel=1)
    with viewer.frame() as frame:
        frame.buffer(markers)[:] = [[0.5, 0.5, 0, 0.7, 0, 0, 0, 0]]
        found = frame.pick(discs, 96.0, 32.0)
        elsewhere = frame.pick(discs, 32.0, 32.0)
    viewer.finish()
    assert found.hit and found.element == 0 and found.panel == 1
    assert not elsewhere.hit and elsewhere.panel == 0


def test_bad_layouts_and_panels_are_refused(open_viewer):
    viewer = open_viewer(width=64, height=64)
    with pytest.raises(estuary.InvalidArgument, match="17 rows"):
        viewer.set_layout(17, 1)
    with pytest.raises(estuary.InvalidArgument, match=r"column_widths\[0\]"):
        viewer.set_layout(1, 2, column_widths=[0.0, 1.0])
    with pytest.raises(estuary.InvalidArgument, match="column_widths has 3 sizes for 2"):
        viewer.set_layout(1, 2, column_widths=[1.0, 1.0, 1.0])
    with pytest.raises(estuary.InvalidArgument, match="gap_pixels"):
        viewer.set_layout(1, 2, gap=-2)
    with pytest.raises(estuary.InvalidArgument, match="panel 1"):
        viewer.panel_camera(1)
    field = viewer.image((4, 4))
    with pytest.raises(estuary.InvalidArgument, match="panel 2"):
        viewer.field_view(field, panel=2)
    viewer.set_layout(1, 3)
    shown = viewer.field_view(field, panel=2)
    with pytest.raises(estuary.InvalidArgument, match="move it first"):
        viewer.set_layout(1, 2)
    shown.update(panel=0)
    viewer.set_layout(1, 2)


def test_a_time_axis_takes_a_datetime_origin_and_refuses_a_log_scale(open_viewer):
    import datetime
    viewer = open_viewer(width=256, height=128)
    field = viewer.image((16, 48), origin=(0.0, 0.0), spacing=(3600.0, 1.0))
    viewer.field_view(field, colorbar=False)
    viewer.set_panel(0, axes=True, time_x=True, time_origin=datetime.datetime(2026, 3, 5),
                     axis_titles=["time [UTC]"])
    with viewer.frame() as frame:
        frame.show(field, np.zeros((16, 48), np.float32))
    bottom = viewer.pixels()[100:, :, :3]
    assert (bottom.min(axis=2) > 180).sum() > 40, "no time labels below the plot"
    with pytest.raises(estuary.InvalidArgument, match="ESTUARY_PANEL_LOG_X"):
        viewer.set_panel(0, axes=True, time_x=True, log_x=True)
    with pytest.raises(estuary.InvalidArgument, match="time_origin"):
        viewer.set_panel(0, axes=True, time_x=True, time_origin=float("nan"))
