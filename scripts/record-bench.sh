#!/usr/bin/env bash
# Recording measured on the GPU machine (issue #37; run-gpu-bench.sh record runs this), from a
# bundle folder whose libestuary_video.so finds FFmpeg beside it (scripts/gpu-ffmpeg.sh) or on the
# system. estuary draws gray-scott headless at RECORD_RESOLUTION (1920x1080), RECORD_FRAMES (600)
# frames a run, four runs:
#   plain        no recording, the loop uncapped
#   record       --record (RECORD_ENCODER, default libx264), uncapped: the loop runs as fast as the
#                encoder takes pictures, so its frames/s is the encoder's throughput
#   plain-60     --fps-cap 60, no recording
#   record-60    --fps-cap 60 with --record: what recording costs the loop at a display's pace
#                (host busy per frame against plain-60's), and whether the encoder keeps up (no
#                waits for it, and its time a picture under 16.7 ms)
# Host busy per frame is estuary_frame_stats::host_busy_us (begin to submit, the frames-in-flight
# wait left out): the hand-off of the picture and any wait for the encoder are in it. Reports go to
# $OUT (default ./bench-results): record-TAG.log, record-summary.json, record-clips.txt (the videos'
# sizes; the videos themselves are deleted) and a table with the ratios.
# RECORD_BACKEND (cuda) and the others are for trying the script where there is no GPU.
set -u
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/bench-results}
mkdir -p "$out"
cd "$here" || exit 1
bin=${ESTUARY:-./estuary}
frames=${RECORD_FRAMES:-600}
encoder=${RECORD_ENCODER:-libx264}
common=(--headless --sim gray-scott --backend "${RECORD_BACKEND:-cuda}" --size "${RECORD_SIZE:-1024x1024}"
        --resolution "${RECORD_RESOLUTION:-1920x1080}" --frames "$frames" --screenshot /dev/null)
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
status=0

# Runs estuary with the common flags and "$@", its output in record-$1.log; prints one JSON object
# of what it measured.
run_one() {
    local tag=$1
    shift
    local log="$out/record-$tag.log"
    echo "== $tag: $*" >&2
    if ! "$bin" "${common[@]}" "$@" >"$log" 2>&1; then
        echo "   estuary failed:" >&2
        tail -5 "$log" >&2
        status=1
    fi
    local fps p50 busy50 busy99 written encode encodeMax waits waited
    fps=$(sed -n 's/.*frames in [0-9.]* s (\([0-9.]*\) frames\/s).*/\1/p' "$log" | head -1)
    p50=$(sed -n 's/.*frame time (ms[^)]*): p50 \([0-9.]*\).*/\1/p' "$log" | head -1)
    busy50=$(sed -n 's/.*host busy per frame (ms): p50 \([0-9.]*\).*/\1/p' "$log" | head -1)
    busy99=$(sed -n 's/.*host busy per frame (ms): p50 [0-9.]*  p99 \([0-9.]*\).*/\1/p' "$log" |
        head -1)
    written=$(sed -n 's/.*recorded \([0-9]*\) frames to .*/\1/p' "$log" | head -1)
    encode=$(sed -n 's/.*the encoder took \([0-9.]*\) ms a picture.*/\1/p' "$log" | head -1)
    encodeMax=$(sed -n 's/.*ms a picture (mean; \([0-9.]*\) the slowest.*/\1/p' "$log" | head -1)
    waits=$(sed -n 's/.*waited for it at \([0-9]*\) frames.*/\1/p' "$log" | head -1)
    waited=$(sed -n 's/.*waited for it at [0-9]* frames (\([0-9.]*\) ms in all).*/\1/p' "$log" |
        head -1)
    printf '{"tag": "%s", "frames_per_s_wall": %s, "frame_ms_p50": %s, "host_busy_ms_p50": %s, ' \
        "$tag" "${fps:-null}" "${p50:-null}" "${busy50:-null}"
    printf '"host_busy_ms_p99": %s, "frames_written": %s, "encode_ms_mean": %s, ' \
        "${busy99:-null}" "${written:-null}" "${encode:-null}"
    printf '"encode_ms_max": %s, "frames_waited": %s, "wait_ms_total": %s}' \
        "${encodeMax:-null}" "${waits:-null}" "${waited:-null}"
}

# The videos (tens of MB at 1080p) stay out of $OUT, which comes back from the machine.
clips=$(mktemp -d)
trap 'rm -rf "$clips"' EXIT
plain=$(run_one plain)
record=$(run_one record --record "$clips/record.mp4" --record-encoder "$encoder")
plain60=$(run_one plain-60 --fps-cap 60)
record60=$(run_one record-60 --fps-cap 60 --record "$clips/record-60.mp4" --record-encoder "$encoder")
ls -l "$clips" >"$out/record-clips.txt"
summary="$out/record-summary.json"
printf '{"resolution": "%s", "frames": %s, "encoder": "%s", "runs": [\n  %s,\n  %s,\n  %s,\n  %s\n]}\n' \
    "${RECORD_RESOLUTION:-1920x1080}" "$frames" "$encoder" "$plain" "$record" "$plain60" \
    "$record60" >"$summary.tmp" && mv "$summary.tmp" "$summary"
echo "wrote $summary"

python3 - "$summary" <<'EOF' || status=1
import json, sys
s = json.load(open(sys.argv[1]))
runs = {r["tag"]: r for r in s["runs"]}
def num(tag, key):
    v = runs[tag][key]
    return float("nan") if v is None else float(v)
# frames/s from the frame time's p50, so that the start-up (pipelines, the first picture) does not
# count; the wall-clock figure, start-up included, is in the JSON.
def fps(tag):
    return 1000.0 / num(tag, 'frame_ms_p50')
print(f"{'run':<10} {'frames/s':>9} {'busy p50':>9} {'busy p99':>9} {'written':>8} "
      f"{'enc ms':>7} {'enc max':>8} {'waits':>6}")
for tag in ("plain", "record", "plain-60", "record-60"):
    r = runs[tag]
    cell = lambda k, f: "-" if r[k] is None else format(r[k], f)
    print(f"{tag:<10} {fps(tag):9.1f} {cell('host_busy_ms_p50', '9.3f')} "
          f"{cell('host_busy_ms_p99', '9.3f')} {cell('frames_written', '8d')} "
          f"{cell('encode_ms_mean', '7.2f')} {cell('encode_ms_max', '8.2f')} "
          f"{cell('frames_waited', '6d')}")
print(f"uncapped: recording runs at {fps('record') / fps('plain'):.3f} of the plain frames/s "
      f"({fps('record'):.1f} against {fps('plain'):.1f}; where the loop waited, the encoder's pace)")
extra = num('record-60', 'host_busy_ms_p50') - num('plain-60', 'host_busy_ms_p50')
print(f"at 60 fps: host busy p50 {num('record-60', 'host_busy_ms_p50'):.3f} ms with recording, "
      f"{num('plain-60', 'host_busy_ms_p50'):.3f} without (+{extra:.3f} ms; target: <= 1 ms a frame)")
keeps = num('record-60', 'frames_waited') == 0 and num('record-60', 'encode_ms_mean') < 1000 / 60
print(f"at 60 fps the encoder {'keeps up' if keeps else 'does NOT keep up'}: "
      f"{num('record-60', 'encode_ms_mean'):.2f} ms a picture (mean, budget 16.67), "
      f"the loop waited for it at {num('record-60', 'frames_waited'):.0f} frames")
EOF
exit $status
