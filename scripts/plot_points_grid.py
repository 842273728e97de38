#!/usr/bin/env python3
"""Draw estuary_points_bench reports (run-gpu-bench.sh points) into one PNG.

Usage: plot_points_grid.py OUT.png REPORT [REPORT ...]

A REPORT is a --json report, or the log run-gpu-bench.sh points writes (bench-points.log: one line
per configuration, every resolution and mode), for when not every report came back.

Three panels over the point count: frames per second uncapped, energy per frame uncapped, and
energy per frame at a 60 fps cap; one line per resolution and mode (pipelined solid, serialized
dashed). Exit codes: 0 drawn; 1 the PNG could not be written; 2 bad arguments or an unreadable
report; 3 matplotlib is missing (Debian: python3-matplotlib).
"""
import json
import os
import re
import sys

LINE = re.compile(r"^(pipelined|serialized) (\d+)x(\d+) \w+ +(\d+) points, cap +([\d.]+): +([\d.]+) fps, "
                  r"CUDA ([\d.na]+) ms, draw ([\d.na]+) ms, p99/p50 ([\d.na]+), ([\d.na]+) W, "
                  r"([\d.na]+) J/frame")


def reports_from_log(path):
    """The log's lines as reports, one per resolution and mode."""
    reports = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            mode, w, h = m.group(1), int(m.group(2)), int(m.group(3))
            report = reports.setdefault((mode, w, h), {"device": "NVIDIA H100 80GB HBM3",
                                                       "width": w, "height": h, "mode": mode,
                                                       "results": []})
            number = lambda g: float(g) if g != "nan" else None
            report["results"].append({"points": int(m.group(4)), "fps_cap": float(m.group(5)),
                                      "fps": number(m.group(6)),
                                      "joules_per_frame": number(m.group(11))})
    return list(reports.values())


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_points_grid.py: matplotlib is missing", file=sys.stderr)
        return 3
    reports = []
    for path in argv[2:]:
        try:
            if path.endswith(".log"):
                reports.extend(reports_from_log(path))
            else:
                with open(path) as f:
                    reports.append(json.load(f))
        except (OSError, ValueError) as e:
            print(f"plot_points_grid.py: cannot read {path}: {e}", file=sys.stderr)
            return 2
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    panels = [(0, "fps", "frames per second (uncapped)"),
              (0, "joules_per_frame", "J per frame (uncapped)"),
              (60, "joules_per_frame", "J per frame at a 60 fps cap")]
    colours = {}
    for report in reports:
        resolution = f'{report["width"]}x{report["height"]}'
        colour = colours.setdefault(resolution, f"C{len(colours)}")
        style = "-" if report["mode"] == "pipelined" else "--"
        for ax, (cap, key, title) in zip(axes, panels):
            rows = [r for r in report["results"] if r["fps_cap"] == cap and r[key] is not None]
            ax.plot([r["points"] for r in rows], [r[key] for r in rows], style, color=colour,
                    marker="o", label=f'{resolution} {report["mode"]}')
            ax.set_title(title)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("points")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    if not reports:
        print("plot_points_grid.py: no results in the reports", file=sys.stderr)
        return 2
    fig.suptitle(f'estuary points view, {reports[0]["device"]} (estuary_points_bench)')
    fig.tight_layout()
    out = argv[1]
    try:
        fig.savefig(out + ".tmp.png", dpi=90)
        os.replace(out + ".tmp.png", out)
    except OSError as e:
        print(f"plot_points_grid.py: cannot write {out}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
