"""The Python side of binding_cost.py's frame loop, on the CPU alone: the package's own work per
frame (attribute lookups, checks, ctypes calls and their argument conversion, objects made) with
libestuary replaced by a stub whose functions return at once, so that the number depends neither
on a GPU nor on lavapipe's speed. Two packages are timed against each other in alternating child
processes: the one of a git revision (OLD, default the package before its per-frame path was cut)
and the one of this checkout (NEW).

Each loop is binding_cost.py's "binding" loop (begin on a stream object of the program's own, the
frame's device pointer of a 64k-point buffer, a cudaMemsetAsync through ctypes, `show` of a bare
__cuda_array_interface__ object into a 512x512 image, end), besides "bare" (begin and end),
"tensor" (`show` of an object with PyTorch's tensor attributes: is_cuda, data_ptr, dtype),
"cai" and "dlpack" (the binding loop with the frame's array exported as torch.as_tensor and
torch.from_dlpack ask it: its __cuda_array_interface__ read, or a __dlpack__ capsule made and let
go, PyTorch's own work left out) and "host" (a host buffer's NumPy array written, a NumPy array
shown into a host image). Reported per frame, p50 over the frames after the first tenth, the
median of the repeats:
  loop_us     the whole frame in Python (what a frame's Python costs the program)
  in_busy_us  from begin_frame's return to end_frame's call (what estuary's host busy time, and so
              binding_cost.py's difference to C++, sees of it)
--evict KB makes the stub's begin_frame and end_frame walk KB of memory of their own (outside
the in-busy window), as a driver's work between the binding's calls does: the loop then runs
with the caches the real library leaves it, which is where a GPU machine's difference to C++
comes from (the Python side measured warm is a few µs, against C++ on an H100 it was tens).
Needs a C compiler (cc) and git, or --stub (a stub built before, with --keep-stub) and
--old-package (a folder holding the old estuary/). Prints a table and one JSON line per loop.
    python3 binding_host_cost.py [--frames N] [--repeats N] [--old REV | --old-package DIR]
                                 [--stub LIB | --keep-stub LIB] [--evict KB]"""
import argparse
import ctypes
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_OLD = "43a7879"  # main before the binding's per-frame path was cut (issue 37, item 5)
LOOPS = ("bare", "binding", "tensor", "cai", "dlpack", "host")
BUFFER_BYTES = 1 << 20  # 64k points of 4 floats, as binding_cost.py

# The stub's functions that must hand something back; every other one returns 0 (OK).
_SPECIAL = r"""
#include <stdint.h>
#include <string.h>
#include <time.h>
static uint64_t frames, begun_ns, ending_ns;
static char host_memory[%(buffer_bytes)d];
/* What a driver's calls do to the caches: EVICT_BYTES of memory written, a line at a time. */
static volatile unsigned char evicted[%(evict_bytes)d + 64];
static void evict(void) {
    for (unsigned long i = 0; i < %(evict_bytes)dul; i += 64) evicted[i]++;
}
static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
static int handle_out(void** out) {
    static uintptr_t next = 0x1000;
    *out = (void*)(next += 16);
    return 0;
}
uint32_t estuary_version(void) { return (0u << 22) | (3u << 12) | 0xFFFu; }
const char* estuary_last_error(void) { return "stub"; }
int estuary_create_viewer(const void* desc, void** out) { return handle_out(out); }
int estuary_destroy_viewer(void* viewer, uint32_t* messages) {
    if (messages) *messages = 0;
    return 0;
}
int estuary_get_viewer_info(void* viewer, char* info) {
    *(int*)(info + %(has_cuda)d) = 1;
    *(int*)(info + %(headless)d) = 1;
    *(uint32_t*)(info + %(frames_in_flight)d) = 2;
    return 0;
}
/* An image's or buffer's handle carries its writer (1 CUDA, 2 host) in its low bits. */
int estuary_create_image(void* viewer, const char* desc, void** out) {
    handle_out(out);
    *out = (char*)*out + *(const int*)(desc + %(image_desc_writer)d);
    return 0;
}
int estuary_create_buffer(void* viewer, const char* desc, void** out) {
    handle_out(out);
    *out = (char*)*out + *(const int*)(desc + %(buffer_desc_writer)d);
    return 0;
}
int estuary_get_image_info(void* image, char* info) {
    *(uint32_t*)(info + %(image_levels)d) = 1;
    *(uint32_t*)(info + %(image_copies)d) = 2;
    *(int*)(info + %(image_writer)d) = (uintptr_t)image & 3;
    return 0;
}
int estuary_get_image_level_bytes(void* image, uint32_t level, uint64_t* bytes) {
    *bytes = 512 * 512 * 4;
    return 0;
}
int estuary_get_buffer_info(void* buffer, char* info) {
    *(uint64_t*)(info + %(buffer_size)d) = %(buffer_bytes)d;
    *(uint32_t*)(info + %(buffer_copies)d) = 2;
    *(int*)(info + %(buffer_writer)d) = (uintptr_t)buffer & 3;
    return 0;
}
int estuary_add_field_view(void* viewer, const void* desc, void** out) { return handle_out(out); }
int estuary_add_points_view(void* viewer, const void* desc, void** out) { return handle_out(out); }
int estuary_begin_frame(void* viewer, const void* desc, void** out) {
    *out = (void*)(uintptr_t)(0x100000 + 16 * (frames++ %% 2));
    evict();
    begun_ns = now_ns();
    return 0;
}
int estuary_end_frame(void* frame) {
    ending_ns = now_ns();
    evict();
    return 0;
}
uint64_t estuary_frame_index(const void* frame) { return frames - 1; }
void* estuary_frame_stream(const void* frame) { return 0; }
int estuary_frame_device_pointer(void* frame, void* buffer, void** out) {
    *out = (void*)(uintptr_t)0x7f0000000000u;
    return 0;
}
int estuary_frame_host_pointer(void* frame, void* buffer, void** out) {
    *out = host_memory;
    return 0;
}
int estuary_next_frame_stats(void* viewer, void* stats) { return 4; /* NOT_READY */ }
int stub_memset_async(void* pointer, int value, size_t bytes, void* stream) { return 0; }
uint64_t stub_in_busy_ns(void) { return ending_ns - begun_ns; }
"""


