#!/usr/bin/env python3
"""Draw `estuary --bench` results into one PNG.

Usage: plot_bench.py OUT.png REPORT.json [REPORT.json ...] [--csv FILE.csv ...]

One row per mode of each report. With a per-frame CSV (the i-th --csv belongs to the i-th report)
a row holds a frame-time histogram, clipped at p99.9, and a frame-time timeline. Without one it
holds bar charts of the report's frame-time percentiles and GPU segment percentiles.

Exit codes: 0 drawn; 1 the PNG could not be written; 2 bad arguments or an unreadable or invalid
input file; 3 matplotlib is missing (Debian: apt install python3-matplotlib, which
scripts/install-deps.sh does).
"""
import argparse
import csv
import json
import math
import os
import sys

PERCENTILES = [("min", "min"), ("p50", "p50"), ("p90", "p90"), ("p95", "p95"),
               ("p99", "p99"), ("p99.9", "p99_9"), ("max", "max")]
SEGMENTS = [("simulation", "sim_ms"), ("render", "render_ms"), ("interop_wait", "wait_ms")]


def fail(message, code=2):
    print(f"plot_bench.py: error: {message}", file=sys.stderr)
    sys.exit(code)


def load_report(path):
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except OSError as e:
        fail(f"cannot read report {path}: {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        fail(f"{path} is not valid JSON: {e}")
    modes = report.get("modes") if isinstance(report, dict) else None
    if not isinstance(modes, list) or not all(
            isinstance(m, dict) and isinstance(m.get("mode"), str)
            and isinstance(m.get("frame_time_ms"), dict) for m in modes):
        fail(f"{path} is not an estuary bench report (needs a 'modes' list with "
             "'mode' and 'frame_time_ms' in each)")
    return report


def load_csv(path):
    """{mode: {column: [float, ...]}}; an empty field is NaN (not measured)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"cannot read CSV {path}: {e.strerror}")
    except (csv.Error, UnicodeDecodeError) as e:
        fail(f"{path} is not a valid CSV: {e}")
    columns = ["frame", "frame_ms"] + [column for _, column in SEGMENTS]
    by_mode = {}
    for line, row in enumerate(rows, start=2):
        if row.get("mode") is None or row.get("frame_ms") is None:
            fail(f"{path}:{line}: needs the columns mode,frame,frame_ms (see bench_report.h)")
        series = by_mode.setdefault(row["mode"], {column: [] for column in columns})
        for column in columns:
            text = row.get(column) or ""
            try:
                series[column].append(float(text) if text else math.nan)
            except ValueError:
                fail(f"{path}:{line}: {column} is not a number: {text!r}")
    return by_mode


def finite(values):
    return [v for v in values if v is not None and math.isfinite(v)]


def nearest_rank(sorted_values, p):
    rank = max(1, math.ceil(p * len(sorted_values) / 100.0 - 1e-9))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def mode_title(label, mode):
    fps, low = mode.get("fps_mean"), mode.get("one_percent_low_fps")
    if fps is None:
        return label
    text = f"{label}: {fps:.1f} fps mean"
    return text + (f", 1% low {low:.1f}" if low is not None else "")


def draw_nothing(axes, mode):
    for ax in axes:
        ax.text(0.5, 0.5, "no frames measured" + (f"\n{mode['note']}" if mode.get("note") else ""),
                ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()


def histogram_bins(values, clip):
    """Freedman-Diaconis width from the body of the distribution, so a few slow frames do not
    squeeze every ordinary frame into one bar."""
    iqr = nearest_rank(values, 75) - nearest_rank(values, 25)
    span = clip - values[0]
    if iqr <= 0 or span <= 0:
        return 30
    width = 2 * iqr / len(values) ** (1 / 3)
    return max(10, min(400, math.ceil(span / width)))


def draw_histogram(ax, title, frame_ms):
    values = sorted(finite(frame_ms))
    p50, p99, clip = (nearest_rank(values, p) for p in (50, 99, 99.9))
    shown = [v for v in values if v <= clip]
    ax.hist(shown, bins=histogram_bins(values, clip),
            range=(values[0], clip) if clip > values[0] else None, color="#4c72b0")
    ax.set_yscale("log")  # single slow frames stay visible next to the body
    ax.axvline(p50, color="black", lw=1, label=f"p50 {p50:.3f} ms")
    ax.axvline(p99, color="black", lw=1, ls="--", label=f"p99 {p99:.3f} ms")
    if 2 * p50 <= clip:
        ax.axvline(2 * p50, color="#c44e52", lw=1, ls=":", label="hitch threshold (2 x p50)")
    hidden = len(values) - len(shown)
    ax.plot([], [], " ", label=f"{hidden} frame(s) > p99.9 not shown")
    ax.set(title=title + " - histogram", xlabel="frame time (ms), clipped at p99.9",
           ylabel="frames (log)")
    ax.legend(fontsize=7)


def draw_timeline(ax, title, series):
    frames = series["frame"]
    ax.plot(frames, series["frame_ms"], lw=0.9, color="#4c72b0", label="frame")
    for (name, column), color in zip(SEGMENTS, ("#55a868", "#dd8452", "#8172b3")):
        if finite(series[column]):
            ax.plot(frames, series[column], lw=0.6, color=color, label=name)
    values = sorted(finite(series["frame_ms"]))
    threshold = 2 * nearest_rank(values, 50)
    hitches = [(f, v) for f, v in zip(frames, series["frame_ms"]) if v > threshold]
    if hitches:
        ax.plot(*zip(*hitches), "x", color="#c44e52", ms=5, label=f"{len(hitches)} hitch(es)")
    top = max(finite(series["frame_ms"]) + [v for _, c in SEGMENTS for v in finite(series[c])])
    ax.set_ylim(0, top * 1.35)  # headroom for the legend above the slowest frame
    ax.set(title=title + " - timeline", xlabel="frame", ylabel="ms")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper right", ncol=2)


def label_bars(ax, bars):
    for bar in bars:
        height = bar.get_height()
        if height > 0:
            ax.annotate(f"{height:.3g}", (bar.get_x() + bar.get_width() / 2, height),
                        ha="center", va="bottom", fontsize=7)


def draw_percentile_bars(ax, title, mode):
    summary = mode["frame_time_ms"]
    values = [summary.get(key) or 0.0 for _, key in PERCENTILES]
    label_bars(ax, ax.bar([name for name, _ in PERCENTILES], values, color="#4c72b0"))
    ax.set(title=title + " - frame-time percentiles", ylabel="frame time (ms)")
    ax.grid(axis="y", alpha=0.3)


def draw_segment_bars(ax, title, mode):
    segments = mode.get("gpu_segments_ms") or {}
    width = 0.27
    for i, (stat, color) in enumerate(zip(("p50", "p95", "p99"), ("#55a868", "#dd8452", "#c44e52"))):
        values = [(segments.get(name) or {}).get(stat) or 0.0 for name, _ in SEGMENTS]
        xs = [x + (i - 1) * width for x in range(len(SEGMENTS))]
        label_bars(ax, ax.bar(xs, values, width, label=stat, color=color))
    for x, (name, _) in enumerate(SEGMENTS):
        if (segments.get(name) or {}).get("p50") is None:
            ax.annotate("not measured", (x, 0), ha="center", va="bottom", fontsize=8)
    ax.set_xticks(range(len(SEGMENTS)), [name for name, _ in SEGMENTS])
    ax.set(title=title + " - GPU segments", ylabel="ms")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7)


def figure_title(reports):
    def distinct(values):
        return " / ".join(dict.fromkeys(v for v in values if v)) or "unknown"
    gpus = distinct(r.get("environment", {}).get("gpu_name") for r in reports)
    grids = distinct("{} {}x{}, {} steps/frame".format(c.get("simulation", "gray-scott"),
                                                        c.get("width"), c.get("height"),
                                                        c.get("steps_per_frame"))
                     for c in (r.get("configuration", {}) for r in reports))
    dates = distinct(r.get("environment", {}).get("date") for r in reports)
    # schema_version 3: a run stopped by a signal holds fewer frames than configured.
    stopped = " - interrupted" if any(r.get("interrupted") for r in reports) else ""
    return f"estuary bench - {gpus} - {grids} - {dates}{stopped}"


def ratio_lines(reports):
    lines = []
    for index, report in enumerate(reports):
        ratios = report.get("ratios") or {}
        prefix = f"report {index + 1}: " if len(reports) > 1 else ""
        lines.append(prefix + "   ".join(f"{key.replace('_fps', '').replace('_vs_', ' vs ')}: {value:.2f}x fps"
                               for key, value in ratios.items() if value is not None))
    return [line for line in lines if not line.endswith(": ") and line]


def main():
    parser = argparse.ArgumentParser(description="Draw estuary --bench results into one PNG.")
    parser.add_argument("out", help="PNG to write")
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("--csv", nargs="+", action="extend", default=[], metavar="FILE.csv",
                        help="per-frame CSV; the i-th belongs to the i-th report")
    args = parser.parse_args()
    if len(args.csv) > len(args.reports):
        fail(f"{len(args.csv)} CSV files for {len(args.reports)} report(s)")

    reports = [load_report(path) for path in args.reports]
    per_frame = [load_csv(path) for path in args.csv] + [None] * (len(reports) - len(args.csv))
    rows = []
    for index, (report, frames) in enumerate(zip(reports, per_frame)):
        for mode in report["modes"]:
            label = mode["mode"] if len(reports) == 1 else f"{mode['mode']} (report {index + 1})"
            rows.append((label, mode, (frames or {}).get(mode["mode"])))
    if not rows:
        fail("the report(s) hold no modes to plot")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("matplotlib is missing: install python3-matplotlib (scripts/install-deps.sh does) "
             "and run this with /usr/bin/python3", code=3)

    plt.rcParams["axes.titlesize"] = 10
    fig, axes = plt.subplots(len(rows), 2, figsize=(14, 3.4 * len(rows) + 1.0), squeeze=False)
    for (label, mode, series), row_axes in zip(rows, axes):
        title = mode_title(label, mode)
        if series is not None and finite(series["frame_ms"]):
            draw_histogram(row_axes[0], title, series["frame_ms"])
            draw_timeline(row_axes[1], title, series)
        elif mode["frame_time_ms"].get("p50") is not None:
            draw_percentile_bars(row_axes[0], title, mode)
            draw_segment_bars(row_axes[1], title, mode)
        else:
            draw_nothing(row_axes, mode)
    fig.suptitle(figure_title(reports), fontsize=12)
    notes = ratio_lines(reports)
    if notes:
        fig.text(0.5, 0.005, "\n".join(notes), ha="center", va="bottom", fontsize=9)
    fig.tight_layout(rect=(0, 0.02 + 0.015 * len(notes), 1, 0.97))
    try:
        if os.path.dirname(args.out):
            os.makedirs(os.path.dirname(args.out), exist_ok=True)
        fig.savefig(args.out, dpi=100)
    except OSError as e:
        fail(f"cannot write {args.out}: {e.strerror}", code=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
