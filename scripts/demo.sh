#!/usr/bin/env bash
# Builds estuary and runs the demo: a window where there is a display, otherwise headless with a
# screenshot (estuary-demo.png in the current folder). Extra arguments go to estuary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ESTUARY_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target estuary
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
    exec "$build/bin/estuary" "$@"
fi
echo "estuary: no display found, running headless" >&2
exec "$build/bin/estuary" --headless --frames 600 --screenshot estuary-demo.png "$@"
