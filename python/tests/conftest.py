"""Tests of the Python package on whatever Vulkan device there is (lavapipe in CI), headless,
with the validation layer on: any message fails the test (Viewer.close raises then)."""
import os

import pytest

import estuary


@pytest.fixture
def open_viewer():
    """Makes headless viewers without CUDA; each must close with 0 validation messages."""
    made = []

    def make(**options):
        settings = dict(display="headless", width=128, height=96, cuda="off", validation=True)
        settings.update(options)
        viewer = estuary.Viewer(**settings)
        made.append(viewer)
        return viewer

    yield make
    for viewer in made:
        assert viewer.close() == 0


@pytest.fixture
def gpu():
    """A viewer on a CUDA device, or a skip saying why there is none."""
    try:
        viewer = estuary.Viewer(display="headless", width=128, height=96, cuda="required",
                                validation=True)
    except estuary.Unsupported as error:
        pytest.skip(f"no CUDA device that Vulkan also sees: {error}")
    yield viewer
    assert viewer.close() == 0


def pytest_report_header(config):
    return [f"libestuary: {estuary.library_path}",
            f"ESTUARY_LIBRARY={os.environ.get('ESTUARY_LIBRARY', '')}"]
