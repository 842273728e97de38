"""The binding's host cost per frame: the loop of loop_baseline.cu (a 64k-point CUDA buffer cleared
in place, a 512x512 field copied from CUDA memory into the frame's image, on a stream of the
program's own) in Python against the C++ loop, both measured by estuary's own frame stats (host
busy: begin to end of each frame), plus where the Python frame's time goes. "binding" makes the
same CUDA calls as C++ (cudaMemsetAsync through ctypes, the field from a bare
__cuda_array_interface__ object): its difference to C++ is the binding's cost. "torch (...)" does
the clearing with PyTorch (as_tensor or from_dlpack, then zero_) and shows a tensor: what a
PyTorch program pays, PyTorch's own calls included. "binding, no PyTorch" runs the binding loop
again in a process that never imports PyTorch (its stream and field made through the CUDA runtime,
as C++ makes them), to tell the binding's cost from PyTorch's presence. Each loop's host busy p50
comes with the p50 of its three parts from the frame stats' marks (as loop_baseline.cu prints
them): "begin" up to the frames-in-flight wait, "work" from the wait's end to estuary_end_frame's
call (the rest of begin, the binding and the loop's own calls), "end" end_frame itself. The
Python side of the same loop, on the CPU alone, is binding_host_cost.py's. Prints JSON lines.
ROUNDS (default 1) repeats every loop and C++ that many times, alternated, and ends with each
loop's median difference to C++ over the rounds: between device calls, and between processes of
one call, host times drift by tens of µs (docs/PERFORMANCE.md), more than the binding's cost.
The last line is the headline: {"binding_minus_cxx_host_us": {"new": ...}}, the binding loop's
Python minus C++ host busy p50 in a child process that never imports PyTorch, median over the
rounds. --old DIR (a folder holding another estuary/ package, say an older revision's) runs that
loop with the old package too, in a child of its own beside this package's each round (the two
take turns to go first), and the headline gives "old" beside "new".
    python3 binding_cost.py [FRAMES] [PATH/TO/estuary_binding_baseline [ROUNDS]] [--old DIR]"""
import contextlib
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time

import estuary
from estuary import _dlpack

NO_TORCH = "--no-torch"  # the child's flag: the binding loops without PyTorch
OLD = "--old"
_old_at = sys.argv.index(OLD) if OLD in sys.argv else None
old_package = sys.argv[_old_at + 1] if _old_at is not None else None
arguments = [a for i, a in enumerate(sys.argv[1:], 1)
             if a != NO_TORCH and (_old_at is None or i not in (_old_at, _old_at + 1))]
frames = int(arguments[0]) if arguments else 3000
cudart = _dlpack._runtime()
for _name, _args in {"cudaMemsetAsync": [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t,
                                         ctypes.c_void_p],
                     "cudaMemset": [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t],
                     "cudaMalloc": [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t],
                     "cudaFree": [ctypes.c_void_p],
                     "cudaStreamCreateWithFlags": [ctypes.POINTER(ctypes.c_void_p),
                                                   ctypes.c_uint],
                     "cudaStreamDestroy": [ctypes.c_void_p]}.items():
    getattr(cudart, _name).restype = ctypes.c_int
    getattr(cudart, _name).argtypes = _args
memset = cudart.cudaMemsetAsync
FIELD_BYTES = 512 * 512 * 4


class Bare:
    """CUDA memory described by nothing but __cuda_array_interface__ (float32, C order)."""

    def __init__(self, pointer, shape):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "version": 3,
                                         "data": (pointer, False), "strides": None,
                                         "stream": None}


def cuda_check(status, call):
    if status != 0:
        raise RuntimeError(f"{call} failed with CUDA error {status}")


@contextlib.contextmanager
def runtime_resources():
    """A non-blocking stream and a zeroed 512x512 float field from the CUDA runtime, as
    loop_baseline.cu makes them: (stream handle, field pointer)."""
    stream, field = ctypes.c_void_p(), ctypes.c_void_p()
    cuda_check(cudart.cudaStreamCreateWithFlags(ctypes.byref(stream), 1), "cudaStreamCreate")
    try:
        cuda_check(cudart.cudaMalloc(ctypes.byref(field), FIELD_BYTES), "cudaMalloc")
        try:
            cuda_check(cudart.cudaMemset(field, 0, FIELD_BYTES), "cudaMemset")
            yield stream.value, field.value
        finally:
            cudart.cudaFree(field)
    finally:
        cudart.cudaStreamDestroy(stream)