def build_stub(folder, evict_kb=0):
    """libestuary's stub, its struct offsets taken from this checkout's _capi (the ABI test keeps
    them equal to estuary.h's), compiled into `folder`; its begin and end evict `evict_kb` KB."""
    import importlib
    import types
    package = types.ModuleType("estuary")  # _capi alone: the package's __init__ loads libestuary
    package.__path__ = [str(REPO / "python" / "estuary")]
    sys.modules["estuary"] = package
    _capi = importlib.import_module("estuary._capi")
    del sys.modules["estuary"], sys.modules["estuary._capi"], sys.modules["estuary._errors"]
    names = list(_capi._PROTOTYPES)
    offsets = {"has_cuda": _capi.ViewerInfo.has_cuda.offset,
               "headless": _capi.ViewerInfo.headless.offset,
               "frames_in_flight": _capi.ViewerInfo.frames_in_flight.offset,
               "image_levels": _capi.ImageInfo.levels.offset,
               "image_copies": _capi.ImageInfo.copies.offset,
               "image_writer": _capi.ImageInfo.writer.offset,
               "image_desc_writer": _capi.ImageDesc.writer.offset,
               "buffer_desc_writer": _capi.BufferDesc.writer.offset,
               "buffer_size": _capi.BufferInfo.size.offset,
               "buffer_copies": _capi.BufferInfo.copies.offset,
               "buffer_writer": _capi.BufferInfo.writer.offset, "buffer_bytes": BUFFER_BYTES,
               "evict_bytes": evict_kb * 1024}
    special = _SPECIAL % offsets
    rest = "".join(f"int {n}(void) {{ return 0; }}\n" for n in names
                   if f" {n}(" not in special)
    (folder / "special.c").write_text(special)
    (folder / "rest.c").write_text(rest)
    library = folder / "libestuary_stub.so"
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(library), str(folder / "special.c"),
                    str(folder / "rest.c")], check=True)
    return library


def export_package(revision, folder):
    """python/estuary of git revision `revision`, unpacked under `folder`; its parent folder."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision, "python/estuary"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "python"


# -- the child: one package, every loop


class Stream:
    """A stream object as PyTorch's: its handle in .cuda_stream."""
    cuda_stream = 0x5000


class Bare:
    """CUDA memory described by nothing but __cuda_array_interface__, as binding_cost.py's."""

    def __init__(self, pointer, shape):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f4", "version": 3,
                                         "data": (pointer, False), "strides": None,
                                         "stream": None}


class TorchDtype:
    def __str__(self):
        return "torch.float32"


class TensorLike:
    """The attributes of a PyTorch CUDA tensor that the binding reads (not PyTorch's costs)."""
    is_cuda = True
    dtype = TorchDtype()

    def __init__(self, pointer, shape):
        self._pointer, self.shape = pointer, shape

    def data_ptr(self):
        return self._pointer

    def is_contiguous(self):
        return True


