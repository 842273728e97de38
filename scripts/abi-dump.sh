#!/usr/bin/env bash
# Records the ABI of a shared library as libabigail XML: the functions its public headers declare
# and the types they reach, nothing of its internals, in a text that depends neither on the build
# folder nor on what else the library happens to export or link (docs/ABI.md).
#
#   scripts/abi-dump.sh BUILD_DIR
#       libestuary of BUILD_DIR (bin/libestuary.so -> libestuary.so.X.Y.Z) into
#       docs/abi/libestuary-X.Y.Z.abi
#   scripts/abi-dump.sh --library FILE --headers DIR (--dumps DIR | --out FILE)
#       any library named libNAME.so.X.Y.Z whose public functions are NAME_*, with the headers in
#       DIR: into DIR/libNAME-X.Y.Z.abi, or into FILE (scripts/abi-check.sh dumps this way)
#
# Needs abidw (Debian: abigail-tools, installed by scripts/install-deps.sh) and a library built
# with debug info (RelWithDebInfo or Debug).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    sed -n '6,11p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
die() {
    echo "abi-dump: $*" >&2
    exit 1
}

library="" headers="" dumps="" out=""
if [ $# -eq 1 ] && [ "${1#-}" = "$1" ]; then
    # The library the build made last: its namelink points (through the soname) at the real file.
    [ -e "$1/bin/libestuary.so" ] ||
        die "no bin/libestuary.so in '$1': build it first (cmake --build '$1' --target viewer)"
    library=$(readlink -f "$1/bin/libestuary.so") headers=$root/include/estuary dumps=$root/docs/abi
else
    while [ $# -gt 0 ]; do
        [ $# -ge 2 ] || usage
        case $1 in
        --library) library=$2 ;;
        --headers) headers=$2 ;;
        --dumps) dumps=$2 ;;
        --out) out=$2 ;;
        *) usage ;;
        esac
        shift 2
    done
    if [ -z "$library" ] || [ -z "$headers" ] || { [ -z "$dumps" ] && [ -z "$out" ]; }; then
        usage
    fi
fi
command -v abidw >/dev/null ||
    die "abidw not found: install abigail-tools (scripts/install-deps.sh does)"
[ -f "$library" ] || die "no library '$library'"
[ -d "$headers" ] || die "no header folder '$headers'"
sections=$(readelf -S "$library") || die "readelf cannot read '$library'"
[[ $sections == *.debug_info* ]] ||
    die "'$library' has no debug info: the ABI is read from it; build with RelWithDebInfo or Debug"

# The real file's name carries the version: libNAME.so.X.Y.Z (CMake's VERSION property).
file=$(basename "$(readlink -f "$library")")
[[ $file =~ ^lib([A-Za-z0-9_]+)\.so\.([0-9]+\.[0-9]+\.[0-9]+)$ ]] ||
    die "'$file' is not named libNAME.so.X.Y.Z: cannot tell its version"
name=${BASH_REMATCH[1]} version=${BASH_REMATCH[2]}
recorded=0
if [ -z "$out" ]; then
    mkdir -p "$dumps"
    out=$dumps/lib$name-$version.abi recorded=1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Only NAME_* functions and variables are the interface: anything else a library exports by
# accident (a weak C++ template instance of the standard library) is left out of the record.
cat >"$work/public.suppr" <<EOF
[suppress_function]
  symbol_name_not_regexp = ^${name}_
  drop = yes

[suppress_variable]
  symbol_name_not_regexp = ^${name}_
  drop = yes
EOF
# --drop-private-types with --headers-dir: types not declared in the public headers are gone;
# no locations, no paths, no DT_NEEDED (which differs with and without CUDA), hashed type ids:
# the text changes only when the ABI does.
abidw --headers-dir "$headers" --drop-private-types --drop-undefined-syms \
    --exported-interfaces-only --suppressions "$work/public.suppr" --no-corpus-path \
    --no-comp-dir-path --no-show-locs --no-elf-needed --type-id-style hash \
    --out-file "$work/raw.abi" "$library" || die "abidw failed on '$library'"
# Translation units that contribute nothing are dropped and the others named by their file's
# name alone (abidw writes them as the compiler saw them, relative to the build folder).
awk '
    /^  <abi-instr / { held = $0; next }
    held != "" && /^  <\/abi-instr>/ { held = ""; next }
    held != "" {
        sub(/path=\x27([^\x27]*\/)?/, "path=\x27", held)
        print held
        held = ""
    }
    { print }
' "$work/raw.abi" >"$work/clean.abi"
# A header folder that is not the one the library was built with leaves no public type behind.
grep -q "<\(class\|enum\|typedef\)-decl name='${name}_" "$work/clean.abi" ||
    die "the dump of '$library' has no ${name}_* type: are '$headers' the headers it was built" \
        "with, and was it built with debug info?"
mv "$work/clean.abi" "$out"
if [ $recorded -eq 1 ]; then
    echo "abi-dump: recorded the ABI of $file in $out" >&2
fi
