#!/usr/bin/env python3
"""Draw an `estuary --trace` file as a PNG timeline.

Usage: plot_trace.py OUT.png TRACE.json [--part NAME] [--frames FIRST:LAST] [--title TEXT]

One lane per track of the chosen part (a headless run, or one benchmark mode, named by --part;
default the first): the GPU's CUDA stream and Vulkan queue, the host's frame loop and, for
simulations that run on the host, their own lane. The window spans the chosen frames (default:
six frames from the middle of the part); every span overlapping it is drawn, coloured by what it
is, with the frame index on spans wide enough to hold it and an arrow from each frame's output
write to its draw. The title states how well the clocks were aligned (the trace's otherData).

Exit codes: 0 drawn; 1 the PNG could not be written; 2 bad arguments, an unreadable or invalid
trace, or a window holding no span; 3 matplotlib is missing (Debian: apt install
python3-matplotlib, which scripts/install-deps.sh does).
"""
import argparse
import json
import math
import os
import sys
import tempfile

COLORS = {
    "steps": "#2ca02c",
    "wait for Vulkan's release": "#bbbbbb",
    "write outputs": "#98df8a",
    "draw": "#1f77b4",
    "frame": "#eeeeee",
    "frames-in-flight wait": "#d62728",
    "simulate": "#8fbc8f",
    "simulate (CUDA enqueue)": "#8fbc8f",
    "record": "#9467bd",
    "vkQueueSubmit2": "#ff7f0e",
}
OTHER_COLORS = ["#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
BACKGROUND = {"frame"}  # drawn behind the spans nested in it, on the same lane


def fail(message, code=2):
    print(f"plot_trace.py: error: {message}", file=sys.stderr)
    sys.exit(code)


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load_trace(path):
    try:
        with open(path, encoding="utf-8") as f:
            trace = json.load(f)
    except OSError as e:
        fail(f"cannot read trace {path}: {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        fail(f"{path} is not valid JSON: {e}")
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list) or not all(isinstance(e, dict) and "ph" in e for e in events):
        fail(f"{path} is not a trace (needs a 'traceEvents' list of events with 'ph')")
    for index, e in enumerate(events):
        if e["ph"] == "X" and not (number(e.get("ts")) and number(e.get("dur"))
                                   and isinstance(e.get("name"), str)):
            fail(f"{path}: traceEvents[{index}] is a complete event without a name, ts or dur")
    return trace


def tracks(events):
    """Names and sort indices of processes and threads, from the "M" events."""
    names, order = {}, {}
    for e in events:
        if e["ph"] != "M":
            continue
        key = e.get("pid") if e.get("name", "").startswith("process") else (e.get("pid"), e.get("tid"))
        args = e.get("args") or {}
        if e.get("name") in ("process_name", "thread_name"):
            names[key] = str(args.get("name"))
        elif e.get("name") in ("process_sort_index", "thread_sort_index"):
            order[key] = args.get("sort_index", 0)
    return names, order


def part_pids(trace, names, part):
    """The processes of one part: all of them when the trace has one part."""
    parts = [p.get("name") for p in (trace.get("otherData") or {}).get("parts", [])
             if isinstance(p, dict)]
    if part is None:
        part = parts[0] if parts else None
    elif part not in parts:
        fail(f"the trace has no part '{part}' (parts: {', '.join(map(str, parts)) or 'none'})")
    pids = {e.get("pid") for e in trace["traceEvents"]}
    if len(parts) > 1:
        pids = {pid for pid in pids if str(names.get(pid, "")).endswith(f" ({part})")}
    return part, pids


def parse_window(text):
    try:
        first, last = (int(v) for v in text.split(":"))
    except ValueError:
        fail(f"--frames {text!r} is not FIRST:LAST (two frame indices, e.g. 100:105)")
    if first < 0 or last < first:
        fail(f"--frames {text}: needs 0 <= FIRST <= LAST")
    return first, last


def frame_of(event):
    frame = (event.get("args") or {}).get("frame")
    return frame if isinstance(frame, int) else None


def default_window(spans):
    frames = sorted({frame_of(e) for e in spans if frame_of(e) is not None})
    if not frames:
        fail("the trace's spans carry no frame index (args.frame)")
    start = max(0, len(frames) // 2 - 3)
    return frames[start], frames[min(len(frames) - 1, start + 5)]


def alignment_text(trace, part):
    for p in (trace.get("otherData") or {}).get("parts", []):
        if not isinstance(p, dict) or p.get("name") != part:
            continue
        alignment = p.get("alignment") or {}
        words = []
        for key, label in (("vulkan", "Vulkan"), ("simulation", "simulation")):
            value = alignment.get(key)
            if isinstance(value, dict) and number(value.get("error_us")):
                words.append(f"{label} clock aligned within ±{value['error_us']:.2f} µs")
            elif value == "host clock":
                words.append(f"{label} on the host clock")
        return "; ".join(words)
    return ""


def main():
    parser = argparse.ArgumentParser(description="Draw an estuary --trace file as a PNG timeline.")
    parser.add_argument("out", help="PNG to write")
    parser.add_argument("trace", metavar="TRACE.json")
    parser.add_argument("--part", help="the part to draw: 'headless', or a benchmark mode")
    parser.add_argument("--frames", metavar="FIRST:LAST", help="the frames the window spans")
    parser.add_argument("--title", help="the figure's title (default: the trace and the window)")
    args = parser.parse_args()

    trace = load_trace(args.trace)
    events = trace["traceEvents"]
    names, order = tracks(events)
    part, pids = part_pids(trace, names, args.part)
    spans = [e for e in events if e["ph"] == "X" and e.get("pid") in pids]
    if not spans:
        fail(f"{args.trace} holds no complete events" + (f" for part '{part}'" if part else ""))
    first, last = parse_window(args.frames) if args.frames else default_window(spans)
    chosen = [e for e in spans if frame_of(e) is not None and first <= frame_of(e) <= last]
    if not chosen:
        fail(f"no span of frames {first}..{last} in the trace")
    start = min(e["ts"] for e in chosen)
    end = max(e["ts"] + e["dur"] for e in chosen)
    pad = 0.03 * (end - start or 1.0)
    start, end = start - pad, end + pad
    shown = [e for e in spans if e["ts"] <= end and e["ts"] + e["dur"] >= start]

    lanes = sorted({(e.get("pid"), e.get("tid")) for e in shown},
                   key=lambda k: (order.get(k[0], 0), k[0], order.get(k, 0), k[1]))
    lane_of = {key: index for index, key in enumerate(lanes)}

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        fail("matplotlib is missing: install python3-matplotlib (scripts/install-deps.sh does) "
             "and run this with /usr/bin/python3", code=3)

    colors = dict(COLORS)
    for name in sorted({e["name"] for e in shown} - set(colors)):
        colors[name] = OTHER_COLORS[len(colors) % len(OTHER_COLORS)]
    width_ms = (end - start) / 1000.0
    fig, ax = plt.subplots(figsize=(14, 1.2 + 0.75 * len(lanes)))
    for e in sorted(shown, key=lambda e: e["name"] not in BACKGROUND):
        y = len(lanes) - 1 - lane_of[(e.get("pid"), e.get("tid"))]
        height = 0.8 if e["name"] in BACKGROUND else 0.55
        left, width = (e["ts"] - start) / 1000.0, e["dur"] / 1000.0
        ax.broken_barh([(left, max(width, width_ms / 2000.0))], (y - height / 2, height),
                       facecolors=colors[e["name"]], edgecolor="#555555", linewidth=0.3,
                       zorder=1 if e["name"] in BACKGROUND else 2)
        frame = frame_of(e)
        middle = left + width / 2
        if frame is not None and width > 0.035 * width_ms and e["name"] not in BACKGROUND \
                and 0.01 * width_ms < middle < 0.99 * width_ms:
            ax.text(middle, y, str(frame), ha="center", va="center", fontsize=7, zorder=3,
                    clip_on=True)

    flows = {}
    for e in events:
        if e["ph"] in ("s", "f") and e.get("pid") in pids and number(e.get("ts")):
            flows.setdefault((e.get("cat"), e.get("id")), {})[e["ph"]] = e
    for pair in flows.values():
        s, f = pair.get("s"), pair.get("f")
        if not s or not f or (s.get("pid"), s.get("tid")) not in lane_of \
                or (f.get("pid"), f.get("tid")) not in lane_of:
            continue
        if not (start <= s["ts"] <= end and start <= f["ts"] <= end):
            continue
        ys = len(lanes) - 1 - lane_of[(s.get("pid"), s.get("tid"))]
        yf = len(lanes) - 1 - lane_of[(f.get("pid"), f.get("tid"))]
        ax.annotate("", xy=((f["ts"] - start) / 1000.0, yf), xytext=((s["ts"] - start) / 1000.0, ys),
                    arrowprops={"arrowstyle": "->", "color": "#333333", "linewidth": 0.7},
                    zorder=4)

    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels([f"{names.get(pid, pid)} / {names.get((pid, tid), tid)}"
                        for pid, tid in reversed(lanes)], fontsize=9)
    ax.set_ylim(-0.7, len(lanes) - 0.3)
    ax.set_xlim(0, width_ms)
    ax.set_xlabel(f"ms from {start / 1000.0:.3f} ms into the run")
    ax.grid(axis="x", linestyle=":", linewidth=0.5)
    legend = [Patch(facecolor=colors[name], edgecolor="#555555", label=name)
              for name in colors if any(e["name"] == name for e in shown)]
    ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.18 - 0.1 / len(lanes)),
              ncol=min(5, len(legend)), fontsize=8, frameon=False)
    title = args.title or (f"{os.path.basename(args.trace)}" + (f", {part}" if part else "")
                           + f": frames {first}-{last}")
    detail = alignment_text(trace, part)
    ax.set_title(title + (f"\n{detail}" if detail else ""), fontsize=10)
    fig.tight_layout()

    # Written beside the target and renamed over it, so a failed write leaves no half a PNG.
    folder = os.path.dirname(os.path.abspath(args.out))
    temporary = None
    try:
        os.makedirs(folder, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".plot_trace-", suffix=".png", dir=folder)
        with os.fdopen(handle, "wb") as f:
            fig.savefig(f, format="png", dpi=100)
        os.replace(temporary, args.out)
    except OSError as e:
        if temporary and os.path.exists(temporary):
            os.unlink(temporary)
        fail(f"cannot write {args.out}: {e.strerror}", code=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
