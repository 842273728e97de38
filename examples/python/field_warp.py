# A field computed by an NVIDIA Warp kernel, copied on the GPU into estuary's image each frame.
# Warp is not a Debian package: where it is missing, this says so and exits 3 (unsupported).
import sys

try:
    import warp as wp
except ImportError:
    print("field_warp: NVIDIA Warp is not installed (pip install warp-lang)", file=sys.stderr)
    sys.exit(3)
import estuary

wp.init()
n = 512


@wp.kernel
def waves(field: wp.array2d(dtype=wp.float32), time: float):
    i, j = wp.tid()
    x, y = float(j) / float(n) - 0.5, float(i) / float(n) - 0.5
    field[i, j] = 0.5 + 0.5 * wp.sin(40.0 * wp.sqrt(x * x + y * y) - time)


field = wp.zeros((n, n), dtype=wp.float32, device="cuda")
viewer = estuary.Viewer(cuda="required")
image = viewer.image((n, n), generate_mips=True, name="waves")
viewer.field_view(image)
stream = wp.get_stream("cuda")


def step(frame):
    wp.launch(waves, dim=(n, n), inputs=[field, 0.1 * frame.index], stream=stream)
    frame.show(image, field)


viewer.display(step, stream=stream.cuda_stream)
