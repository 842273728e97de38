#!/usr/bin/env bash
# Serving measured on the GPU machine (issue #35; run-gpu-bench.sh serve runs this), from a bundle
# folder: estuary draws gray-scott at 1920x1080 headless on the CUDA backend and, where it serves,
# estuary_serve_probe stands in for the browser (the machine has none).
#
# What serving costs the simulation, like for like, first: the same flags and the same --frames
# (SERVE_COST_FRAMES, 3000; the warm-up is in every run alike), each run ending by itself, plain
# (no server) and served (the default encoder; --no-ui, so that the picture is the plain run's; a
# probe watching from before the first frame to the last) alternated SERVE_COST_ROUNDS (2) times:
#   cost-plain-N, cost-serve-N
# The cost is the ratio of the simulation's frames/s (from its frame time p50) plain / served,
# each round's and that of the rounds' medians.
# Then what a page gets, each run SERVE_SECONDS (10) long and stopped by SIGINT (panels drawn),
# the probe with --stamp (the server draws the frame stamp; the probe decodes every frame, H.264
# by the bundle's libavcodec, JPEG by stb_image, and reads the stamp back):
#   nvenc      served, NVENC from GPU memory, the loop uncapped
#   nvenc-60   the same with --fps-cap 60, the pace of a display
#   no-nvenc   served with NVENC turned off (ESTUARY_SERVE_NVENC=0): FFmpeg's libx264 where the
#              bundle carries FFmpeg, else JPEG
#   jpeg       the page asks for JPEG (the probe's --jpeg), as a browser without WebCodecs does
#
# Reports go to $OUT (default ./bench-results): serve-TAG.log (the program's output),
# serve-probe-TAG.json (the probe's), serve-summary.json and a table: frames/s delivered to the
# probe, the server's encode ms a frame (p50), the end-to-end latency, p50/p95, the headline: from
# the frame's end to the probe's report of the stamp it read from the decoded picture (the
# probe's decode ms p50 is in it, shown beside), the older metadata latency's p50 (the frame's
# end to the probe's report of the frame's header id, no decode), stamps unreadable and
# mismatched (0 expected), the simulation's frames/s; then the cost's line.
set -u
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/bench-results}
mkdir -p "$out"
cd "$here" || exit 1
seconds=${SERVE_SECONDS:-10}
cost_frames=${SERVE_COST_FRAMES:-3000}
cost_rounds=${SERVE_COST_ROUNDS:-2}
port=${SERVE_PORT:-18080}
# SERVE_BACKEND and SERVE_RESOLUTION are for trying the script where there is no GPU.
common=(--headless --backend "${SERVE_BACKEND:-cuda}" --resolution "${SERVE_RESOLUTION:-1920x1080}"
        --screenshot /dev/null)
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
status=0

# Starts estuary serving with the given flags (and environment before them), runs the probe
# against it, stops it with SIGINT. $1: the tag, the rest: flags.
run_one() {
    local tag=$1
    shift
    local log="$out/serve-$tag.log" probe="$out/serve-probe-$tag.json" url="" flags=("$@")
    rm -f "$probe"
    echo "== $tag: ${flags[*]}"
    port=$((port + 1))
    flags+=(--serve "127.0.0.1:$port" --serve-stats)
    env ${SERVE_ENV:-} ./estuary "${common[@]}" "${flags[@]}" >"$log" 2>&1 &
    local pid=$!
    for _ in $(seq 600); do
        url=$(grep -m1 -oE 'serving at \S+' "$log" 2>/dev/null | cut -d' ' -f3)
        [ -n "$url" ] || ! kill -0 "$pid" 2>/dev/null && break
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "   estuary did not start serving:"; tail -5 "$log"; status=1
        kill -INT "$pid" 2>/dev/null; wait "$pid"; return
    fi
    ./estuary_serve_probe "$url" --seconds "$seconds" --report "$probe" --stamp ${PROBE_ARGS:-} ||
        status=1
    kill -INT "$pid" 2>/dev/null
    wait "$pid"
    local code=$?
    [ "$code" = 130 ] || [ "$code" = 0 ] || { echo "   estuary exited $code"; status=1; }
    grep -E 'server on|frames in|frame time|served ' "$log" | sed 's/^/   /'
}

