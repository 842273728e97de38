#!/usr/bin/env bash
# Scaling over the GPUs of one machine (docs/SCALING.md, issues #36 and #39), from a bundle folder.
# Results go to $OUT (default ./scaling-results): every report (JSON), screenshots, a trace,
# scaling.json and scaling-summary.txt. Exit 1 when a picture differs from the one-GPU picture
# (bit-exactness) or a run fails; 0 otherwise.
#
#   scaling-bench.sh [--gpus "1 2 4"] [--ranks] [--old DIR] [--sweep] [--quick]
#
#   --gpus LIST  the GPU counts (default: 1 2 4 8, up to the machine's count; 1 is always run,
#                the efficiencies are against it)
#   --ranks      also one process per GPU (estuary-ranks G) for the strong-scaling grids
#   --old DIR    an older bundle's estuary run with the same flags before each new run
#   --sweep      at 8192² and 512³: --display-share 0.3..0.5 and --halo 2..16 on 2 GPUs,
#                --display-share 0.05..0.25 on 4
#   --quick      a third of the frames
#
# In order (each part is skipped, saying so, once SCALING_BUDGET_S seconds, default 540, have
# passed, so that the whole fits a 600 s call):
#   1. bit-exactness: 2D 515x389 and 3D 96x80x70, 60 frames, screenshot of --gpus G (default
#      plan; --halo 8, in 3D with --display-share 0.25; two slabs a GPU in 2D) and of G ranks
#      (--ranks) against one GPU's, cmp;
#   2. strong scaling, pipelined, 8 frames in flight: 2D 8192² and 16384², 3D 512³ and 768³;
#   3. weak scaling: 2D 8192² per GPU (8192x16384 on 2; 16384² on 4, since --size stops at
#      16384 a side; 8 not run) and 3D 512x512x(512 G);
#   4. a trace (--trace) of 40 frames of 8192² at the largest G;
#   5. the sweeps (--sweep).
# Frames per run (measured + warm-up), overridable: SCALING_FRAMES_2D (600+100 at 8192²; 16384²
# gets a third), SCALING_FRAMES_3D (300+50 at 512³; 768³ gets a third). Estimated for --gpus
# "1 2 4" at ~5 s of start-up a run (Vulkan, CUDA on every GPU, NCCL) plus the frames: the
# default set ~30 runs, ~3 minutes; --ranks adds ~1.5, --sweep ~2.5, --old ~2 (all of them
# together would pass 540 s: the budget then skips the sweeps' end).
set -u
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/scaling-results}
mkdir -p "$out/reports" "$out/pictures" || exit 1
cd "$here" || exit 1

usage() {
    sed -n '2,14p' "$0" >&2
    exit 2
}
gpu_list="" old="" ranks=0 sweep=0 quick=0
while [ $# -gt 0 ]; do
    case "$1" in
    --gpus) [ $# -ge 2 ] || usage; gpu_list=$2; shift 2 ;;
    --old) [ $# -ge 2 ] || usage; old=$2; shift 2 ;;
    --ranks) ranks=1; shift ;;
    --sweep) sweep=1; shift ;;
    --quick) quick=1; shift ;;
    -h | --help) usage ;;
    *) echo "scaling-bench.sh: unknown option '$1'" >&2; usage ;;
    esac
done

