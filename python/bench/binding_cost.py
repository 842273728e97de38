"""The binding's host cost per frame: the loop of loop_baseline.cu (a 64k-point CUDA buffer cleared
in place, a 512x512 field copied from CUDA memory into the frame's image, on a stream of the
program's own) in Python against the C++ loop, both measured by estuary's own frame stats (host
busy: begin to end of each frame), plus where the Python frame's time goes. "binding" makes the
same CUDA calls as C++ (cudaMemsetAsync through ctypes, the field from a bare
__cuda_array_interface__ object): its difference to C++ is the binding's cost. "torch (...)" does
the clearing with PyTorch (as_tensor or from_dlpack, then zero_) and shows a tensor: what a
PyTorch program pays, PyTorch's own calls included. Each loop's host busy p50 comes with the p50
of its three parts from the frame stats' marks (as loop_baseline.cu prints them): "begin" up to
the frames-in-flight wait, "work" from the wait's end to estuary_end_frame's call (the rest of
begin, the binding and the loop's own calls), "end" end_frame itself. Prints JSON lines.
    python3 binding_cost.py [FRAMES] [PATH/TO/estuary_binding_baseline]"""
import ctypes
import json
import statistics
import subprocess
import sys
import time

import torch

import estuary
from estuary import _dlpack

frames = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
cudart = _dlpack._runtime()
cudart.cudaMemsetAsync.restype = ctypes.c_int
cudart.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t,
                                   ctypes.c_void_p]
memset = cudart.cudaMemsetAsync


class Bare:
    """CUDA memory described by nothing but __cuda_array_interface__ (float32, C order)."""

    def __init__(self, pointer, shape):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "version": 3,
                                         "data": (pointer, False), "strides": None,
                                         "stream": None}


def run(variant):
    viewer = estuary.Viewer(display="headless", cuda="required", frames_in_flight=2)
    field = viewer.image((512, 512), generate_mips=True, name="field")
    points = viewer.buffer((1 << 16, 4), name="points")
    viewer.field_view(field)
    viewer.points_view(points)
    source = torch.zeros((512, 512), device="cuda")
    bare_source = Bare(source.data_ptr(), (512, 512))
    stream = torch.cuda.Stream()
    stats, parts = [], {"begin": [], "tensor": [], "kernel": [], "show": [], "end": []}
    clock = time.perf_counter_ns
    with torch.cuda.stream(stream):
        for index in range(frames):
            t0 = clock()
            frame = viewer.frame(stream=stream)
            t1 = clock()
            if variant == "bare":
                t2 = t3 = t4 = clock()
            elif variant == "binding":
                array = frame.buffer(points)
                t2 = clock()
                memset(array.ptr, 0, points.nbytes, frame.stream)
                t3 = clock()
                frame.show(field, bare_source)
                t4 = clock()
            else:
                array = frame.buffer(points)
                tensor = (torch.from_dlpack(array) if variant == "dlpack"
                          else torch.as_tensor(array, device="cuda"))
                t2 = clock()
                tensor.zero_()
                t3 = clock()
                frame.show(field, source)
                t4 = clock()
            frame.end()
            t5 = clock()
            if index >= frames // 10:
                for name, (a, b) in zip(parts, ((t0, t1), (t1, t2), (t2, t3), (t3, t4),
                                                (t4, t5))):
                    parts[name].append((b - a) / 1000)
            stats += [s for s in viewer.stats() if s["frame"] >= frames // 10]
    viewer.finish()
    stats += [s for s in viewer.stats() if s["frame"] >= frames // 10]
    busy = [s["host_busy_us"] for s in stats]
    busy_parts = {"begin": [s["wait_start_us"] - s["begin_us"] for s in stats],
                  "work": [s["end_us"] - s["wait_end_us"] for s in stats],
                  "end": [s["submit_end_us"] - s["end_us"] for s in stats]}
    fps = viewer.metrics()["fps"]
    viewer.close()
    names = {"bare": "Python, begin and end only", "binding": "Python, binding",
             "cai": "Python, torch (as_tensor)", "dlpack": "Python, torch (from_dlpack)"}
    return {"loop": names[variant], "frames": frames,
            "host_busy_us_p50": round(statistics.median(busy), 2), "fps": round(fps, 1),
            "busy_parts_us_p50": {k: round(statistics.median(v), 2) for k, v in busy_parts.items()},
            "parts_us_p50": {k: round(statistics.median(v), 2) for k, v in parts.items()}}


results = [run(variant) for variant in ("bare", "binding", "cai", "dlpack")]
for result in results:
    print(json.dumps(result))
if len(sys.argv) > 2:
    done = subprocess.run([sys.argv[2], str(frames)], capture_output=True, text=True, check=True)
    cxx = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(cxx))
    for result in results[1:]:
        print(json.dumps({"loop": result["loop"], "python_minus_cxx_host_us": round(
            result["host_busy_us_p50"] - cxx["host_busy_us_p50"], 2)}))
