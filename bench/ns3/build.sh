#!/usr/bin/env bash
# Compiles the ns-3 benchmark programs against the ns-3 libraries shipped in the `ns3`
# wheel (`pip install ns3`, version 3.44): headers in <site-packages>/ns3/include, shared
# libraries in <site-packages>/ns3/lib64.
#
#   bench/ns3/build.sh [PYTHON]     PYTHON: an interpreter with ns3 installed
#                                   (default: $PYTHON, else python3)
# Output: bench/ns3/build/dumbbell and bench/ns3/build/wlan (both include common.h).
# Rebuilds only when a source is newer. Each program links only the ns-3 modules it uses (a module more is a library
# more to load and map, which shows in the start-up time and peak memory).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${1:-${PYTHON:-python3}}"
if [[ "$python" == */* ]]; then
    # Absolute (the symlink kept: a venv's interpreter must be called by its own path).
    python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")"
fi
# From /, so that this directory (bench/ns3) cannot shadow the installed package when the
# script runs from bench/.
ns3_dir="$(cd / && "$python" - <<'PY'
import importlib.util, os, sys
spec = importlib.util.find_spec("ns3")
if spec is None or not spec.submodule_search_locations:
    sys.exit("the ns3 package is not installed for this interpreter: pip install ns3")
print(list(spec.submodule_search_locations)[0])
PY
)"
inc="$ns3_dir/include"
lib="$ns3_dir/lib64"
[ -d "$lib" ] || lib="$ns3_dir/lib"
ver="$(ls "$lib" | sed -n 's/^libns3\.\([0-9.]*\)-core\.so$/\1/p' | head -1)"
if [ -z "$ver" ]; then
    echo "no libns3.*-core.so in $lib" >&2
    exit 1
fi
mkdir -p "$here/build"
base="core network internet point-to-point applications traffic-control bridge stats"
modules_dumbbell="$base"
modules_wlan="$base wifi mobility propagation spectrum antenna energy"
for prog in dumbbell wlan; do
    src="$here/$prog.cc"
    out="$here/build/$prog"
    modules_var="modules_$prog"
    libs=""
    for m in ${!modules_var}; do
        libs="$libs -lns3.$ver-$m"
    done
    if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$here/common.h" -nt "$out" ] || [ "$0" -nt "$out" ]; then
        echo "building $out against ns-3 $ver in $ns3_dir" >&2
        # Optimised like the wheel's libraries (built without asserts or logging).
        ${CXX:-g++} -std=c++20 -O2 -DNDEBUG -I"$inc" "$src" -o "$out" \
            -L"$lib" -Wl,-rpath,"$lib" -Wl,-rpath-link,"$lib" $libs -lpthread
    fi
done
echo "$here/build"
