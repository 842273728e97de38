# A heat equation in PyTorch, live in estuary (docs/PYTHON.md). Headless: ESTUARY_FRAMES=N.
import torch, estuary

cuda = torch.cuda.is_available()  # without CUDA: a CPU tensor, uploaded by estuary
n, u = 512, torch.zeros(512, 512, device="cuda" if cuda else "cpu")
u[200:312, 200:312] = 1.0
viewer = estuary.Viewer()
field = viewer.image((n, n), generate_mips=True, name="temperature")
viewer.field_view(field, colormap="magma")
def step(frame):
    for _ in range(20):
        u[1:-1, 1:-1] += 0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1])
    frame.show(field, u)
viewer.display(step, stream=torch.cuda.current_stream() if cuda else None)