[ -x ./estuary ] || { echo "scaling-bench.sh: no ./estuary beside the script (run it from the bundle)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "scaling-bench.sh: python3 is needed for the summary" >&2; exit 2; }
old_exe=()
if [ -n "$old" ]; then
    [ -x "$old/estuary" ] || { echo "scaling-bench.sh: no estuary in '$old'" >&2; exit 2; }
    # The old build with its own library, not this bundle's of the same soname.
    old_exe=(env "LD_LIBRARY_PATH=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$old/estuary")
fi

if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
# NCCL is loaded at run time as libnccl.so.2; from the nvidia-nccl-cu13 wheel where the system
# has none. Its bootstrap on loopback (no other network there); NVLink multicast stays off.
if ! ldconfig -p 2>/dev/null | grep -q libnccl.so.2; then
    nccl=$(${PYTHON:-python3} -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
    [ -n "$nccl" ] && [ -e "$nccl/libnccl.so.2" ] && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_NVLS_ENABLE=0 ESTUARY_RANK_TIMEOUT=${ESTUARY_RANK_TIMEOUT:-120}

present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ -n "$gpu_list" ] || gpu_list="1 2 4 8"
gpus=(1)
for g in $gpu_list; do
    case "$g" in '' | *[!0-9]*) echo "scaling-bench.sh: --gpus takes whole numbers, got '$g'" >&2; exit 2 ;; esac
    [ "$g" -gt 1 ] || continue
    if [ "$g" -gt "$present" ]; then
        echo "scaling-bench.sh: $g GPUs asked for, this machine has $present: not run"
        continue
    fi
    gpus+=("$g")
done
largest=${gpus[-1]}

frames2d=${SCALING_FRAMES_2D:-600} frames3d=${SCALING_FRAMES_3D:-300}
if [ "$quick" = 1 ]; then frames2d=$((frames2d / 3)) frames3d=$((frames3d / 3)); fi
budget=${SCALING_BUDGET_S:-540}
start=$SECONDS
status=0
log="$out/scaling.log"
results="$out/results.tsv" # kind, name, build, G, how, fps or -, report or picture, note
: >"$results"

echo "== scaling-bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), GPUs ${gpus[*]} of $present" | tee "$log"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | tee -a "$log"
nvidia-smi topo -m 2>/dev/null | tee -a "$log" >/dev/null

in_budget() {
    if [ $((SECONDS - start)) -ge "$budget" ]; then
        echo "-- skipped (past the ${budget} s budget): $*" | tee -a "$log"
        printf 'skipped\t%s: past the time budget\n' "$*" >>"$results"
        return 1
    fi
}

# run NAME BUILD G HOW FRAMES WARMUP ARGS...: one pipelined bench; HOW is process or ranks.
bench() {
    local name=$1 build=$2 g=$3 how=$4 frames=$5 warmup=$6
    shift 6
    in_budget "$name $build G=$g $how" || return 0
    local report="$out/reports/$name-$build-g$g-$how.json"
    local exe=(./estuary)
    [ "$build" = old ] && exe=("${old_exe[@]}")
    local args=(--bench --backend cuda --mode pipelined --frames-in-flight 8 --frames "$frames"
        --warmup "$warmup" --report "$report" "$@")
    [ "$how" = process ] && [ "$g" -gt 1 ] && args+=(--gpus "$g")
    echo "== $name, $build, $g GPU(s), $how: ${args[*]}" | tee -a "$log"
    local t0=$SECONDS rc
    if [ "$how" = ranks ]; then
        timeout -k 10 300 bash ./estuary-ranks "$g" --estuary "${exe[-1]}" -- "${args[@]}" \
            >>"$log" 2>&1
    else
        timeout -k 10 300 "${exe[@]}" "${args[@]}" >>"$log" 2>&1
    fi
    rc=$?
    local fps=-
    if [ "$rc" -eq 0 ] && [ -s "$report" ]; then
        fps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["modes"][0]["fps_mean"])' "$report")
    else
        echo "!! $name $build G=$g $how FAILED (exit $rc); the log's end:" | tee -a "$log"
        tail -5 "$log"
        status=1
    fi
    echo "   $fps fps, $((SECONDS - t0)) s" | tee -a "$log"
    printf 'bench\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$build" "$g" "$how" "$fps" "$report" \
        "$*" >>"$results"
}

