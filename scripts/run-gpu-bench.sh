#!/usr/bin/env bash
# The benchmark runs behind docs/PERFORMANCE.md, from a bundle folder on the GPU machine. Reports
# (JSON, CSV) and a log go to $OUT (default ./bench-results).
#   run-gpu-bench.sh [gray-scott]  every mode at 1024², 2048² and 4096², then pipelined at 1024² for
#                                  each frames-in-flight depth
#   run-gpu-bench.sh fluid         every mode at 512²/1M, 1024²/4M and 2048²/16M particles, then
#                                  serialized (the simulation alone on the GPU) at each grid without
#                                  particles and with 16M: the particles' own cost is the difference
#   (BENCH_PHASE=table or =particles runs one half of the fluid set)
#   run-gpu-bench.sh opengl        the consumers side by side at 1024² and 2048² (gray-scott, 8 in
#                                  flight): Vulkan, then OpenGL with the timeline, binary and host
#                                  hand-offs, pipelined and serialized each
#   run-gpu-bench.sh volume        gray-scott-3d, every mode at 128³, 256³ and 512³ (ray-marched
#                                  at 768²) with the fragment march, then the compute march; then
#                                  each march alone (no steps) at 768² and 1536²
#   run-gpu-bench.sh compare OLD       this bundle against an older one in folder OLD (its estuary,
#                                      shaders and assets), in one call as speed claims need:
#                                      gray-scott, every mode at 1024², 2048² and 4096² (same
#                                      flags, old first), then the draw alone (no steps) at 768²
#                                      and 1536² output: old, new raster, new compute
#   run-gpu-bench.sh points       the library's points view over Mìmir's evaluation grid
#                                  (estuary_points_bench): 10^3..10^8 points at 1920x1080,
#                                  2560x1440 and 3840x2160, uncapped and capped at 30/60/144/240
#                                  fps, pipelined and serialized
#   run-gpu-bench.sh fluid-compare OLD  the fluid, pipelined, this bundle against the one in OLD in
#                                  one call: 2048² with 16M particles, 512² with 1M, 2048² without;
#                                  old, then new with --draw auto and with --draw raster
#   run-gpu-bench.sh glyphs        the points, markers (arrows along the velocity, 6 pixels; by
#                                  raster and by compute splat) and lines (a streak per point; both)
#                                  views at 10^6 and 10^7 at 1920x1080, pipelined, then 10^7
#                                  arrows and lines serialized
#   run-gpu-bench.sh mesh          the mesh view: a rippling sheet of 10^6 and 10^7 triangles at
#                                  1920x1080 (vertices rewritten by CUDA each frame, normals summed),
#                                  pipelined, then 10^7 serialized
#   run-gpu-bench.sh annotations   what annotations cost the draw at 1920x1080 (axes with grid,
#                                  three colorbars, 1,000 CUDA-written labels): plain and annotated
#                                  viewers alternating, 3 rounds of 2,000 frames, by the raster
#                                  draw path, then by the compute one
#   run-gpu-bench.sh views-compare OLD  the buffer views at 10^7 (points, arrows and lines by
#                                  raster and by compute splat, the mesh) at 1920x1080, pipelined,
#                                  this bundle's estuary_points_bench against OLD's, alternating
#                                  old and new twice in one call (the spread is the noise)
#   run-gpu-bench.sh round-two OLD  the table of issue #20, pipelined, 8 in flight, old then new in
#                                  one call: gray-scott at 1024², 2048² and 4096², the fluid at
#                                  2048²/16M, 512²/1M and 2048² without particles, gray-scott-3d
#                                  at 256³ and 512³; then the new gray-scott-3d at a 60 fps cap
#   run-gpu-bench.sh scaling [ARGS]  scaling over this machine's GPUs: scaling-bench.sh ARGS
#   run-gpu-bench.sh serve         serving at 1920x1080: estuary_serve_probe (the bundle's headless
#                                  page) watches NVENC's stream, capped and not, and the JPEG
#                                  fallback; the simulation's frames/s with and without serving
#                                  (scripts/serve-bench.sh says what each number is)
set -u
# A run that fails or crashes counts even when it printed its line before (the pipes into grep).
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/bench-results}
mkdir -p "$out"
cd "$here" || exit 1
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
status=0
if [ "${1:-gray-scott}" = serve ]; then
    exec "$here/serve-bench.sh"
