"""The DLPack capsules the package builds (for CUDA arrays, DeviceArray.__dlpack__), checked on
the CPU: NumPy consumes one made over host memory, which shows the description's layout (data,
shape, dtype, device) and that its deleter runs once the consumer lets go, and that a capsule
nobody consumed frees its description too."""
import gc

import numpy as np
import pytest

from estuary import _dlpack


class HostExport:
    """Host memory exported the way DeviceArray exports CUDA memory."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None, **_):
        return _dlpack.capsule(self.array.ctypes.data, self.array.shape, self.array.dtype,
                               _dlpack.KDL_CPU, 0)

    def __dlpack_device__(self):
        return (_dlpack.KDL_CPU, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint8, np.int32, np.float64])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_a_consumer_sees_the_memory_shape_and_dtype_and_lets_the_description_go(shape, dtype):
    source = np.arange(int(np.prod(shape))).astype(dtype).reshape(shape)
    alive = len(_dlpack._alive)
    consumed = np.from_dlpack(HostExport(source))
    assert consumed.ctypes.data == source.ctypes.data, "the memory itself, no copy"
    assert consumed.shape == shape and consumed.dtype == source.dtype
    assert np.array_equal(consumed, source)
    assert len(_dlpack._alive) == alive + 1, "the description lives while the consumer does"
    del consumed
    gc.collect()
    assert len(_dlpack._alive) == alive, "the consumer's deleter freed the description"


def test_a_capsule_nobody_consumed_frees_its_description():
    alive = len(_dlpack._alive)
    capsule = HostExport(np.zeros((4, 4), np.float32)).__dlpack__()
    assert len(_dlpack._alive) == alive + 1
    del capsule
    gc.collect()
    assert len(_dlpack._alive) == alive


def test_dtypes_dlpack_cannot_carry_are_refused():
    with pytest.raises(ValueError, match="dtype bool"):
        _dlpack.capsule(0, (4,), np.dtype(np.bool_), _dlpack.KDL_CPU, 0)