# picture NAME REFERENCE G HOW ARGS...: a headless screenshot, compared with the picture
# REFERENCE-g1-one.png of one GPU (NAME = REFERENCE and G = 1: that picture).
picture() {
    local name=$1 reference=$2 g=$3 how=$4
    shift 4
    in_budget "picture $name G=$g $how" || return 0
    local png="$out/pictures/$name-g$g-$how.png"
    local args=(--headless --backend cuda --frames 60 --seed 3 --screenshot "$png" "$@")
    [ "$how" != ranks ] && [ "$g" -gt 1 ] && args+=(--gpus "$g")
    echo "== picture $name, $g GPU(s), $how: ${args[*]}" | tee -a "$log"
    local rc
    if [ "$how" = ranks ]; then
        timeout -k 10 300 bash ./estuary-ranks "$g" --estuary ./estuary -- "${args[@]}" >>"$log" 2>&1
    else
        timeout -k 10 300 ./estuary "${args[@]}" >>"$log" 2>&1
    fi
    rc=$?
    local verdict
    if [ "$rc" -ne 0 ] || [ ! -s "$png" ]; then
        verdict="FAILED (exit $rc)"
        status=1
    elif [ "$g" -eq 1 ] && [ "$how" = one ] && [ "$name" = "$reference" ]; then
        verdict=reference
    elif cmp -s "$out/pictures/$reference-g1-one.png" "$png"; then
        verdict=identical
    else
        verdict=DIFFERS
        status=1
    fi
    echo "   $verdict" | tee -a "$log"
    [ "$verdict" = DIFFERS ] && echo "!! BIT-EXACTNESS: $png differs from $reference-g1-one.png" | tee -a "$log"
    printf 'picture\t%s\t-\t%s\t%s\t-\t%s\t%s\n' "$name" "$g" "$how" "$png" "$verdict" >>"$results"
}

# 1. Bit-exactness against one GPU. Volumes gathered (--composite gather, which the default, auto,
# takes at these sizes; said here so that the comparison stays one of gathered pictures; the
# strong and weak runs below draw as the default does): sort-last composites slab by slab and
# comes near the unsplit picture, not equal to it (a GPU test checks how near).
for run in "2d gray-scott 515x389" "3d gray-scott-3d 96x80x70"; do
    set -- $run
    name=$1 sim=$2 size=$3
    extra=()
    [ "$name" = 3d ] && extra=(--composite gather)
    picture "$name" "$name" 1 one --sim "$sim" --size "$size" "${extra[@]}"
    for g in "${gpus[@]:1}"; do
        picture "$name" "$name" "$g" one --sim "$sim" --size "$size" "${extra[@]}"
        # 70 slices leave the display GPU 7 on 4 GPUs by default: a quarter of them (17) holds a
        # halo of 8 up to 4 GPUs.
        if [ "$name" = 2d ]; then
            picture "$name-halo8" "$name" "$g" one --sim "$sim" --size "$size" "${extra[@]}" --halo 8
        elif [ "$g" -le 4 ]; then
            picture "$name-halo8" "$name" "$g" one --sim "$sim" --size "$size" "${extra[@]}" --halo 8 \
                --display-share 0.25
        fi
        [ "$name" = 2d ] &&
            picture "$name-2slabs" "$name" "$g" one --sim "$sim" --size "$size" "${extra[@]}" --slabs $((2 * g))
        [ "$ranks" = 1 ] && picture "$name" "$name" "$g" ranks --sim "$sim" --size "$size" "${extra[@]}"
    done
done

# 2. Strong scaling; 3. weak scaling. G=1 of the strong set is the reference of both.
builds=(new)
[ -n "$old" ] && builds=(old new)
strong=("2d-8192 gray-scott 8192x8192 $frames2d $((frames2d / 6))"
    "2d-16384 gray-scott 16384x16384 $((frames2d / 3)) $((frames2d / 12))"
    "3d-512 gray-scott-3d 512x512x512 $frames3d $((frames3d / 6))"
    "3d-768 gray-scott-3d 768x768x768 $((frames3d / 3)) $((frames3d / 10))")