# One run of the cost comparison, ending by itself after $cost_frames frames. $1: the tag, $2:
# "serve" or "plain". A served run's probe watches from its URL to the server's close.
cost_one() {
    local tag=$1 kind=$2 log="$out/serve-$1.log" probe="$out/serve-probe-$1.json" url=""
    local flags=(--frames "$cost_frames")
    rm -f "$probe"
    if [ "$kind" = serve ]; then
        port=$((port + 1))
        flags+=(--serve "127.0.0.1:$port" --no-ui)
    fi
    echo "== $tag: ${flags[*]}"
    ./estuary "${common[@]}" "${flags[@]}" >"$log" 2>&1 &
    local pid=$! probe_pid=""
    if [ "$kind" = serve ]; then
        for _ in $(seq 1200); do
            url=$(grep -m1 -oE 'serving at \S+' "$log" 2>/dev/null | cut -d' ' -f3)
            [ -n "$url" ] || ! kill -0 "$pid" 2>/dev/null && break
            sleep 0.05
        done
        if [ -z "$url" ]; then
            echo "   estuary did not start serving:"; tail -5 "$log"; status=1
            kill -INT "$pid" 2>/dev/null; wait "$pid"; return
        fi
        ./estuary_serve_probe "$url" --seconds 3600 --report "$probe" >/dev/null &
        probe_pid=$!
    fi
    wait "$pid"
    local code=$?
    [ "$code" = 0 ] || { echo "   estuary exited $code"; status=1; }
    if [ -n "$probe_pid" ]; then # it ends at the server's close; bounded all the same
        for _ in $(seq 100); do kill -0 "$probe_pid" 2>/dev/null || break; sleep 0.1; done
        kill "$probe_pid" 2>/dev/null
        wait "$probe_pid" 2>/dev/null
    fi
    grep -E 'server on|frames in|frame time|served ' "$log" | sed 's/^/   /'
}

{
    for round in $(seq "$cost_rounds"); do
        cost_one "cost-plain-$round" plain
        cost_one "cost-serve-$round" serve
    done
    run_one nvenc
    run_one nvenc-60 --fps-cap 60
    SERVE_ENV=ESTUARY_SERVE_NVENC=0 run_one no-nvenc
    PROBE_ARGS=--jpeg run_one jpeg
    exit $status
} 2>&1 | tee "$out/bench-serve.log"
status=${PIPESTATUS[0]}

python3 - "$out" <<'EOF' | tee -a "$out/bench-serve.log" || status=1
import json, os, re, sys
out = sys.argv[1]
rows = {}
tags = sorted((f[len("serve-"):-len(".log")] for f in os.listdir(out)
               if f.startswith("serve-cost-") and f.endswith(".log")),
              key=lambda t: (int(t.rsplit("-", 1)[1]), t))
for tag in tags + ["nvenc", "nvenc-60", "no-nvenc", "jpeg"]:
    row = {}
    try:
        log = open(os.path.join(out, f"serve-{tag}.log")).read()
    except OSError:
        continue
    m = re.search(r"frame time \(ms[^)]*\): p50 ([0-9.]+)", log)
    if m:
        row["sim_frame_ms_p50"] = float(m.group(1))
        row["sim_fps"] = 1000.0 / float(m.group(1))
    m = re.search(r"([0-9]+) frames in ([0-9.]+) s", log)
    if m:
        row["sim_frames"] = int(m.group(1))
        row["sim_fps_whole_run"] = int(m.group(1)) / float(m.group(2))
    probe = os.path.join(out, f"serve-probe-{tag}.json")
    if os.path.exists(probe):
        p = json.load(open(probe))
        s, st = p["server"], p["stamp"]
        row.update(encoder=s["encoder"], codec=p["codec"], delivered_fps=p["fps"],
                   mbit_per_s=p["bytes_per_s"] * 8 / 1e6, frames=p["frames"],
                   frames_missed=p["frames_missed"], encode_ms_p50=s["encode_ms"]["p50"],
                   encode_ms_p95=s["encode_ms"]["p95"], frames_dropped=s["frames_dropped"],
                   first_h264=p["first_h264"], size=f'{p["width"]}x{p["height"]}',
                   metadata_latency_ms_p50=s["metadata_latency_ms"]["p50"],
                   metadata_latency_ms_p95=s["metadata_latency_ms"]["p95"],
                   stamps_read=st["read"],
                   stamps_unreadable=st["unreadable"], stamps_mismatched=st["mismatched"],
                   stamp_decode_error=st["decode_error"])
        if st["decode_ms"]["count"]:
            row["decode_ms_p50"] = st["decode_ms"]["p50"]
        # The headline: the stamp's trip, where the probe read stamps (see the table's note).
        if s["stamp_latency_ms"]["count"]:
            row.update(stamp_latency_ms_p50=s["stamp_latency_ms"]["p50"],
                       stamp_latency_ms_p95=s["stamp_latency_ms"]["p95"],
                       stamp_latency_samples=s["stamp_latency_ms"]["count"])
    rows[tag] = row