fi
[ "${1:-gray-scott}" = scaling ] && { shift; OUT=$out exec "$here/scaling-bench.sh" "$@"; }
if [ "${1:-gray-scott}" = fluid ]; then
    {
        [ "${BENCH_PHASE:-all}" = particles ] ||
        for run in 512:1048576 1024:4194304 2048:16777216; do
            size=${run%%:*} particles=${run##*:}
            echo "== fluid bench ${size}x${size}, $particles particles, all modes"
            ./estuary --bench --sim fluid --backend cuda --mode all --size "${size}x${size}" \
                --particles "$particles" --frames "${BENCH_FRAMES:-1000}" --warmup 100 \
                --report "$out/fluid-$size-$particles.json" --csv "$out/fluid-$size-$particles.csv" ||
                status=1
        done
        [ "${BENCH_PHASE:-all}" = table ] ||
        for size in 512 1024 2048; do
            for particles in 0 16777216; do
                echo "== fluid serialized ${size}x${size}, $particles particles"
                ./estuary --bench --sim fluid --backend cuda --mode serialized --size "${size}x${size}" \
                    --particles "$particles" --frames 300 --warmup 50 \
                    --report "$out/fluid-serialized-$size-$particles.json" 2>/dev/null |
                    grep -E '^serialized' || status=1
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-fluid.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = annotations ]; then
    ./estuary_annotations_bench 2000 3 both 2>&1 | tee "$out/bench-annotations.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = points ]; then
    {
        for resolution in 1920x1080 2560x1440 3840x2160; do
            for mode in pipelined serialized; do
                echo "== points view, $resolution, $mode"
                ./estuary_points_bench --resolution "$resolution" --mode "$mode" \
                    --points 1000,10000,100000,1000000,10000000,100000000 \
                    --fps-caps 0,30,60,144,240 --seconds "${BENCH_SECONDS:-1}" \
                    --json "$out/points-$resolution-$mode.json" 2>>"$out/points-stderr.log" ||
                    status=1
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-points.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = fluid-compare ]; then
    old=${2:?usage: run-gpu-bench.sh fluid-compare OLD_BUNDLE_DIR}
    [ -x "$old/estuary" ] || { echo "run-gpu-bench.sh: no estuary in '$old'" >&2; exit 2; }
    # The old build with its own library, not this bundle's of the same soname.
    old_exe=(env "LD_LIBRARY_PATH=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$old/estuary")
    {
        for run in 2048:16777216 512:1048576 2048:0; do
            size=${run%%:*} particles=${run##*:}
            for build in old:auto new:auto new:raster; do
                exe=(./estuary) draw=${build##*:}
                [ "${build%%:*}" = old ] && exe=("${old_exe[@]}")
                echo "== ${build%%:*} --draw $draw: fluid ${size}x${size}, $particles particles"
                "${exe[@]}" --bench --sim fluid --backend cuda --mode pipelined --draw "$draw" \
                    --size "${size}x${size}" --particles "$particles" \
                    --frames "${BENCH_FRAMES:-400}" --warmup 50 \
                    --report "$out/fluid-${build/:/-}-$size-$particles.json" \
                    2>>"$out/fluid-compare-stderr.log" | grep -E '^pipelined ' || status=1
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-fluid-compare.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = glyphs ]; then
    {
        for run in points:auto arrows:raster arrows:compute lines:raster lines:compute; do
            view=${run%%:*} draw=${run#*:}
            ./estuary_points_bench --view "$view" --draw "$draw" --points 1000000,10000000 \
                --resolution 1920x1080 --seconds "${BENCH_SECONDS:-1}" \
                --json "$out/glyphs-$view-$draw.json" || status=1
        done
        for run in arrows:raster arrows:compute lines:raster lines:compute; do
            view=${run%%:*} draw=${run#*:}
            ./estuary_points_bench --view "$view" --draw "$draw" --points 10000000 \
                --resolution 1920x1080 --seconds "${BENCH_SECONDS:-1}" --mode serialized || status=1
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-glyphs.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = mesh ]; then
    {
        ./estuary_points_bench --view mesh --points 1000000,10000000 --resolution 1920x1080 \
            --seconds "${BENCH_SECONDS:-1}" --json "$out/mesh.json" || status=1
        ./estuary_points_bench --view mesh --points 10000000 --resolution 1920x1080 \
            --seconds "${BENCH_SECONDS:-1}" --mode serialized || status=1
        exit $status
    } 2>&1 | tee "$out/bench-mesh.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = views-compare ]; then
    old=${2:?usage: run-gpu-bench.sh views-compare OLD_BUNDLE_DIR}
    [ -x "$old/estuary_points_bench" ] ||
        { echo "run-gpu-bench.sh: no estuary_points_bench in '$old'" >&2; exit 2; }
    old_exe=(env "LD_LIBRARY_PATH=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
             "$old/estuary_points_bench")
    {
        for run in points:raster points:compute arrows:raster arrows:compute lines:raster \
                   lines:compute mesh:auto; do
            view=${run%%:*} draw=${run#*:}
            for build in old new old new; do
                exe=(./estuary_points_bench)
                [ "$build" = old ] && exe=("${old_exe[@]}")
                printf '%s %s %s: ' "$build" "$view" "$draw"
                "${exe[@]}" --view "$view" --draw "$draw" --points 10000000 \
                    --resolution 1920x1080 --seconds "${BENCH_SECONDS:-1}" \
                    2>>"$out/views-compare-stderr.log" | tail -n 1 || status=1
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-views-compare.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = round-two ]; then
    old=${2:?usage: run-gpu-bench.sh round-two OLD_BUNDLE_DIR}
    [ -x "$old/estuary" ] || { echo "run-gpu-bench.sh: no estuary in '$old'" >&2; exit 2; }
    # The old build with its own library, not this bundle's of the same soname.
    old_exe=(env "LD_LIBRARY_PATH=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$old/estuary")
    {
        for run in gray-scott:1024x1024:0:2000 gray-scott:2048x2048:0:2000 \
            gray-scott:4096x4096:0:1000 fluid:2048x2048:16777216:400 fluid:512x512:1048576:1000 \
            fluid:2048x2048:0:1000 gray-scott-3d:256x256x256:0:1000 gray-scott-3d:512x512x512:0:300; do
            IFS=: read -r sim size particles frames <<<"$run"
            extra=()
            [ "$sim" = fluid ] && extra=(--particles "$particles")
            for build in old new; do
                exe=(./estuary)
                [ "$build" = old ] && exe=("${old_exe[@]}")
                echo "== $build: $sim $size${extra[*]:+, $particles particles}, $frames frames"
                "${exe[@]}" --bench --sim "$sim" --backend cuda --mode pipelined --size "$size" \
                    "${extra[@]}" --frames "${BENCH_FRAMES:-$frames}" --warmup 50 \
                    --report "$out/round-two-$build-$sim-$size-$particles.json" \
                    2>>"$out/round-two-stderr.log" | grep -E '^pipelined ' || status=1
            done
        done
        echo "== new: gray-scott-3d 256x256x256 capped at 60 fps, 600 frames"
        ./estuary --bench --sim gray-scott-3d --backend cuda --mode pipelined \
            --size 256x256x256 --fps-cap 60 --frames 600 --warmup 30 \
            --report "$out/round-two-new-gray-scott-3d-256-cap60.json" \
            2>>"$out/round-two-stderr.log" | grep -E '^(pipelined|  cadence|  energy)' || status=1
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-round-two.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = volume ]; then
    {
        for draw in raster compute; do
            for size in 128 256 512; do
                frames=${BENCH_FRAMES:-1000}
                [ "$size" = 512 ] && frames=${BENCH_FRAMES_512:-200}
                echo "== gray-scott-3d ${size}^3, $draw march, all modes, $frames frames"
                ./estuary --bench --sim gray-scott-3d --backend cuda --mode all \
                    --draw "$draw" --size "${size}x${size}x${size}" --frames "$frames" \
                    --warmup 50 --report "$out/volume-$draw-$size.json" 2>/dev/null |
                    grep -E '^(mode|pipelined|serialized|host-copy) ' || status=1
            done
        done
        for resolution in 768 1536; do
            for draw in raster compute; do
                echo "== gray-scott-3d 256^3, $draw march alone (0 steps per frame), ${resolution}^2"
                ./estuary --bench --sim gray-scott-3d --backend cuda --mode serialized \
                    --draw "$draw" --size 256x256x256 --steps-per-frame 0 \
                    --resolution "${resolution}x${resolution}" --frames 500 --warmup 50 \
                    --report "$out/volume-draw-$draw-$resolution.json" 2>/dev/null |
                    grep -E '^serialized ' || status=1
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-volume.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = compare ]; then
    old=${2:?usage: run-gpu-bench.sh compare OLD_BUNDLE_DIR}
    [ -x "$old/estuary" ] || { echo "run-gpu-bench.sh: no estuary in '$old'" >&2; exit 2; }
    # The old build with its own library, not this bundle's of the same soname.
    old_exe=(env "LD_LIBRARY_PATH=$old${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$old/estuary")
    {
        for size in 1024 2048 4096; do
            frames=${BENCH_FRAMES:-2000}
            for build in old new; do
                exe=(./estuary)
                [ "$build" = old ] && exe=("${old_exe[@]}")
                echo "== $build: gray-scott ${size}x${size}, all modes, $frames frames"
                "${exe[@]}" --bench --backend cuda --mode all --size "${size}x${size}" \
                    --frames "$frames" --warmup 200 --report "$out/compare-$build-$size.json" \
                    --csv "$out/compare-$build-$size.csv" 2>>"$out/compare-stderr.log" |
                    grep -E '^(mode|pipelined|serialized|host-copy) ' || status=1
            done
        done
        for resolution in 768 1536; do
            for run in old:- new:raster new:compute; do
                build=${run%%:*} draw=${run##*:}
                exe=(./estuary) flags=""
                [ "$build" = old ] && exe=("${old_exe[@]}")
                [ "$draw" = - ] || flags="--draw $draw"
                echo "== $build ${draw/-/raster}: the draw alone (0 steps), ${resolution}^2 output"
                "${exe[@]}" --bench --backend cuda --mode serialized --size 1024x1024 \
                    --steps-per-frame 0 --resolution "${resolution}x${resolution}" $flags \
                    --frames 1000 --warmup 100 \
                    --report "$out/draw-$build-${draw/-/raster}-$resolution.json" \
                    2>>"$out/compare-stderr.log" |
                    grep -E '^serialized ' || status=1
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-compare.log"
    exit "${PIPESTATUS[0]}"
fi
if [ "${1:-gray-scott}" = opengl ]; then
    {
        for size in 1024 2048; do
            for consumer in vulkan:- opengl:timeline opengl:binary opengl:host; do
                name=${consumer%%:*} handoff=${consumer##*:}
                flags="--consumer $name"
                [ "$handoff" = - ] || flags="$flags --gl-handoff $handoff"
                for mode in pipelined serialized; do
                    tag="$name-${handoff/-/vulkan}-$mode-$size"
                    echo "== $tag"
                    ./estuary --bench --backend cuda $flags --mode "$mode" --size "${size}x${size}" \
                        --frames "${BENCH_FRAMES:-3000}" --warmup 200 --report "$out/consumer-$tag.json" \
                        2>/dev/null | grep -E '^(pipelined|serialized) ' || status=1
                done
            done
        done
        exit $status # the group runs in a subshell: its status is the pipeline's first
    } 2>&1 | tee "$out/bench-opengl.log"
    exit "${PIPESTATUS[0]}"
fi
{
    for size in 1024 2048 4096; do
        frames=5000
        [ "$size" = 4096 ] && frames=${BENCH_FRAMES_4096:-2000}
        echo "== bench ${size}x${size}, all modes, $frames frames"
        ./estuary --bench --backend cuda --mode all --size "${size}x${size}" --frames "$frames" \
            --report "$out/bench-$size.json" --csv "$out/bench-$size.csv" || status=1
    done
    for depth in 1 2 3 4 8; do
        echo "== pipelined 1024x1024, $depth in flight"
        ./estuary --bench --backend cuda --mode pipelined --size 1024x1024 --frames 3000 \
            --frames-in-flight "$depth" 2>/dev/null | grep -E '^pipelined|busy' || status=1
    done
    exit $status
} 2>&1 | tee "$out/bench.log"
exit "${PIPESTATUS[0]}"
