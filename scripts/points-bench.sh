#!/usr/bin/env bash
# Points toward 40 G points/s (#37 item 3; docs/PERFORMANCE.md): one device call's worth, from a
# bundle folder on the GPU machine, everything written under OUT_DIR.
#   points-bench.sh OUT_DIR [--old OLD_BUNDLE_DIR]
# 1. estuary_points_bench, pipelined (8 in flight), for each splat variant (--splat) and input
#    order (--order): 10^8 and 10^7 points at 3840x2160 and 1920x1080; then 10^3 at 3840x2160,
#    where the draw is the frame's fixed cost (clear, resolve), per variant, and by the raster
#    path (--draw raster: the clear and hand-off without the splat's resolve).
# 2. With --old: OLD's estuary_points_bench (its own library; no --splat or --order, so its
#    defaults: packed, random) at the same counts and resolutions, and 10^3 at 4K.
# 3. estuary_kernel_bench points: the splat's CUDA twin, every variant checked against the CPU,
#    then timed at 10^8 at 3840x2160 (both orders) and 10^7 at 1920x1080.
# 4. Where ncu is found (PATH or /usr/local/cuda/bin): Nsight Compute's SpeedOfLight and
#    MemoryWorkloadAnalysis of the twin's first 10^8 splat at 4K for four variant/order pairs, and
#    of one resolve (up to 90 s each).
#    Where nsys is found: a Vulkan GPU trace of 10^3 points at 4K (the fixed cost's passes).
# OUT_DIR/summary.md: variant, order, points, resolution, fps, G points/s, draw p50.
# Knobs: POINTS_SECONDS (measured seconds per configuration, default 0.8), POINTS_VARIANTS
# ("packed merged saturated"), POINTS_ORDERS ("random morton"), POINTS_NCU (0: skip ncu),
# POINTS_NSYS (0: skip nsys) and POINTS_TWIN_SECONDS (60: the limit of each micro-benchmark run).
# On the H100 the estuary_points_bench runs alone took about 190 s at POINTS_SECONDS=0.6. Exit 0
# when every run succeeded, 1 when one failed (the rest still run), 2 on bad usage.
set -u
usage() {
    echo "usage: points-bench.sh OUT_DIR [--old OLD_BUNDLE_DIR]" >&2
    exit 2
}
[ $# -ge 1 ] || usage
mkdir -p "$1" || usage
out=$(cd "$1" && pwd)
shift
old=""
while [ $# -gt 0 ]; do
    case $1 in
    --old)
        [ $# -ge 2 ] || usage
        old=$(cd "$2" 2>/dev/null && pwd) || { echo "points-bench.sh: no folder '$2'" >&2; exit 2; }
        [ -x "$old/estuary_points_bench" ] ||
            { echo "points-bench.sh: no estuary_points_bench in '$old'" >&2; exit 2; }
        shift 2
        ;;
    *) usage ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
[ -x ./estuary_points_bench ] || { echo "points-bench.sh: run it from a bundle folder" >&2; exit 2; }
seconds=${POINTS_SECONDS:-0.8}
variants=${POINTS_VARIANTS:-packed merged saturated}
orders=${POINTS_ORDERS:-random morton}
status=0
summary=$out/summary.md
{
    echo "| build | variant | order | points | resolution | fps | G points/s | draw p50 ms |"
    echo "|---|---|---|---:|---|---:|---:|---:|"
} >"$summary"

# Rows of the summary from estuary_points_bench's lines on stdin (its line format: see
# points_bench.cu), labelled with the build, variant and order that ran.
summarize() {
    sed -nE 's/^(pipelined|serialized) ([0-9]+x[0-9]+) [a-z]+ +([0-9]+) [a-z+]+, cap +[0-9.]+: +([0-9.]+) fps, CUDA [^,]+, draw ([0-9.na]+) ms.*/\3 \2 \4 \5/p' |
        while read -r points resolution fps draw; do
            gps=$(awk -v n="$points" -v f="$fps" 'BEGIN { printf "%.2f", n * f / 1e9 }')
            echo "| $1 | $2 | $3 | $points | $resolution | $fps | $gps | $draw |"
        done >>"$summary"
}

# points BUILD VARIANT ORDER RESOLUTION COUNTS [EXE...]: one estuary_points_bench run, logged.
points() {
    local build=$1 variant=$2 order=$3 resolution=$4 counts=$5
    shift 5
    local name="$build-$variant-$order-$resolution-${counts//,/_}" flags=()
    if [ "$variant" = raster ]; then
        flags=(--draw raster)
    elif [ "$build" = new ]; then
        flags=(--splat "$variant" --order "$order")
    fi
    echo "== $name" >&2
    "$@" --points "$counts" --resolution "$resolution" --seconds "$seconds" "${flags[@]}" \
        --json "$out/$name.json" >"$out/$name.log" 2>"$out/$name.stderr" || {
        echo "points-bench.sh: $name failed (exit $?; $out/$name.stderr)" >&2
        status=1
    }
    cat "$out/$name.log" >&2
    summarize "$build" "$variant" "$order" <"$out/$name.log"
}

for variant in $variants; do
    for order in $orders; do
        for resolution in 3840x2160 1920x1080; do
            points new "$variant" "$order" "$resolution" 100000000,10000000 ./estuary_points_bench
        done
    done
    points new "$variant" random 3840x2160 1000 ./estuary_points_bench
done
# The raster path's 10^3 at 4K: the frame's clear and hand-off without the splat's resolve.
points new raster random 3840x2160 1000 ./estuary_points_bench
if [ -n "$old" ]; then
    old_exe=(env "LD_LIBRARY_PATH=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
             "$old/estuary_points_bench")
    for resolution in 3840x2160 1920x1080; do
        points old packed random "$resolution" 100000000,10000000 "${old_exe[@]}"
    done
    points old packed random 3840x2160 1000 "${old_exe[@]}"
fi

echo "== kernel micro-benchmark" >&2
{
    # Each under a limit: on the H100 a run over every variant did not end within 50 s (cause
    # not found), and an unbounded one would take the rest of the call with it.
    timeout -k 5 "${POINTS_TWIN_SECONDS:-60}" ./estuary_kernel_bench points --points 100000000 \
        --size 3840x2160 --order both --reps 10 &&
        timeout -k 5 "${POINTS_TWIN_SECONDS:-60}" ./estuary_kernel_bench points \
            --points 10000000 --size 1920x1080 --order both --reps 20
} >"$out/kernel-points.log" 2>&1 || {
    echo "points-bench.sh: estuary_kernel_bench points failed ($out/kernel-points.log)" >&2
    status=1
}
cat "$out/kernel-points.log" >&2

ncu=$(command -v ncu || true)
[ -z "$ncu" ] && [ -x /usr/local/cuda/bin/ncu ] && ncu=/usr/local/cuda/bin/ncu
if [ -n "$ncu" ] && [ "${POINTS_NCU:-1}" != 0 ]; then
    # The first 6 splat (or resolve) launches are the CPU check's (3 small scenes, 2 frames
    # each); the next is a 10^8 splat at 4K (or the resolve of its sums).
    for run in splat:packed:random splat:packed:morton splat:merged:morton \
               splat:saturated:random resolve:packed:random; do
        IFS=: read -r kernel variant order <<<"$run"
        name="ncu-$kernel-$variant-$order"
        echo "== $name" >&2
        timeout 90 "$ncu" --section SpeedOfLight --section MemoryWorkloadAnalysis \
            -k "regex:$kernel" --launch-skip 6 --launch-count 1 \
            ./estuary_kernel_bench points --points 100000000 --size 3840x2160 --order "$order" \
            --variant "$variant" --reps 1 >"$out/$name.txt" 2>&1 ||
            echo "points-bench.sh: $name failed ($out/$name.txt)" >&2
    done
else
    echo "points-bench.sh: no ncu (PATH, /usr/local/cuda/bin) or POINTS_NCU=0: no profiles" >&2
fi

nsys=$(command -v nsys || true)
if [ -n "$nsys" ] && [ "${POINTS_NSYS:-1}" != 0 ]; then
    echo "== nsys, 10^3 points at 3840x2160" >&2
    timeout 120 "$nsys" profile --trace=vulkan,cuda --vulkan-gpu-workload=individual \
        --force-overwrite=true -o "$out/nsys-fixed-cost" ./estuary_points_bench --points 1000 \
        --resolution 3840x2160 --seconds 0.5 >"$out/nsys-fixed-cost.log" 2>&1 &&
        timeout 60 "$nsys" stats --report vulkan_gpu_marker_sum,cuda_gpu_kern_sum \
            "$out/nsys-fixed-cost.nsys-rep" >"$out/nsys-fixed-cost-stats.txt" 2>&1 ||
        echo "points-bench.sh: nsys failed ($out/nsys-fixed-cost.log)" >&2
fi

cat "$summary"
exit $status
