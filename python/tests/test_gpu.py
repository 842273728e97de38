"""The package on a CUDA device with PyTorch and CuPy (each skipped, saying why, where missing):
zero-copy (the tensor's data pointer is the exported buffer's device address) through
__cuda_array_interface__ and DLPack, and every frame's tensor reaching its own draw for 1-8
frames in flight, with the frame's wait and signal on the caller's stream."""
import ctypes

import numpy as np
import pytest

import estuary
from estuary._library import lib


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


def test_torch_sees_the_exported_buffer_itself(gpu):
    torch = _torch()
    points = gpu.buffer((64, 4), name="points")
    assert points.writer == "cuda"
    gpu.points_view(points)
    with gpu.frame(stream=torch.cuda.current_stream()) as frame:
        array = frame.buffer(points)
        tensor = torch.as_tensor(array, device="cuda")
        assert tensor.data_ptr() == array.ptr and tensor.shape == (64, 4)
        from_dlpack = torch.from_dlpack(array)
        assert from_dlpack.data_ptr() == array.ptr
        tensor.fill_(3.0)
        words = frame.read_buffer(points, 0, 16)
    gpu.finish()
    assert list(words) == [3.0] * 4


@pytest.mark.parametrize("frames_in_flight", [1, 2, 3, 8])
def test_every_frames_tensor_reaches_its_own_draw(frames_in_flight):
    torch = _torch()
    try:
        viewer = estuary.Viewer(display="headless", width=64, height=64, cuda="required",
                                validation=True, frames_in_flight=frames_in_flight)
    except estuary.Unsupported as error:
        pytest.skip(str(error))
    field = viewer.image((16, 16), name="stamp")
    points = viewer.buffer((16, 4), name="points")
    viewer.field_view(field)
    viewer.points_view(points)
    stream = torch.cuda.Stream()
    reads = []
    with torch.cuda.stream(stream):
        for index in range(3 * frames_in_flight + 5):
            with viewer.frame(stream=stream) as frame:
                # Slow work first, so a draw that did not wait for it would see old data.
                work = torch.full((1024, 1024), float(index), device="cuda")
                for _ in range(4):
                    work = work @ torch.eye(1024, device="cuda")
                frame.show(field, work[:16, :16].contiguous())
                torch.as_tensor(frame.buffer(points), device="cuda").fill_(float(index))
                reads.append((frame.read_image(field), frame.read_image(field, after_draw=True),
                              frame.read_buffer(points, 0, 16)))
    viewer.finish()
    for index, (before, after, words) in enumerate(reads):
        assert before[0, 0] == index and after[0, 0] == index, index
        assert list(words) == [index] * 4, index
    assert viewer.close() == 0


def test_cupy_writes_the_exported_buffer_in_place(gpu):
    cupy = pytest.importorskip("cupy")
    points = gpu.buffer((32, 4), name="points")
    field = gpu.image((8, 8), name="field")
    gpu.field_view(field)
    gpu.points_view(points)
    stream = cupy.cuda.Stream(non_blocking=True)
    reads = []
    with stream:
        for index in range(6):
            with gpu.frame(stream=stream) as frame:
                array = frame.buffer(points)
                view = cupy.asarray(array)
                assert view.data.ptr == array.ptr
                view[...] = index
                frame.show(field, cupy.full((8, 8), index, dtype=cupy.float32))
                reads.append((frame.read_buffer(points, 0, 16), frame.read_image(field)))
    gpu.finish()
    for index, (words, texel) in enumerate(reads):
        assert list(words) == [index] * 4 and texel[0, 0] == index


def test_a_cuda_array_into_a_host_image_is_refused(gpu):
    torch = _torch()
    field = gpu.image((8, 8), writer="host")
    gpu.field_view(field)
    with gpu.frame() as frame:
        with pytest.raises(estuary.InvalidArgument, match="writer='cuda'"):
            frame.show(field, torch.zeros((8, 8), device="cuda"))
        frame.show(field, np.zeros((8, 8), np.float32))


@pytest.mark.parametrize("single", [False, True])
def test_each_frames_device_pointer_is_estuarys(gpu, single):
    """The binding keeps a ring's device pointers from the first frames on: each must be the
    one estuary gives the frame; a single copy is asked every frame (it orders the stream)."""
    points = gpu.buffer((64, 4), single=single, name="points")
    gpu.points_view(points)
    pointers = set()
    for _ in range(2 * points.copies + 1):
        with gpu.frame() as frame:
            pointer = ctypes.c_void_p()
            assert lib.estuary_frame_device_pointer(frame._handle, points._handle,
                                                    ctypes.byref(pointer)) == 0
            assert frame.buffer(points).ptr == pointer.value
            pointers.add(pointer.value)
    assert len(pointers) == points.copies
