#!/usr/bin/env bash
# Fails when the ABI of a built library changed without the version change it needs, against the
# ABIs recorded in docs/abi/ by scripts/abi-dump.sh (docs/ABI.md has the rules):
#   - its exact version must be recorded;
#   - against the recorded dump of its own version, nothing may change at all (any change, even an
#     added function, needs a new version and a new dump);
#   - against every recorded older version with the same soname, only compatible growth is
#     allowed: functions added, enum values added, fields appended to a struct that starts with
#     struct_size. Anything else (a function removed or changed, a field inserted, moved, renamed
#     or retyped, an enum value changed, a struct without struct_size or embedded in another
#     grown) needs a new soname.
#
#   scripts/abi-check.sh BUILD_DIR
#       libestuary of BUILD_DIR against docs/abi/
#   scripts/abi-check.sh --library FILE --headers DIR --dumps DIR
#       any libNAME.so.X.Y.Z (see scripts/abi-dump.sh) against DIR/libNAME-*.abi
#
# Exit status: 0 compatible and recorded; 10 its version is not recorded; 11 the ABI changed but
# the version did not; 12 an incompatible change within one soname; 1 the check itself failed
# (a tool missing, a bad argument); 2 usage. abidiff's report is printed with every failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    sed -n '13,16p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
die() {
    echo "abi-check: $*" >&2
    exit 1
}

library="" headers="" dumps="" build=""
if [ $# -eq 1 ] && [ "${1#-}" = "$1" ]; then
    build=$1
else
    while [ $# -gt 0 ]; do
        [ $# -ge 2 ] || usage
        case $1 in
        --library) library=$2 ;;
        --headers) headers=$2 ;;
        --dumps) dumps=$2 ;;
        *) usage ;;
        esac
        shift 2
    done
    if [ -z "$library" ] || [ -z "$headers" ] || [ -z "$dumps" ]; then usage; fi
fi
for tool in abidw abidiff; do
    command -v $tool >/dev/null ||
        die "$tool not found: install abigail-tools (scripts/install-deps.sh does)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- the library as built now ----------------------------------------------------------------
if [ -n "$build" ]; then
    [ -e "$build/bin/libestuary.so" ] ||
        die "no bin/libestuary.so in '$build': build it first" \
            "(cmake --build '$build' --target viewer)"
    library=$(readlink -f "$build/bin/libestuary.so") headers=$root/include/estuary
    dumps=$root/docs/abi
    record="scripts/abi-dump.sh $build"
    where="in ESTUARY_API_VERSION (include/estuary/estuary.h) and project(estuary VERSION) in"
    where="$where CMakeLists.txt together"
else
    record="scripts/abi-dump.sh --library $library --headers $headers --dumps $dumps"
    where="in the library's build"
fi
[ -f "$library" ] || die "no library '$library'"
file=$(basename "$(readlink -f "$library")")
[[ $file =~ ^lib([A-Za-z0-9_]+)\.so\.([0-9]+\.[0-9]+\.[0-9]+)$ ]] ||
    die "'$file' is not named libNAME.so.X.Y.Z: cannot tell its version"
name=${BASH_REMATCH[1]} version=${BASH_REMATCH[2]}
"$root/scripts/abi-dump.sh" --library "$library" --headers "$headers" --out "$work/built.abi"

