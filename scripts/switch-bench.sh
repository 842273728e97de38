#!/usr/bin/env bash
# The CUDA <-> Vulkan context switch on the GPU machine (issue #37 item 1), from inside a bundle
# folder (cmake --build build --target bundle), in one go of at most SWITCH_BUDGET (140) seconds:
#   1. estuary_switch_bench: the cost of one switch, and spread over K = 1, 2, 4, 8 items a side
#      (switch.json, switch.log);
#   2. estuary --bench --mode pipelined, gray-scott 1024x1024 at 8 in flight for --handoff-batch
#      1, 2, 4 and 8, at 32 in flight (batch 1 and 32): a JSON report each (bench-TAG.json,
#      bench-TAG.log);
#   3. with --old DIR: the old bundle's estuary at the same sizes and frames in flight, without
#      --handoff-batch (old-TAG.json), for the before/after;
#   4. a trace (--trace, Perfetto) at 1024x1024 for batch 1 and for the batch with the most frames/s
#      (trace-k1.json, trace-kBEST.json), plotted where matplotlib is (scripts/plot_trace.py);
#   5. 4096x4096 at 8 in flight (batch 1 and 8, and the old bundle's), while the budget lasts;
#   6. summary.md and summary.json: K, in flight, frames/s, frame p50/p99, host busy p50 and mean,
#      GPU busy, and the steps that failed, timed out or did not fit the budget.
# Every step runs under `timeout` (SWITCH_STEP_TIMEOUT, 40 s, cut to what the budget has left): a
# stuck step is reported and the next one runs; the summary is always written.
# Usage: ./switch-bench.sh OUT_DIR [--old DIR]
# SWITCH_FRAMES (3000) and SWITCH_WARMUP (300) set each bench run's frames; SWITCH_BACKEND (cuda),
# SWITCH_SIZE (1024x1024), SWITCH_LARGE (4096x4096) and ESTUARY (./estuary) are for trying the
# script where there is no GPU.
set -u
set -o pipefail
usage() {
    echo "usage: $0 OUT_DIR [--old DIR]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
out=$1
shift
old=""
while [ $# -gt 0 ]; do
    case $1 in
    --old)
        [ $# -ge 2 ] || usage
        old=$(cd "$2" && pwd) || { echo "--old $2: no such folder" >&2; exit 2; }
        [ -x "$old/estuary" ] || { echo "--old $2: no estuary in it" >&2; exit 2; }
        shift 2
        ;;
    *) usage ;;
    esac
done
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
bin=${ESTUARY:-./estuary}
frames=${SWITCH_FRAMES:-3000}
warmup=${SWITCH_WARMUP:-300}
backend=${SWITCH_BACKEND:-cuda}
size=${SWITCH_SIZE:-1024x1024}
large=${SWITCH_LARGE:-4096x4096}
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
budget=${SWITCH_BUDGET:-140}
step_timeout=${SWITCH_STEP_TIMEOUT:-40}
status=0
start=$(date +%s)
: >"$out/failed.txt"

# Runs one step under timeout: TAG LOG COMMAND...; the step's limit is step_timeout or what the
# budget has left (keeping 5 s for the summary); with under 5 s left the step is skipped.
step() {
    local tag=$1 log=$2
    shift 2
    local left=$((budget - 5 - ($(date +%s) - start)))
    local limit=$((left < step_timeout ? left : step_timeout))
    if [ "$left" -lt 5 ]; then
        echo "   $tag: skipped, the ${budget} s budget is spent" | tee -a "$out/failed.txt" >&2
        status=1
        return 1
    fi
    local rc=0
    timeout -k 5 "$limit" "$@" >"$log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        local why="exit $rc"
        [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && why="timed out after $limit s"
        echo "$tag: failed ($why)" >>"$out/failed.txt"
        echo "   $tag: failed ($why):" >&2
        tail -5 "$log" >&2
        status=1
        return 1
    fi
    return 0
}

# 1. The switch itself (its own watchdog ends a stage stuck for 15 s with the stage's name).
if [ -x ./estuary_switch_bench ]; then
    echo "== estuary_switch_bench"
    rm -f "$out/switch.json"
    step switch "$out/switch.log" ./estuary_switch_bench --repeats 9 --batches 1,2,4,8 \
        --timeout 15 --json "$out/switch.json"
    cat "$out/switch.log"
else
    echo "no estuary_switch_bench in $here: skipped" | tee "$out/switch.log"
fi

# Runs one benchmark: TAG SIZE IN_FLIGHT BATCH [EXE [extra flags...]]; BATCH "-" leaves
# --handoff-batch out (the old bundle has no such option).
bench() {
    local tag=$1 size=$2 inflight=$3 batch=$4 exe=${5:-$bin}
    shift 4
    [ $# -gt 0 ] && shift
    local flags=(--bench --backend "$backend" --mode pipelined --sim gray-scott --size "$size"
        --frames-in-flight "$inflight" --frames "$frames" --warmup "$warmup"
        --report "$out/$tag.json")
    [ "$batch" != "-" ] && flags+=(--handoff-batch "$batch")
    echo "== $tag: $exe ${flags[*]} $*"
    rm -f "$out/$tag.json"
    step "$tag" "$out/$tag.log" "$exe" "${flags[@]}" "$@" || true
}

# 2. The frame loop, batch by batch.
for k in 1 2 4 8; do bench "bench-1024-f8-k$k" "$size" 8 "$k"; done
bench bench-1024-f32-k1 "$size" 32 1
bench bench-1024-f32-k32 "$size" 32 32

# 3. The old bundle at the same settings.
if [ -n "$old" ]; then
    bench old-1024-f8 "$size" 8 - "$old/estuary"
    bench old-1024-f32 "$size" 32 - "$old/estuary"
fi

# The batch with the most frames/s at 1024x1024, 8 in flight.
best=$(python3 - "$out" <<'EOF'
import json, sys
best, fps = 1, -1.0
for k in (1, 2, 4, 8):
    try:
        mode = json.load(open(f"{sys.argv[1]}/bench-1024-f8-k{k}.json"))["modes"][0]
    except (OSError, ValueError, KeyError, IndexError):
        continue
    if (mode.get("fps_mean") or 0) > fps:
        best, fps = k, mode["fps_mean"]
print(best)
EOF
) || best=8

# 4. Traces: a short run each (the trace holds every frame).
traced=1
[ "$best" = 1 ] || traced="1 $best"
for k in $traced; do
    echo "== trace K=$k"
    step "trace-k$k" "$out/trace-k$k.log" "$bin" --bench --backend "$backend" --mode pipelined \
        --sim gray-scott --size "$size" --frames-in-flight 8 --handoff-batch "$k" --frames 600 \
        --warmup 100 --report "$out/trace-k$k.report.json" --trace "$out/trace-k$k.json" || continue
    if [ -f plot_trace.py ] && python3 -c "import matplotlib" 2>/dev/null; then
        step "plot-k$k" "$out/plot-k$k.log" python3 plot_trace.py "$out/trace-k$k.png" \
            "$out/trace-k$k.json" --frames 300:324 || true
    fi
done

# 5. The large size, last: what the budget has left.
bench bench-4096-f8-k1 "$large" 8 1
bench bench-4096-f8-k8 "$large" 8 8
[ -n "$old" ] && bench old-4096-f8 "$large" 8 - "$old/estuary"

# 6. The table (always: a failed step is a row of its own).
timeout -k 2 20 python3 - "$out" "$best" <<'EOF' || status=1
import glob, json, os, sys
out, best = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(f"{out}/bench-*.json") + glob.glob(f"{out}/old-*.json")):
    try:
        report = json.load(open(path))
        mode, config = report["modes"][0], report["configuration"]
    except (OSError, ValueError, KeyError, IndexError) as e:
        rows.append({"run": os.path.basename(path), "error": str(e)})
        continue
    frame, busy = mode.get("frame_time_ms") or {}, mode.get("host_busy_us") or {}
    gpu = mode.get("gpu_busy_ms_per_frame") or {}
    rows.append({
        "run": os.path.basename(path)[:-5],
        "size": f'{config["width"]}x{config["height"]}',
        "k": config.get("handoff_batch", "-") if not path.split("/")[-1].startswith("old") else "old",
        "in_flight": config["frames_in_flight"],
        "fps": mode.get("fps_mean"),
        "frame_ms_p50": frame.get("p50"), "frame_ms_p99": frame.get("p99"),
        "host_busy_us_p50": busy.get("p50"), "host_busy_us_mean": busy.get("mean"),
        "gpu_busy_ms_per_frame": gpu.get("mean"),
        "frames_from_cuda_graphs": mode.get("frames_from_cuda_graphs"),
    })
failed = [line.strip() for line in open(f"{out}/failed.txt") if line.strip()]
switch = None
try:
    switch = json.load(open(f"{out}/switch.json"))
except (OSError, ValueError):
    pass
with open(f"{out}/summary.json.tmp", "w") as f:
    json.dump({"best_k_1024_f8": int(best), "runs": rows, "switch": switch,
               "failed_steps": failed}, f, indent=1)
os.replace(f"{out}/summary.json.tmp", f"{out}/summary.json")
fmt = lambda v, d=3: "-" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))
# With batches most frames submit nothing and the last one submits all: the mean is the host's
# cost per frame, the p50 that of a frame that does not submit.
lines = ["| run | size | K | in flight | frames/s | frame p50 ms | frame p99 ms | host busy p50 µs "
         "| host busy mean µs | GPU busy ms/frame |", "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    if "error" in r:
        lines.append(f'| {r["run"]} | failed: {r["error"]} ||||||||| ')
        continue
    lines.append(f'| {r["run"]} | {r["size"]} | {r["k"]} | {r["in_flight"]} | {fmt(r["fps"], 0)} '
                 f'| {fmt(r["frame_ms_p50"])} | {fmt(r["frame_ms_p99"])} '
                 f'| {fmt(r["host_busy_us_p50"], 1)} | {fmt(r["host_busy_us_mean"], 1)} '
                 f'| {fmt(r["gpu_busy_ms_per_frame"])} |')
if switch:
    lines += ["", "| K | one switch, GPU µs | one switch, wall µs | chain GPU µs per item "
              "| host-bound |", "|---|---|---|---|---|"]
    for s in switch.get("switch", []):
        lines.append(f'| {s["k"]} | {fmt(s["gpu_us_per_switch"], 1)} '
                     f'| {fmt(s["wall_us_per_switch"], 1)} | {fmt(s["gpu_us_per_item"], 2)} '
                     f'| {"yes: the GPU waited for the host" if s.get("host_bound") else "no"} |')
if failed:
    lines += ["", "Steps that failed, timed out or did not fit the budget:"]
    lines += [f"- {line}" for line in failed]
text = "\n".join(lines) + "\n"
with open(f"{out}/summary.md.tmp", "w") as f:
    f.write(text)
os.replace(f"{out}/summary.md.tmp", f"{out}/summary.md")
print(text)
EOF
echo "switch-bench: $(($(date +%s) - start)) s, results in $out (status $status)"
exit $status