def child(package, library, frames):
    import time

    import numpy as np
    os.environ["ESTUARY_LIBRARY"] = str(library)
    sys.path.insert(0, str(package))
    import estuary
    stub = ctypes.CDLL(str(library))
    memset = stub.stub_memset_async
    memset.restype = ctypes.c_int
    memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
    in_busy = stub.stub_in_busy_ns
    in_busy.restype = ctypes.c_uint64
    clock = time.perf_counter_ns
    results = {}
    for loop in LOOPS:
        viewer = estuary.Viewer(display="headless", cuda="required", frames_in_flight=2)
        field = viewer.image((512, 512), writer="cuda", name="field")
        host_field = viewer.image((512, 512), writer="host", name="host field")
        points = viewer.buffer((1 << 16, 4), writer="cuda", name="points")
        host_points = viewer.buffer((1 << 16, 4), writer="host", name="host points")
        assert (field.writer, host_field.writer) == ("cuda", "host"), "the stub's writers"
        assert (points.writer, host_points.writer) == ("cuda", "host"), "the stub's writers"
        viewer.field_view(field)
        viewer.points_view(points)
        stream, bare = Stream(), Bare(0x7f0000100000, (512, 512))
        tensor, picture = TensorLike(0x7f0000100000, (512, 512)), np.zeros((512, 512), np.float32)
        whole, inside = [], []
        for index in range(frames):
            t0 = clock()
            frame = viewer.frame(stream=stream)
            if loop == "binding":
                array = frame.buffer(points)
                memset(array.ptr, 0, points.nbytes, frame.stream)
                frame.show(field, bare)
            elif loop == "tensor":
                array = frame.buffer(points)
                memset(array.ptr, 0, points.nbytes, frame.stream)
                frame.show(field, tensor)
            elif loop == "cai":
                array = frame.buffer(points)
                memset(array.__cuda_array_interface__["data"][0], 0, points.nbytes, frame.stream)
                frame.show(field, bare)
            elif loop == "dlpack":
                array = frame.buffer(points)
                array.__dlpack__(stream=frame.stream)  # made and let go, unconsumed
                memset(array.ptr, 0, points.nbytes, frame.stream)
                frame.show(field, bare)
            elif loop == "host":
                frame.buffer(host_points)[0, 0] = index
                frame.show(host_field, picture)
            frame.end()
            t1 = clock()
            if index >= frames // 10:
                whole.append((t1 - t0) / 1000)
                inside.append(in_busy() / 1000)
        viewer.close()
        results[loop] = {"loop_us": statistics.median(whole),
                         "in_busy_us": statistics.median(inside)}
    print(json.dumps(results))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--old", default=DEFAULT_OLD, help="git revision of the old package")
    parser.add_argument("--old-package", help="a folder holding the old estuary/ instead")
    parser.add_argument("--stub", help="a stub library built before (--keep-stub)")
    parser.add_argument("--keep-stub", help="where to copy the stub library built")
    parser.add_argument("--evict", type=int, default=0,
                        help="KB of memory the stub's begin and end walk (a driver's footprint)")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.frames)
        return
    with tempfile.TemporaryDirectory() as temporary:
        folder = pathlib.Path(temporary)
        library = pathlib.Path(args.stub) if args.stub else build_stub(folder, args.evict)
        if args.keep_stub:
            shutil.copyfile(library, args.keep_stub)
        old = (pathlib.Path(args.old_package) if args.old_package else
               export_package(args.old, folder))
        packages = {"old": old, "new": REPO / "python"}
        runs = {side: [] for side in packages}
        for _ in range(args.repeats):  # alternated, so that a busy spell hits both
            for side, package in packages.items():
                done = subprocess.run([sys.executable, __file__, "--frames", str(args.frames),
                                       "--child", str(package), str(library)],
                                      capture_output=True, text=True)
                if done.returncode != 0:
                    sys.exit(f"the {side} package's run failed:\n{done.stderr}")
                runs[side].append(json.loads(done.stdout))
    print(f"Python side per frame, µs (p50 of {args.frames} frames, median of {args.repeats} "
          f"runs; old = {args.old_package or args.old}, new = this checkout; the stub evicts "
          f"{args.evict} KB in begin and end)")
    print(f"{'loop':<10}{'old loop':>10}{'new loop':>10}{'old busy':>10}{'new busy':>10}")
    for loop in LOOPS:
        row = {side: {key: statistics.median(run[loop][key] for run in runs[side])
                      for key in ("loop_us", "in_busy_us")} for side in runs}
        print(f"{loop:<10}{row['old']['loop_us']:>10.2f}{row['new']['loop_us']:>10.2f}"
              f"{row['old']['in_busy_us']:>10.2f}{row['new']['in_busy_us']:>10.2f}")
        print(json.dumps({"loop": loop, "old": args.old_package or args.old, "evict_kb": args.evict,
                          **{f"{side}_{key}": round(value, 2) for side in row
                             for key, value in row[side].items()}}))


if __name__ == "__main__":
    main()