soname_of() { sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$1"; }
soname=$(soname_of "$work/built.abi")
[ -n "$soname" ] || die "$file has no SONAME"

# ---- the comparison: one recorded dump against the built one -----------------------------------
# The structs of a dump: name, size in bits, first field.
read -r -d '' list_structs <<'AWK' || true
function attribute(line, key,    rest) {
    rest = substr(line, index(line, " " key "='") + length(key) + 3)
    return substr(rest, 1, index(rest, "'") - 1)
}
/<class-decl / && !/is-declaration-only=/ {
    struct = attribute($0, "name"); size = attribute($0, "size-in-bits")
    next
}
struct != "" && /<var-decl / { print struct, size, attribute($0, "name"); struct = "" }
AWK

# Judges each change of abidiff's leaf report (--leaf-changes-only --harmless): prints
# "compatible<TAB>what" for growth, "incompatible<TAB>what" for anything else.
read -r -d '' judge_changes <<'AWK' || true
function judge(kind, text) { print kind "\t" text }
function noun() { return fields == 1 ? "field " : "fields " }
function close_type() {
    if (type_kind == "struct" && inserted != "") {
        if (!(type_name in first_field))
            judge("incompatible", type_name ": fields added to a struct not in the recorded ABI")
        else if (first_field[type_name] != "struct_size")
            judge("incompatible", type_name ": grown, but it does not start with struct_size," \
                  " so a caller cannot say which size it has")
        else if (min_offset < old_size[type_name])
            judge("incompatible", type_name ": " noun() inserted " inserted within its old " \
                  old_size[type_name] / 8 " bytes (append only, after the old end)")
        else
            judge("compatible", type_name ": " noun() inserted " appended")
    } else if (type_kind == "struct" && grew)
        judge("incompatible", type_name ": grown without a field appended")
    type_kind = ""; type_name = ""; inserted = ""; fields = 0; grew = 0; min_offset = -1; list = ""
}
FILENAME == ARGV[1] { first_field[$1] = $3; old_size[$1] = $2; next }
/^$/ || /summary: / { next }
/^[^ ]/ {
    close_type()
    section = ""
    if ($0 ~ /^[0-9]+ Removed /) section = "removed"
    else if ($0 ~ /^[0-9]+ Added /) section = "added"
    else if ($0 ~ /^[0-9]+ .* with /) section = "changed"
    else if ($0 ~ /^'(struct|class) [^']*' changed:$/) section = "struct"
    else if ($0 ~ /^'enum [^']*' changed:$/) section = "enum"
    else judge("incompatible", "not recognised as growth: " $0)
    if (section == "struct" || section == "enum") {
        type_kind = section
        type_name = $0; sub(/^'[a-z]+ /, "", type_name); sub(/' changed:$/, "", type_name)
    }
    next
}
section == "removed" && /^  \[D\]/ { judge("incompatible", "removed: " substr($0, 7)); next }
section == "added" && /^  \[A\]/ { judge("compatible", "added: " substr($0, 7)); next }
section == "changed" && /^  \[C\]/ { judge("incompatible", "changed: " substr($0, 7)); next }
section == "removed" || section == "added" || section == "changed" { next }
section == "struct" || section == "enum" {
    if ($0 ~ /^  [^ ]/) list = ""
    if ($0 ~ /^  type size hasn't changed$/ || $0 ~ /^  details were reported earlier$/) next
    if (section == "struct" && $0 ~ /^  type size changed from [0-9]+ to [0-9]+ /) {
        if ($5 + 0 < $7 + 0) { grew = 1; next }
    }
    if (section == "struct" && $0 ~ /^  [0-9]+ data member insertions?:$/) {
        list = "inserted"; next
    }
    if (list == "inserted" && $0 ~ /^    '.*', at offset [0-9]+ /) {
        offset = $(NF - 2) + 0
        if (min_offset < 0 || offset < min_offset) min_offset = offset
        field = $0; sub(/^    /, "", field); sub(/, at offset.*/, "", field)
        inserted = inserted (inserted == "" ? "" : ", ") field; fields++
        next
    }
    if (section == "enum" && $0 ~ /^  [0-9]+ enumerator insertions?:$/) {
        list = "enumerators"; next
    }
    if (list == "enumerators" && $0 ~ /^    '/) {
        value = $0; sub(/^    /, "", value)
        judge("compatible", type_name ": enum value " value " added")
        next
    }
    if ($0 ~ /^  [^ ].*:$/) {
        # a heading (data member changes, deletions, enumerator changes): judge its items
        list = "details"; heading = $0
        sub(/^  (there are |[0-9]+ )?/, "", heading); sub(/:$/, "", heading)
        next
    }
    if (list == "details" && $0 ~ /^    [^ ]/) {
        judge("incompatible", type_name ": " heading ": " substr($0, 5)); next
    }
    if ($0 ~ /^  [^ ]/) judge("incompatible", type_name ": " substr($0, 3))
    next
}
{ judge("incompatible", "not recognised as growth: " $0) }
END {
    close_type()
    if (abidiff_incompatible) judge("incompatible", "abidiff: an incompatible change")
}
AWK

# classify OLD NEW: sets `verdict` to none, compatible or incompatible, `findings` to one line per
# change and `report` to abidiff's leaf report. abidiff's own verdict (exit bit 8) covers removed
# functions only, and it files an added enum value under harmless changes: every leaf change is
# judged here, and what is not recognised as growth counts as incompatible.
classify() {
    local old=$1 new=$2 status=0
    report=$work/report-$(basename "$old").txt
    abidiff --leaf-changes-only --harmless --no-show-locs "$old" "$new" >"$report" 2>&1 ||
        status=$?
    if [ $((status & 3)) -ne 0 ]; then
        cat "$report" >&2
        die "abidiff failed (status $status) comparing $old with the built library"
    fi
    if [ $status -eq 0 ]; then
        verdict=none findings=""
        return
    fi
    awk "$list_structs" "$old" >"$work/structs.txt"
    findings=$(awk -v abidiff_incompatible=$(((status & 8) != 0)) "$judge_changes" \
        "$work/structs.txt" "$report")
    if [ -z "$findings" ]; then
        findings=$(printf 'incompatible\tabidiff reports a change this check does not recognise')
    fi
    if grep -q '^incompatible' <<<"$findings"; then
        verdict=incompatible
    else
        verdict=compatible
    fi
}

# say_findings KIND: the findings of that kind, one per line, then abidiff's report.
say_findings() {
    grep "^$1" <<<"$findings" | cut -f2 | sed 's/^/    - /' >&2
    echo "  abidiff's report:" >&2
    sed 's/^/    | /' "$report" >&2
}

# ---- the recorded versions, oldest first ---------------------------------------------------------
recorded=()
shopt -s nullglob
for dump in "$dumps"/lib"$name"-*.abi; do
    v=${dump##*/lib"$name"-}
    v=${v%.abi}
    [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && recorded+=("$v")
done
shopt -u nullglob
if [ ${#recorded[@]} -gt 0 ]; then
    mapfile -t recorded < <(printf '%s\n' "${recorded[@]}" | sort -V)
fi
dump_of() { echo "$dumps/lib$name-$1.abi"; }
older_than() {
    [ "$1" != "$2" ] && [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]
}
soname_bump() {
    echo "  An incompatible change needs a new soname: raise the minor version (below 1.0; the" \
        "major from 1.0 on) $where, then record the new version with $record." >&2
    exit 12
}

echo "abi-check: lib$name $version (soname $soname) against ${#recorded[@]} recorded in $dumps" >&2

# Every older version of the same soname: whatever was linked against it must still run.
newest_older="" grown_since=""
for v in "${recorded[@]}"; do
    older_than "$v" "$version" || continue
    newest_older=$v
    [ "$(soname_of "$(dump_of "$v")")" = "$soname" ] || continue
    classify "$(dump_of "$v")" "$work/built.abi"
    if [ "$verdict" = incompatible ]; then
        echo "abi-check: FAIL: lib$name $version is not compatible with the recorded $v of the" \
            "same soname $soname:" >&2
        say_findings incompatible
        soname_bump
    fi
    grown_since=$v
done

exact=$(dump_of "$version")
if [ ! -f "$exact" ]; then
    echo "abi-check: FAIL: the ABI of lib$name $version is not recorded ($exact):" \
        "record it with $record and commit the file." >&2
    if [ -n "$grown_since" ] && [ "$verdict" = compatible ]; then
        echo "  It grew compatibly since $grown_since:" >&2
        grep "^compatible" <<<"$findings" | cut -f2 | sed 's/^/    - /' >&2
    elif [ -n "$newest_older" ] && [ -z "$grown_since" ]; then
        echo "  The soname changed from $(soname_of "$(dump_of "$newest_older")") (recorded" \
            "$newest_older) to $soname: the new soname's first version is its baseline; record" \
            "it." >&2
    fi
    exit 10
fi
[ "$(soname_of "$exact")" = "$soname" ] ||
    die "$exact records soname $(soname_of "$exact"), but lib$name $version has $soname"

classify "$exact" "$work/built.abi"
case $verdict in
none)
    echo "abi-check: OK: lib$name $version matches its recorded ABI" >&2
    exit 0
    ;;
incompatible)
    echo "abi-check: FAIL: lib$name $version changed its ABI incompatibly against the recorded" \
        "$version (soname $soname):" >&2
    say_findings incompatible
    soname_bump
    ;;
compatible)
    echo "abi-check: FAIL: the ABI of lib$name changed but its version is still $version, the" \
        "recorded one:" >&2
    say_findings compatible
    echo "  Raise the patch version (or the minor) $where, then record the new version with" \
        "$record." >&2
    exit 11
    ;;
esac