for run in "${strong[@]}"; do
    set -- $run
    name=$1 sim=$2 size=$3 frames=$4 warmup=$5
    for g in "${gpus[@]}"; do
        for build in "${builds[@]}"; do
            bench "$name" "$build" "$g" process "$frames" "$warmup" --sim "$sim" --size "$size"
        done
        if [ "$ranks" = 1 ] && [ "$g" -gt 1 ]; then
            for build in "${builds[@]}"; do
                bench "$name" "$build" "$g" ranks "$frames" "$warmup" --sim "$sim" --size "$size"
            done
        fi
    done
done
for g in "${gpus[@]:1}"; do
    # --size stops at 16384 a side: 2D weak grids of 2 and 4 GPUs only.
    case "$g" in
    2) size2d=8192x16384 ;;
    4) size2d=16384x16384 ;;
    *) size2d="" ;;
    esac
    for build in "${builds[@]}"; do
        if [ -n "$size2d" ]; then
            bench weak-2d "$build" "$g" process "$frames2d" $((frames2d / 6)) --sim gray-scott --size "$size2d"
        else
            echo "-- weak 2D on $g GPUs not run: 8192² per GPU needs a side above --size's 16384" | tee -a "$log"
            printf 'skipped\tweak-2d %s G=%s: a side above 16384\n' "$build" "$g" >>"$results"
        fi
        bench weak-3d "$build" "$g" process "$frames3d" $((frames3d / 6)) --sim gray-scott-3d \
            --size "512x512x$((512 * g))"
    done
done

# 4. A trace of the largest G.
if [ "$largest" -gt 1 ] && in_budget "trace"; then
    trace="$out/trace-8192-g$largest.json"
    echo "== trace: 8192², $largest GPUs, 40 frames" | tee -a "$log"
    if timeout -k 10 120 ./estuary --bench --backend cuda --mode pipelined --frames-in-flight 8 \
        --sim gray-scott --size 8192x8192 --gpus "$largest" --frames 40 --warmup 20 \
        --trace "$trace" --report "$out/reports/trace-g$largest.json" >>"$log" 2>&1; then
        echo "   wrote $trace" | tee -a "$log"
    else
        echo "!! the traced run failed" | tee -a "$log"
        status=1
    fi
fi

# 5. Sweeps: the display GPU's share and the halo on 2 GPUs, the share on 4 (their defaults:
#    0.4 and 0.2, the halo a frame's steps; the strong set above holds those runs).
if [ "$sweep" = 1 ] && [ "$present" -ge 2 ]; then
    for run in "2d-8192 gray-scott 8192x8192 $frames2d $((frames2d / 6))" \
        "3d-512 gray-scott-3d 512x512x512 $frames3d $((frames3d / 6))"; do
        set -- $run
        name=$1 sim=$2 size=$3 frames=$4 warmup=$5
        for share in 0.3 0.35 0.45 0.5; do
            bench "$name-share$share" new 2 process "$frames" "$warmup" --sim "$sim" --size "$size" \
                --display-share "$share"
        done
        for halo in 2 4 8 16; do
            bench "$name-halo$halo" new 2 process "$frames" "$warmup" --sim "$sim" --size "$size" \
                --halo "$halo"
        done
        if [ "$present" -ge 4 ] && [[ " ${gpus[*]} " == *" 4 "* ]]; then
            for share in 0.05 0.15 0.2 0.25; do
                bench "$name-share$share" new 4 process "$frames" "$warmup" --sim "$sim" \
                    --size "$size" --display-share "$share"
            done
        fi
    done
fi

# The summary: efficiencies against the 1-GPU run of the same build in this call.
python3 - "$results" "$out/scaling.json" "$out/scaling-summary.txt" <<'EOF'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
bench = [r for r in rows if r[0] == "bench"]
fps = {(r[1], r[2], int(r[3]), r[4]): (float(r[5]) if r[5] != "-" else None) for r in bench}
lines, data = [], {"strong": [], "weak": [], "pictures": [], "sweeps": [], "skipped": []}
def eff(v, ref):
    return None if v is None or not ref else v / ref