# The cost: plain / served frames/s, per round and of the rounds' medians (like for like: the
# same frames, flags and warm-up; the runs alternate, so that a drift in clocks hits both).
def median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
pairs = [(rows.get(f"cost-plain-{n}", {}).get("sim_fps"),
          rows.get(f"cost-serve-{n}", {}).get("sim_fps"))
         for n in sorted({int(t.rsplit("-", 1)[1]) for t in tags})]
pairs = [(p, q) for p, q in pairs if p and q]
if pairs:
    plain, served = median([p for p, _ in pairs]), median([q for _, q in pairs])
    rows["cost"] = {"rounds": len(pairs), "frames": int(os.environ.get("SERVE_COST_FRAMES", 3000)),
                    "plain_fps_median": plain, "served_fps_median": served,
                    "ratio_plain_over_served": plain / served,
                    "ratios_per_round": [p / q for p, q in pairs]}
tmp = os.path.join(out, "serve-summary.json.tmp")
with open(tmp, "w") as f:
    json.dump(rows, f, indent=1)
os.replace(tmp, os.path.join(out, "serve-summary.json"))
print("latency: the stamp's, from a frame's end to the probe's report of the id it read from the "
      "decoded picture (dec p50: the probe's decode, included); meta p50: the older figure, by "
      "the frame's header id, no decode; unread/mism: stamps unreadable or not the header's id")
print(f'{"run":12} {"encoder":20} {"size":10} {"fps@probe":>9} {"Mbit/s":>7} {"enc p50":>8} '
      f'{"lat p50":>8} {"lat p95":>8} {"dec p50":>8} {"meta p50":>8} {"unread":>6} {"mism":>5} '
      f'{"sim fps":>8}')
for tag, r in rows.items():
    if tag == "cost":
        continue
    g = lambda k, f="{:.2f}": f.format(r[k]) if k in r else "-"
    print(f'{tag:12} {r.get("encoder", "-"):20} {r.get("size", "-"):10} {g("delivered_fps", "{:.1f}"):>9} '
          f'{g("mbit_per_s", "{:.1f}"):>7} {g("encode_ms_p50"):>8} '
          f'{g("stamp_latency_ms_p50", "{:.1f}"):>8} {g("stamp_latency_ms_p95", "{:.1f}"):>8} '
          f'{g("decode_ms_p50"):>8} {g("metadata_latency_ms_p50", "{:.1f}"):>8} '
          f'{g("stamps_unreadable", "{}"):>6} {g("stamps_mismatched", "{}"):>5} '
          f'{g("sim_fps", "{:.1f}"):>8}')
    if r.get("stamp_decode_error"):
        print(f'   {tag}: the probe could not decode: {r["stamp_decode_error"]}')
if "cost" in rows:
    c = rows["cost"]
    print(f"serving costs the simulation: {c['plain_fps_median']:.1f} frames/s plain, "
          f"{c['served_fps_median']:.1f} served (medians of {c['rounds']} alternated rounds of "
          f"{c['frames']} frames each): plain/served {c['ratio_plain_over_served']:.3f}; rounds "
          + ", ".join(f"{x:.3f}" for x in c["ratios_per_round"]))
EOF
exit "$status"