def run(variant, torch):
    viewer = estuary.Viewer(display="headless", cuda="required", frames_in_flight=2)
    field = viewer.image((512, 512), generate_mips=True, name="field")
    points = viewer.buffer((1 << 16, 4), name="points")
    viewer.field_view(field)
    viewer.points_view(points)
    with contextlib.ExitStack() as resources:
        if torch is None:
            stream, pointer = resources.enter_context(runtime_resources())
            source = None
        else:
            source = torch.zeros((512, 512), device="cuda")
            pointer, stream = source.data_ptr(), torch.cuda.Stream()
            resources.enter_context(torch.cuda.stream(stream))
        bare_source = Bare(pointer, (512, 512))
        stats, parts = loop(viewer, variant, stream, field, points, source, bare_source, torch)
        viewer.finish()  # before the stream and the field go
    stats += [s for s in viewer.stats() if s["frame"] >= frames // 10]
    fps = viewer.metrics()["fps"]
    viewer.close()
    busy = [s["host_busy_us"] for s in stats]
    busy_parts = {"begin": [s["wait_start_us"] - s["begin_us"] for s in stats],
                  "work": [s["end_us"] - s["wait_end_us"] for s in stats],
                  "end": [s["submit_end_us"] - s["end_us"] for s in stats]}
    names = {"bare": "Python, begin and end only", "binding": "Python, binding",
             "cai": "Python, torch (as_tensor)", "dlpack": "Python, torch (from_dlpack)"}
    name = names[variant] + (", no PyTorch" if torch is None else "")
    return {"loop": name, "frames": frames,
            "host_busy_us_p50": round(statistics.median(busy), 2), "fps": round(fps, 1),
            "busy_parts_us_p50": {k: round(statistics.median(v), 2) for k, v in busy_parts.items()},
            "parts_us_p50": {k: round(statistics.median(v), 2) for k, v in parts.items()}}


def loop(viewer, variant, stream, field, points, source, bare_source, torch):
    stats, parts = [], {"begin": [], "tensor": [], "kernel": [], "show": [], "end": []}
    clock = time.perf_counter_ns
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
            for name, (a, b) in zip(parts, ((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5))):
                parts[name].append((b - a) / 1000)
        stats += [s for s in viewer.stats() if s["frame"] >= frames // 10]
    return stats, parts


def one_round(torch, baseline, number):
    """Every loop once, then C++ (where `baseline` names it): the JSON lines of one round. The
    two packages' children take turns to go first, round by round."""
    results = [run(variant, torch) for variant in ("bare", "binding", "cai", "dlpack")]
    packages = {"": os.path.dirname(estuary.__path__[0])}
    if old_package:
        packages[" (old)"] = os.path.abspath(old_package)
    for suffix, package in sorted(packages.items(), reverse=number % 2 == 1):
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [package] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
        done = subprocess.run([sys.executable, __file__, str(frames), NO_TORCH],
                              capture_output=True, text=True, env=environment)
        if done.returncode == 0:
            results += [json.loads(line) | {"loop": json.loads(line)["loop"] + suffix,
                                            "package": package}
                        for line in done.stdout.splitlines() if line.startswith("{")]
        else:  # reported, and the other loops still compared
            results.append({"loop": "Python, binding, no PyTorch" + suffix, "package": package,
                            "failed": done.stderr[-2000:]})
    if baseline:
        done = subprocess.run([baseline, str(frames)], capture_output=True, text=True,
                              check=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def main():
    if NO_TORCH in sys.argv:
        for variant in ("bare", "binding"):
            print(json.dumps(run(variant, None)), flush=True)
        return
    import torch
    baseline = arguments[1] if len(arguments) > 1 else None
    rounds = int(arguments[2]) if len(arguments) > 2 else 1
    differences = {}  # loop: its host busy p50 less C++'s, a round each
    for number in range(rounds):
        results = one_round(torch, baseline, number)
        cxx = results[-1] if baseline else None
        for result in results:
            print(json.dumps(result if rounds == 1 else {"round": number, **result}))
        for result in results[:-1] if baseline else []:
            if "host_busy_us_p50" in result and "begin and end" not in result["loop"]:
                difference = round(result["host_busy_us_p50"] - cxx["host_busy_us_p50"], 2)
                differences.setdefault(result["loop"], []).append(difference)
                print(json.dumps({"loop": result["loop"], "python_minus_cxx_host_us": difference}
                                 | ({"round": number} if rounds > 1 else {})))
    if rounds > 1:  # rounds alternate the loops, so that a drift of the machine hits each
        for loop, values in differences.items():
            print(json.dumps({"loop": loop, "rounds": rounds,
                              "python_minus_cxx_host_us_median": round(statistics.median(values),
                                                                       2),
                              "python_minus_cxx_host_us": values}))
    # The headline: Python minus C++ for the binding loop, each package in a child process of
    # its own that never imports PyTorch (the same kind of process for both), median of rounds;
    # beside it this package's binding loop in the process that imported PyTorch.
    key, medians = "Python, binding, no PyTorch", {}
    for side, loop in (("new", key), ("old", key + " (old)"),
                       ("new_pytorch_imported", "Python, binding")):
        if differences.get(loop):
            medians[side] = round(statistics.median(differences[loop]), 2)
    if medians:
        print(json.dumps({"binding_minus_cxx_host_us": medians, "rounds": rounds,
                          "new": os.path.dirname(estuary.__path__[0])} |
                         ({"old": os.path.abspath(old_package)} if old_package else {})))

if __name__ == "__main__":
    main()
