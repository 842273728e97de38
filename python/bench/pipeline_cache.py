"""The pipeline cache's warm start: a viewer with a field, a volume, points, markers, lines and a mesh
view made `runs` times against one cache folder (ESTUARY_CACHE_DIR, a fresh temporary folder), the
first cold. Prints, per run, the pipelines made, the cache's hits, the milliseconds spent making
pipelines and the bytes the cache file gave; the warm runs' median over the cold run's is the gain.

    python3 pipeline_cache.py [runs]      (default: 4)

Each run is a process of its own, so nothing but the cache file carries over. Speed is reported,
not asserted."""
import json
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import json, sys
import numpy as np
import estuary
v = estuary.Viewer(display="headless", width=640, height=480, cuda="off")
field = v.image((64, 64))
volume = v.image((16, 16, 16))
points = v.buffer((256, 4))
markers = v.buffer((256, 8))
vertices = v.buffer((300, 4))
v.field_view(field)
v.volume_view(volume)
v.points_view(points)
v.markers_view(markers)
v.lines_view(vertices)
v.mesh_view(vertices)
m = v.metrics()
print(json.dumps({k: m[k] for k in ("pipelines_created", "pipeline_cache_hits",
                                     "pipeline_create_ms", "pipeline_cache_loaded_bytes")}))
v.close()
"""


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, ESTUARY_CACHE_DIR=cache, ESTUARY_PIPELINE_CACHE="1")
        results = []
        for run in range(runs):
            child = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True,
                                   text=True)
            if child.returncode != 0:
                sys.exit(f"pipeline_cache.py: run {run} failed ({child.returncode}):\n"
                         f"{child.stderr}")
            result = json.loads(child.stdout.strip().splitlines()[-1])
            results.append(result)
            print(("cold" if run == 0 else "warm"), json.dumps(result), flush=True)
        warm = sorted(r["pipeline_create_ms"] for r in results[1:])
        if warm:
            median = warm[len(warm) // 2]
            cold = results[0]["pipeline_create_ms"]
            print(f"pipelines {results[0]['pipelines_created']}: cold {cold:.2f} ms, warm median "
                  f"{median:.2f} ms ({cold / median if median > 0 else float('inf'):.1f}x)")


if __name__ == "__main__":
    main()
