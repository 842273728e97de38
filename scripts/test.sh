#!/usr/bin/env bash
# Builds estuary and runs the whole test suite: CPU tests, the renderer on Vulkan (lavapipe where
# there is no GPU), the app under the validation layer, window tests under Xvfb where there is no
# display, and the GPU suite (which skips, saying why, where there is no NVIDIA GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ESTUARY_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)"
cd "$build"
run=()
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    # -noreset: by default the X server resets when its last client disconnects, and a window test
    # that connects during that reset fails to open the display.
    run=(xvfb-run -a -s "-screen 0 1280x1024x24 -noreset")
fi
"${run[@]}" ctest --output-on-failure -j 2 --timeout 900

# The same tree without CUDA, as on a machine without the toolkit: it must build, and the CPU
# backend, both simulations' CPU halves, the mapping tables and the install must still pass.
cmake -S "$root" -B "$build-cpu" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DESTUARY_WITH_CUDA=OFF >/dev/null
cmake --build "$build-cpu" -j "$(nproc)"
cd "$build-cpu"
"${run[@]}" ctest --output-on-failure -j 2 --timeout 900
