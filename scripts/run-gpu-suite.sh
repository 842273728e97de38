#!/usr/bin/env bash
# Runs estuary's GPU suite from a bundle folder (made by `cmake --build build --target bundle`) on a
# machine that has only the NVIDIA driver, the Vulkan loader and, for the sanitizer runs, the CUDA
# toolkit's compute-sanitizer. Results and logs go to $OUT (default: ./gpu-results).
#   run-gpu-suite.sh [tests|sanitize|python|ranks|slabs|all]   (default: all)
# ranks (not part of all; needs 2 GPUs): two CUDA ranks, one process each (estuary-ranks), against
# one process, screenshots compared byte for byte, 2D and 3D at odd sizes.
# slabs (not part of all; needs 2 GPUs): the library's slabs (estuary_create_slabs) on 2 GPUs
# against 1 (SlabsGpu.*), and examples/heat_slabs on 2 GPUs against 1, pictures byte for byte.
# python: the Python package's tests (PyTorch and CuPy where installed), its examples headless
# under validation, and the binding's host cost per frame against the same loop in C++.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/gpu-results}
mode=${1:-all}
mkdir -p "$out"
cd "$here" || exit 1
status=0

echo "== environment"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && [ -z "${VK_DRIVER_FILES:-}" ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
# The validation layer may be unpacked outside the system paths (see the README's GPU section).
for d in /usr/share/vulkan/explicit_layer.d /etc/vulkan/explicit_layer.d; do
    [ -d "$d" ] && export VK_LAYER_PATH="${VK_LAYER_PATH:+$VK_LAYER_PATH:}$d"
done

# NCCL (for --gpus above 1) is loaded at run time as libnccl.so.2: where it came as a Python wheel
# (nvidia-nccl-cu13) rather than with the toolkit, put its folder on the loader's path.
if ! ldconfig -p 2>/dev/null | grep -q libnccl.so.2; then
    nccl=$(${PYTHON:-python3} -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
    [ -n "$nccl" ] && [ -e "$nccl/libnccl.so.2" ] && export LD_LIBRARY_PATH="$nccl${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

if [ "$mode" = tests ] || [ "$mode" = all ]; then
    echo "== GPU suite"
    # The fault matrix last: an injected CUDA kernel fault holds the GPU's graphics engine until
    # its process has gone, so it must not share a window with the other tests.
    ./estuary_gpu_tests --gtest_filter='-AppGpuFaults.*' --gtest_output="json:$out/gpu-tests.json" \
        2>&1 | tee "$out/gpu-tests.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    for sim in $(./estuary --list-sims | cut -d' ' -f1); do
        size=1024x1024
        ./estuary --list-sims | grep -E "^$sim .*3D grid" >/dev/null && size=256x256x256
        echo "== demo run: $sim $size (CUDA backend, validation on)"
        ./estuary --sim "$sim" --headless --backend cuda --validate --frames 300 \
            --size "$size" --screenshot "$out/estuary-cuda-$sim.png" 2>&1 | tee "$out/demo-$sim.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    done
    for example in example_*; do
        [ -x "$example" ] || continue
        echo "== example: $example (headless, 120 frames, ESTUARY_VALIDATION=1)"
        ESTUARY_VALIDATION=1 ESTUARY_FRAMES=120 ESTUARY_SCREENSHOT="$out/$example.png" \
            ./"$example" 2>&1 | tee "$out/$example.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        [ -s "$out/$example.png" ] || { echo "$example wrote no screenshot"; status=1; }
    done
    echo "== GPU fault matrix"
    ./estuary_gpu_tests --gtest_filter='AppGpuFaults.*' --gtest_output="json:$out/gpu-faults.json" \
        2>&1 | tee "$out/gpu-faults.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ "$mode" = ranks ]; then
    echo "== ranks: two CUDA processes against one (docs/SCALING.md, one process per GPU)"
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    if [ "$gpus" -lt 2 ]; then
        echo "ranks: this machine has $gpus GPU(s); two are needed: NOT run"
        status=1
    else
        # NCCL's own bootstrap: loopback where the machine has no other network.
        export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} ESTUARY_RANK_TIMEOUT=120
        for run in "gray-scott 515x389" "gray-scott-3d 96x80x70"; do
            set -- $run
            args=(--sim "$1" --size "$2" --headless --backend cuda --validate --frames 60 --seed 3)
            ./estuary "${args[@]}" --screenshot "$out/ranks-one-$1.png" 2>&1 |
                tee "$out/ranks-one-$1.log"
            [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
            timeout -k 10 300 bash ./estuary-ranks 2 --estuary ./estuary -- "${args[@]}" \
                --screenshot "$out/ranks-two-$1.png" 2>&1 | tee "$out/ranks-two-$1.log"
            [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
            if cmp "$out/ranks-one-$1.png" "$out/ranks-two-$1.png"; then
                echo "ranks: $1 $2: two ranks drew the one-process picture"
            else
                echo "ranks: $1 $2: the pictures DIFFER"
                status=1
            fi
        done
    fi
fi

if [ "$mode" = slabs ]; then
    echo "== slabs: your kernel on slabs over two GPUs against one (docs/LIBRARY.md)"
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    if [ "$gpus" -lt 2 ]; then
        echo "slabs: this machine has $gpus GPU(s); two are needed: NOT run"
        status=1
    else
        ./estuary_gpu_tests --gtest_filter='SlabsGpu.*' --gtest_output="json:$out/slabs-tests.json" \
            2>&1 | tee "$out/slabs-tests.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        for n in 1 2; do
            ESTUARY_VALIDATION=1 ./example_heat_slabs --gpus "$n" --frames 200 \
                --screenshot "$out/heat-slabs-$n.png" 2>&1 | tee "$out/heat-slabs-$n.log"
            [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
        done
        if cmp "$out/heat-slabs-1.png" "$out/heat-slabs-2.png"; then
            echo "slabs: heat_slabs on 2 GPUs drew the 1-GPU picture"
        else
            echo "slabs: heat_slabs pictures DIFFER between 1 and 2 GPUs"
            status=1
        fi
    fi
fi

if [ "$mode" = python ] || [ "$mode" = all ]; then
    echo "== Python package"
    python=${PYTHON:-python3}
    export PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
    "$python" -c 'import torch, cupy; print("torch", torch.__version__, "cupy", cupy.__version__)'
    "$python" -m pytest -q -p no:cacheprovider python/tests 2>&1 | tee "$out/python-tests.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    for example in python/examples/*.py; do
        name=$(basename "$example" .py)
        echo "== Python example: $name (headless, 120 frames, ESTUARY_VALIDATION=1)"
        ESTUARY_VALIDATION=1 ESTUARY_FRAMES=120 ESTUARY_SCREENSHOT="$out/python-$name.png" \
            DISPLAY='' "$python" "$example" 2>&1 | tee "$out/python-$name.log"
        rc=${PIPESTATUS[0]}
        if [ "$rc" -eq 3 ]; then
            echo "$name: unsupported here (exit 3), as it says above"
        elif [ "$rc" -ne 0 ] || [ ! -s "$out/python-$name.png" ]; then
            echo "$name: exit $rc"
            status=1
        fi
    done
    echo "== Python binding cost per frame against C++"
    "$python" python/bench/binding_cost.py 3000 ./estuary_binding_baseline 2>&1 |
        tee "$out/python-binding-cost.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi

if [ "$mode" = sanitize ] || [ "$mode" = all ]; then
    sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
    if [ -z "$sanitizer" ]; then
        echo "compute-sanitizer not found: sanitizer runs NOT done"
        status=1
    else
        # The tools run one after another, each bounded so that the whole mode reports inside
        # one 10-minute device call (run at once they starve each other: on an H100 memcheck
        # alone took 190 s, beside racecheck it did not finish in 470). Instrumented kernels run
        # 10-100x slower: the tests cut their longest step counts (ESTUARY_SANITIZER=1: a tenth;
        # ESTUARY_SANITIZER_STEP_DIVISOR raises the cut), and every host wait for the GPU (the
        # app's watchdog included) gets 10 minutes instead of 20 s.
        export ESTUARY_SANITIZER=1 ESTUARY_WAIT_TIMEOUT_S=600
        bound=${SANITIZER_BOUND_S:-300}
        # memcheck: every kernel of estuary: the simulations and their mip chains (SimCudaTest),
        # interop's rings and imports, the library's CUDA paths (copies, graphs, generated mips),
        # the app's CUDA backend in one process (AppGpu), and it follows the app's own processes
        # (AppGpuRun: every simulation, the OpenGL consumer, graphs) and the examples' kernels.
        # Left out: the 4096^2 round trip (the small one's code at 16x the time), the
        # out-of-memory test (it fails an allocation on purpose, which the tools count), faults
        # (on purpose), the soak and the benchmarks (the same code repeated).
        skip='-InteropGpu.Rgba32fImage4096SquaredRoundTripsExactly:*OutOfDeviceMemory*'
        skip="$skip:AppGpuRun.Bench*"
        memcheck_filter='SimCudaTest.*:InteropGpu.*:ImageRingGpu.*:BufferRingGpu.*:LibraryGpu.*'
        memcheck_filter="$memcheck_filter:AppGpu.*:AppGpuRun.*:ExamplesGpu.*$skip"
        # racecheck checks shared memory and synccheck barriers and warp syncs: only
        # cuda_sim's kernels have either (the Gray-Scott 2D/3D temporal steps, the fluid's
        # Jacobi blocks, the tiled mip chains), and SimCudaTest runs every one of them against
        # the CPU. The tests that launch nothing (tiling choosers, refusals) are left out, and
        # the step counts are cut to a hundredth: a hazard shows in the first launch of a
        # kernel's shape, not in the thousandth. Under racecheck four tests take minutes each
        # (3D volumes, the fluid with its particles, the split run): they run last, one
        # process each, each bounded by RACECHECK_SLOW_BOUND_S (default 100 s) and reported on
        # its own line, so the rest is counted whatever they do.
        shared_filter='SimCudaTest.*-*Rejects*:*OutOfDeviceMemory*:SimCudaTest.SplitRunsRefuse*'
        slow='SimCudaTest.GrayScott3dMatchesCpuBitForBitInEveryMipLevelOfAnOddVolume'
        slow="$slow SimCudaTest.GrayScott3dEveryTilingMatchesCpuBitForBitAfter1To8StepsOnOddVolumes"
        slow="$slow SimCudaTest.FluidParticlesWrittenInPlaceIntoARingMatchTheCpuEveryFrame"
        slow="$slow SimCudaTest.ASplitRunOnOneGpuEqualsTheUnsplitReferenceBitForBit"
        racecheck_filter="$shared_filter:${slow// /:}"
        tools=${SANITIZER_TOOLS:-memcheck synccheck racecheck}
        # One bounded, self-timed tool run: writes sanitize-<name>.log and .time.
        sanitize() { # name tool filter divisor bound
            local start rc
            echo "== compute-sanitizer --tool $2 (bounded to $5 s): $3"
            start=$(date +%s)
            ESTUARY_SANITIZER_STEP_DIVISOR=$4 timeout -k 20 "$5" "$sanitizer" \
                --tool "$2" --error-exitcode 99 --target-processes all \
                ./estuary_gpu_tests --gtest_filter="$3" \
                --gtest_output="json:$out/sanitize-$1.json" >"$out/sanitize-$1.log" 2>&1
            rc=$?
            echo "$rc $(($(date +%s) - start))" >"$out/sanitize-$1.time"
        }
        runs=()
        for tool in $tools; do
            case $tool in
                memcheck) sanitize memcheck memcheck "$memcheck_filter" 10 "$bound"
                          runs+=(memcheck) ;;
                synccheck) sanitize synccheck synccheck "$shared_filter" 100 "$bound"
                           runs+=(synccheck) ;;
                racecheck)
                    sanitize racecheck racecheck "$racecheck_filter" 100 "$bound"
                    runs+=(racecheck)
                    for test in $slow; do
                        sanitize "racecheck-${test#SimCudaTest.}" racecheck "$test" 100 \
                            "${RACECHECK_SLOW_BOUND_S:-100}"
                        runs+=("racecheck-${test#SimCudaTest.}")
                    done ;;
            esac
        done
        summary="$out/sanitize-summary.txt"
        : >"$summary"
        for tool in "${runs[@]}"; do
            log="$out/sanitize-$tool.log"
            read -r rc seconds <"$out/sanitize-$tool.time" || { rc=1 seconds=unknown; }
            # Every process the tool followed prints its own ERROR SUMMARY: their sum. Where the
            # bound ended the tool before its summaries, the reports it printed so far.
            # racecheck's processes end in a RACECHECK SUMMARY "(N errors, M warnings)" instead.
            errors=$(awk '/ERROR SUMMARY: [0-9]+ error/ { for (i = 1; i < NF; ++i)
                         if ($i == "SUMMARY:") { n += $(i + 1); seen = 1 } }
                         /RACECHECK SUMMARY: / { for (i = 1; i < NF; ++i)
                         if ($(i + 1) ~ /^errors/) { sub(/^\(/, "", $i); n += $i; seen = 1 } }
                         END { if (seen) print n }' "$log")
            state=finished
            if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
                state="TIMED OUT after $seconds s"
                reported=$(grep -cE '^========= +(Error|Invalid|Barrier|Race|Program hit|Uninitialized)' "$log")
                errors="${errors:-0} in finished processes, $reported reported so far"
            fi
            line="$tool: $state, exit $rc, $seconds s, errors ${errors:-unknown}"
            echo "$line" | tee -a "$summary"
            grep -E '^\[  (PASSED|FAILED|SKIPPED) +\]' "$log" | head -n 5
            grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -n 2
            [ "$rc" -eq 0 ] || status=1
        done
    fi
fi

echo "== GPU suite status: $status"
exit $status
