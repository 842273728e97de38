#!/usr/bin/env bash
# FFmpeg for the GPU machine, so that --record runs there: its machine has no package access and
# gets only the folders a run carries (64 MiB in all). Debian 12's own libraries would load, but
# libavcodec59 and libavformat59 need 122 packages (60 MiB of .debs: librsvg, codec2, ICU, ...)
# for codecs estuary never uses. This builds the same FFmpeg (Debian's source of the version
# libestuary_video.so was linked against, so the sonames and symbol versions match) with only what
# the video module uses: the libx264 encoder, the H.264 decoder and parser, the MP4 and Matroska
# muxers and demuxers, the file protocol and swscale; libx264.so.164 is Debian's own.
#
# Out: OUT_DIR (default .ff/lib, git-ignored) with libavcodec.so.59, libavformat.so.59,
# libavutil.so.57, libswscale.so.6 and libx264.so.164, each with RUNPATH $ORIGIN, and a check
# that their every DT_NEEDED is among them or glibc's. The bundle target copies the folder beside
# libestuary_video.so (CMakeLists.txt, ESTUARY_BUNDLE_FFMPEG_DIR), whose RUNPATH is $ORIGIN.
#
#   scripts/gpu-ffmpeg.sh [OUT_DIR]       (needs apt-get, dpkg-source, nasm, patchelf, a C compiler)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.ff/lib}
work=${FFMPEG_WORK:-/tmp/estuary-ffmpeg}
version=$(dpkg-query -W -f='${Version}' libavcodec59 2>/dev/null || true)
if [[ -z $version ]]; then
    echo "gpu-ffmpeg.sh: libavcodec59 is not installed here, so there is no FFmpeg version to" \
        "match (install libavcodec-dev, which estuary's build uses for libestuary_video.so)" >&2
    exit 2
fi
for tool in apt-get dpkg-source nasm patchelf cc make; do
    command -v "$tool" >/dev/null || { echo "gpu-ffmpeg.sh: needs $tool" >&2; exit 2; }
done
mkdir -p "$work/lists/partial"
cd "$work"

# Debian's source of exactly that version, through apt with its own lists (the machine's are left).
cat >sources.list <<'EOF'
deb-src http://deb.debian.org/debian bookworm main
deb-src http://deb.debian.org/debian bookworm-updates main
deb-src http://deb.debian.org/debian-security bookworm-security main
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
o=(-oDir::Etc::SourceList="$work/sources.list" -oDir::Etc::SourceParts=/nonexistent
    -oDir::State::Lists="$work/lists" -oAPT::Architecture=amd64 -oAPT::Architectures=amd64)
upstream=${version#*:}
upstream=${upstream%%-*}
src=$work/ffmpeg-$upstream
if [[ ! -d $src ]]; then
    apt-get "${o[@]}" update >/dev/null
    apt-get "${o[@]}" source --download-only "ffmpeg=$version" >/dev/null
    dpkg-source -x "ffmpeg_${version#*:}.dsc" "$src" >/dev/null
fi
# x264's header, from Debian's libx264-dev of the installed libx264-164 (unpacked, not installed).
x264=$work/x264
if [[ ! -f $x264/usr/include/x264.h ]]; then
    apt-get "${o[@]}" download "libx264-dev=$(dpkg-query -W -f='${Version}' libx264-164)" >/dev/null
    dpkg -x libx264-dev_*.deb "$x264"
fi
# Linked against the installed libx264.so.164, described to configure by a .pc of its own.
mkdir -p "$x264/link" "$x264/pkgconfig"
ln -sf /usr/lib/x86_64-linux-gnu/libx264.so.164 "$x264/link/libx264.so"
cat >"$x264/pkgconfig/x264.pc" <<EOF
Name: x264
Description: H.264 encoder (Debian's libx264-164, header from libx264-dev)
Version: 0.164
Libs: -L$x264/link -lx264
Cflags: -I$x264/usr/include
EOF

build=$work/build-$upstream
prefix=$work/prefix-$upstream
if [[ ! -f $prefix/lib/libavcodec.so.59 ]]; then
    rm -rf "$build"
    mkdir -p "$build"
    cd "$build"
    PKG_CONFIG_PATH=$x264/pkgconfig "$src/configure" --prefix="$prefix" --enable-shared --disable-static --enable-gpl \
        --disable-programs --disable-doc --disable-autodetect --disable-everything \
        --disable-avdevice --disable-avfilter --disable-postproc --disable-swresample \
        --enable-libx264 --enable-encoder=libx264 --enable-decoder=h264 --enable-parser=h264 \
        --enable-bsf=h264_mp4toannexb,extract_extradata --enable-muxer=mp4,mov,matroska \
        --enable-demuxer=mov,matroska --enable-protocol=file >configure.log
    make -j"${JOBS:-2}" >make.log 2>&1 || { tail -30 make.log >&2; exit 1; }
    make install >/dev/null
fi

rm -rf "$out"
mkdir -p "$out"
for lib in libavcodec.so.59 libavformat.so.59 libavutil.so.57 libswscale.so.6; do
    cp -L "$prefix/lib/$lib" "$out/$lib"
done
cp -L /usr/lib/x86_64-linux-gnu/libx264.so.164 "$out/"
for lib in "$out"/*.so*; do
    chmod u+w "$lib"
    strip --strip-unneeded "$lib"
    # shellcheck disable=SC2016 # $ORIGIN is the loader's, not the shell's
    patchelf --set-rpath '$ORIGIN' "$lib"
done

# The closure: every DT_NEEDED of these libraries (and of libestuary_video.so) is one of them or
# glibc's, which every Linux machine has; nothing else may be asked for.
core='^(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so\.[0-9]+$'
missing=0
for lib in "$out"/*.so*; do
    while read -r needed; do
        if [[ ! -f $out/$needed ]] && ! [[ $needed =~ $core ]]; then
            echo "gpu-ffmpeg.sh: $(basename "$lib") needs $needed, which is neither here nor glibc's" >&2
            missing=1
        fi
    done < <(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
done
[[ $missing == 0 ]] || exit 1
# And the loader agrees: each resolves its FFmpeg and x264 libraries from this folder.
for lib in "$out"/*.so*; do
    if LD_LIBRARY_PATH='' ldd "$lib" | grep -E 'lib(av|sw|x264)' | grep -v "=> $out/" >&2; then
        echo "gpu-ffmpeg.sh: $(basename "$lib") resolves a library from outside $out" >&2
        exit 1
    fi
done
echo "gpu-ffmpeg.sh: FFmpeg $upstream (libx264 only) in $out: $(du -sh "$out" | cut -f1)," \
    "$(find "$out" -type f | wc -l) files"
