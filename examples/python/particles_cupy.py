# Particles in CuPy written straight into estuary's exported buffer (zero-copy), drawn as 2D
# points over a field of their density. Without CuPy or a CUDA device: NumPy, uploaded by estuary.
import math
import sys

import estuary

try:
    import cupy as xp
    viewer = estuary.Viewer(cuda="required")
    stream = xp.cuda.Stream(non_blocking=True)
except Exception as why:  # no CuPy, or no CUDA device Vulkan also sees
    import numpy as xp
    print(f"particles_cupy: running on NumPy ({why})", file=sys.stderr)
    viewer, stream = estuary.Viewer(cuda="off"), None

count, size = 200_000, 256
xp.random.seed(7)
state = xp.zeros((count, 4), dtype=xp.float32)  # x, y, vx, vy in the field's cells
state[:, 0:2] = xp.random.rand(count, 2).astype(xp.float32) * size
angle = xp.random.rand(count).astype(xp.float32) * 2 * math.pi
state[:, 2], state[:, 3] = xp.cos(angle) * 0.6, xp.sin(angle) * 0.6

density = viewer.image((size, size), name="density")
points = viewer.buffer((count, 4), name="particles")
viewer.field_view(density, colormap="magma", value_range=(0, 8))
viewer.points_view(points, size=1.0, value_range=(0, 1), label="speed")


def step(frame):
    # Advance and bounce off the walls, then count particles per cell.
    state[:, 0:2] += state[:, 2:4]
    for axis in (0, 1):
        out = (state[:, axis] < 0) | (state[:, axis] >= size)
        state[out, axis + 2] *= -1
        state[:, axis] = xp.clip(state[:, axis], 0, size - 0.001)
    cells = state[:, 1].astype(xp.int32) * size + state[:, 0].astype(xp.int32)
    frame.show(density, xp.bincount(cells, minlength=size * size).astype(xp.float32)
               .reshape(size, size))
    target = frame.buffer(points)
    if stream is not None:
        xp.asarray(target)[...] = state  # the exported memory itself, on the frame's stream
    else:
        target[...] = state


if stream is not None:
    with stream:
        viewer.display(step, stream=stream)
else:
    viewer.display(step)
