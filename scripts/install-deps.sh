#!/usr/bin/env bash
# Installs estuary's build and test dependencies from Debian 12 packages. Idempotent: it only calls
# apt-get when a package is missing. The CUDA Toolkit (/usr/local/cuda) is a prerequisite, not
# installed here; without it the build still succeeds, with the CPU backend only.
set -euo pipefail
packages=(
    build-essential cmake ninja-build pkg-config
    libvulkan-dev libvulkan-volk-dev vulkan-validationlayers vulkan-tools glslc mesa-vulkan-drivers
    libglfw3-dev libglm-dev libimgui-dev libstb-dev libcli11-dev libgtest-dev libepoxy-dev
    libfreetype-dev fonts-dejavu-core
    nlohmann-json3-dev libboost-dev libavcodec-dev libavformat-dev libavutil-dev libswscale-dev
    libffmpeg-nvenc-dev
    xvfb xauth python3 python3-matplotlib python3-numpy python3-pytest python3-pip
    abigail-tools
    chromium chromium-driver python3-selenium
)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "estuary: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
