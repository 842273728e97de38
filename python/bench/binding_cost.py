"""The binding's host cost per frame: the Python loop of loop_baseline.cu (a 1M-point CUDA buffer
cleared in place through PyTorch, a 512x512 field copied from a CUDA tensor into the frame's
image, on a stream of the program's own), its host busy time per frame against the C++ loop's,
both from estuary's own frame stats (begin to end of each frame). Prints JSON lines.
    python3 binding_cost.py [FRAMES] [PATH/TO/estuary_binding_baseline]"""
import json
import subprocess
import sys

import torch

import estuary

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
viewer = estuary.Viewer(display="headless", cuda="required", frames_in_flight=2)
field = viewer.image((512, 512), generate_mips=True, name="field")
points = viewer.buffer((1 << 20, 4), name="points")
viewer.field_view(field)
viewer.points_view(points)
source = torch.zeros((512, 512), device="cuda")
stream = torch.cuda.Stream()
busy = []
with torch.cuda.stream(stream):
    for index in range(frames):
        with viewer.frame(stream=stream) as frame:
            torch.as_tensor(frame.buffer(points), device="cuda").zero_()
            frame.show(field, source)
        busy += [s["host_busy_us"] for s in viewer.stats() if s["frame"] >= frames // 10]
viewer.finish()
busy += [s["host_busy_us"] for s in viewer.stats() if s["frame"] >= frames // 10]
busy.sort()
python = {"loop": "Python", "frames": frames, "host_busy_us_p50": round(busy[len(busy) // 2], 2),
          "fps": round(viewer.metrics()["fps"], 1)}
viewer.close()
print(json.dumps(python))
if len(sys.argv) > 2:
    done = subprocess.run([sys.argv[2], str(frames)], capture_output=True, text=True, check=True)
    cxx = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(cxx))
    print(json.dumps({"python_minus_cxx_host_us": round(python["host_busy_us_p50"] -
                                                         cxx["host_busy_us_p50"], 2)}))
