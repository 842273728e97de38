#!/usr/bin/env bash
# Serving measured on the GPU machine (issue #35; run-gpu-bench.sh serve runs this), from a bundle
# folder: estuary draws gray-scott at 1920x1080 headless on the CUDA backend and, where it serves,
# estuary_serve_probe stands in for the browser (the machine has none) for SERVE_SECONDS (10):
#   plain      the simulation alone, no server: its frames/s
#   nvenc      served, NVENC from GPU memory, the loop uncapped
#   nvenc-60   the same with --fps-cap 60, the pace of a display
#   jpeg       served with NVENC turned off (ESTUARY_SERVE_NVENC=0; no FFmpeg there: JPEG)
# Each run is stopped by SIGINT. Reports go to $OUT (default ./bench-results): serve-TAG.log (the
# program's output), serve-probe-TAG.json (the probe's), serve-summary.json and a table: frames/s
# delivered to the probe, the server's encode ms a frame (p50), end-to-end latency (p50/p95: the
# frame's end to the probe's report of it coming back), the simulation's frames/s (from its frame
# time p50, so startup does not count) with and without serving.
set -u
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/bench-results}
mkdir -p "$out"
cd "$here" || exit 1
seconds=${SERVE_SECONDS:-10}
port=${SERVE_PORT:-18080}
# SERVE_BACKEND and SERVE_RESOLUTION are for trying the script where there is no GPU.
common=(--headless --backend "${SERVE_BACKEND:-cuda}" --resolution "${SERVE_RESOLUTION:-1920x1080}"
        --screenshot /dev/null)
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
status=0

# Starts estuary with the given flags (and environment before them); serves when asked, runs the
# probe against it; stops it with SIGINT. $1: the tag, $2: "serve" or "plain", the rest: flags.
run_one() {
    local tag=$1 kind=$2
    shift 2
    local log="$out/serve-$tag.log" probe="$out/serve-probe-$tag.json" url="" flags=("$@")
    rm -f "$probe"
    echo "== $tag: ${flags[*]}"
    if [ "$kind" = serve ]; then
        port=$((port + 1))
        flags+=(--serve "127.0.0.1:$port" --serve-stats)
    fi
    env ${SERVE_ENV:-} ./estuary "${common[@]}" "${flags[@]}" >"$log" 2>&1 &
    local pid=$!
    if [ "$kind" = serve ]; then
        for _ in $(seq 600); do
            url=$(grep -m1 -oE 'serving at \S+' "$log" | cut -d' ' -f3)
            [ -n "$url" ] || ! kill -0 "$pid" 2>/dev/null && break
            sleep 0.1
        done
        if [ -z "$url" ]; then
            echo "   estuary did not start serving:"; tail -5 "$log"; status=1
            kill -INT "$pid" 2>/dev/null; wait "$pid"; return
        fi
        ./estuary_serve_probe "$url" --seconds "$seconds" --report "$probe" || status=1
    else
        sleep "$((seconds + 2))" # as long as a served run, startup included
    fi
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    local code=$?
    [ "$code" = 130 ] || [ "$code" = 0 ] || { echo "   estuary exited $code"; status=1; }
    grep -E 'server on|frames in|frame time|served ' "$log" | sed 's/^/   /'
}

{
    run_one plain plain
    run_one nvenc serve
    run_one nvenc-60 serve --fps-cap 60
    SERVE_ENV=ESTUARY_SERVE_NVENC=0 run_one jpeg serve
    exit $status
} 2>&1 | tee "$out/bench-serve.log"
status=${PIPESTATUS[0]}

python3 - "$out" <<'EOF' | tee -a "$out/bench-serve.log" || status=1
import json, os, re, sys
out = sys.argv[1]
rows = {}
for tag in ("plain", "nvenc", "nvenc-60", "jpeg"):
    row = {}
    try:
        log = open(os.path.join(out, f"serve-{tag}.log")).read()
    except OSError:
        continue
    m = re.search(r"frame time \(ms[^)]*\): p50 ([0-9.]+)", log)
    if m:
        row["sim_frame_ms_p50"] = float(m.group(1))
        row["sim_fps"] = 1000.0 / float(m.group(1))
    probe = os.path.join(out, f"serve-probe-{tag}.json")
    if os.path.exists(probe):
        p = json.load(open(probe))
        s = p["server"]
        row.update(encoder=s["encoder"], codec=p["codec"], delivered_fps=p["fps"],
                   mbit_per_s=p["bytes_per_s"] * 8 / 1e6, frames=p["frames"],
                   frames_missed=p["frames_missed"], encode_ms_p50=s["encode_ms"]["p50"],
                   encode_ms_p95=s["encode_ms"]["p95"], latency_ms_p50=s["latency_ms"]["p50"],
                   latency_ms_p95=s["latency_ms"]["p95"], frames_dropped=s["frames_dropped"],
                   first_h264=p["first_h264"], size=f'{p["width"]}x{p["height"]}')
    rows[tag] = row
tmp = os.path.join(out, "serve-summary.json.tmp")
with open(tmp, "w") as f:
    json.dump(rows, f, indent=1)
os.replace(tmp, os.path.join(out, "serve-summary.json"))
print(f'{"run":9} {"encoder":20} {"size":10} {"fps@probe":>9} {"Mbit/s":>7} {"enc p50":>8} '
      f'{"lat p50":>8} {"lat p95":>8} {"sim fps":>8}')
for tag, r in rows.items():
    g = lambda k, f="{:.2f}": f.format(r[k]) if k in r else "-"
    print(f'{tag:9} {r.get("encoder", "-"):20} {r.get("size", "-"):10} {g("delivered_fps", "{:.1f}"):>9} '
          f'{g("mbit_per_s", "{:.1f}"):>7} {g("encode_ms_p50"):>8} {g("latency_ms_p50", "{:.1f}"):>8} '
          f'{g("latency_ms_p95", "{:.1f}"):>8} {g("sim_fps", "{:.1f}"):>8}')
EOF
exit "$status"