def pct(e):
    return "-" if e is None else f"{100 * e:.1f}%"
lines.append("strong scaling (pipelined, 8 in flight): fps, efficiency = fps_G / (G x fps_1)")
lines.append(f"{'grid':<10} {'build':<5} {'G':>2} {'how':<8} {'fps':>9} {'eff':>7}")
for (name, build, g, how), v in sorted(fps.items(), key=lambda k: (k[0][0], k[0][1], k[0][2], k[0][3])):
    if name.startswith(("weak", "trace")) or "-share" in name or "-halo" in name:
        continue
    ref = fps.get((name, build, 1, "process"))
    e = eff(v, g * ref if ref else None)
    data["strong"].append({"grid": name, "build": build, "gpus": g, "how": how, "fps": v, "efficiency": e})
    lines.append(f"{name:<10} {build:<5} {g:>2} {how:<8} {v if v is not None else '-':>9} {pct(e):>7}")
lines.append("")
lines.append("weak scaling: fps_G (G x the 1-GPU grid) / fps_1 (8192² or 512³)")
for (name, build, g, how), v in sorted(fps.items()):
    if not name.startswith("weak"):
        continue
    ref = fps.get(("2d-8192" if name == "weak-2d" else "3d-512", build, 1, "process"))
    e = eff(v, ref)
    data["weak"].append({"grid": name, "build": build, "gpus": g, "fps": v, "efficiency": e})
    lines.append(f"{name:<10} {build:<5} {g:>2} {'':<8} {v if v is not None else '-':>9} {pct(e):>7}")
sweeps = [(k, v) for k, v in fps.items() if "-share" in k[0] or "-halo" in k[0]]
if sweeps:
    lines.append("")
    lines.append("sweeps (the defaults are in the strong set: share 0.4 on 2 GPUs, 0.2 on 4)")
    for (name, build, g, how), v in sorted(sweeps, key=lambda k: (k[0][2], k[0][0])):
        base = name.split("-share")[0].split("-halo")[0]
        ref = fps.get((base, build, 1, "process"))
        e = eff(v, g * ref if ref else None)
        data["sweeps"].append({"run": name, "gpus": g, "fps": v, "efficiency": e})
        lines.append(f"{name:<22} G={g:<2} {v if v is not None else '-':>9} {pct(e):>7}")
lines.append("")
lines.append("bit-exactness against one GPU (screenshots, cmp)")
for r in rows:
    if r[0] == "picture":
        data["pictures"].append({"run": r[1], "gpus": int(r[3]), "how": r[4], "verdict": r[7]})
        lines.append(f"{r[1]:<12} G={r[3]:<2} {r[4]:<6} {r[7]}")
    elif r[0] == "skipped":
        data["skipped"].append(r[1])
bad = [p for p in data["pictures"] if p["verdict"] not in ("identical", "reference")]
lines.append("")
lines.append("BIT-EXACTNESS FAILED: " + ", ".join(f"{p['run']} G={p['gpus']} {p['how']}: {p['verdict']}" for p in bad)
             if bad else "every picture identical to one GPU's")
if data["skipped"]:
    lines.append("skipped: " + "; ".join(data["skipped"]))
text = "\n".join(lines) + "\n"
for path, content in ((sys.argv[2], json.dumps(data, indent=1) + "\n"), (sys.argv[3], text)):
    with open(path + ".tmp", "w") as f:
        f.write(content)
    import os
    os.replace(path + ".tmp", path)
print(text, end="")
EOF
[ $? -eq 0 ] || status=1
echo "== scaling-bench: $((SECONDS - start)) s, exit $status; results in $out" | tee -a "$log"
exit "$status"
