#!/bin/bash
# `cmake --install` into a temporary prefix, then use it as a user would: docs/reading.md's C example built
# with pkg-config (shared and --static) and with find_package(sitepack) in CMake, each run on a merged file
# and compared with the Python package's numbers; the installed CLI's version; `pip install` of python/
# into a venv with --system-site-packages, whose sitepack has the C tool's version and reads the file.
# Usage: install.sh BUILD_DIR SOURCE_DIR MERGED.h5 PYTHON WORK_DIR
set -euo pipefail
build=$1 src=$2 h5=$3 py=$4 w=$5
rm -rf "$w" && mkdir -p "$w"
fail() { echo "install test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$w/prefix" > "$w/install.log"
P=$w/prefix
for f in bin/sitepack lib/libsitepack.a lib/libsitepack.so include/sitepack/reader.h include/sitepack/version.h \
         lib/pkgconfig/sitepack.pc lib/cmake/sitepack/sitepackConfig.cmake lib/cmake/sitepack/sitepackTargets.cmake; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
ver=$("$P/bin/sitepack" --version | awk '{print $2}')
[ "$ver" = "$(awk '/^project\(sitepack VERSION/{print $3}' "$src/CMakeLists.txt")" ] || fail "installed sitepack --version: $ver"

# the C block of docs/reading.md, verbatim
awk '/^```c$/{on=1; next} /^```$/{on=0} on' "$src/docs/reading.md" > "$w/reader_example.c"
[ -s "$w/reader_example.c" ] || fail "no C block in docs/reading.md"
PYTHONPATH=$src/python "$py" - "$h5" > "$w/expected.txt" <<'PYEOF'
import sys
import sitepack
ds = sitepack.open(sys.argv[1])
for i in (42, 7, 10):
    s = ds[i]
    p = s.positions[0]
    print(f"site {i}: {s.n_atoms} atoms, {s.n_ligand} ligand, first atom Z={s.elements[0]} at "
          f"{p[0]:.3f} {p[1]:.3f} {p[2]:.3f}")
print(f"site 42: first B factor {ds[42].atoms('b_iso')[0]:.2f} A^2")
PYEOF
export PKG_CONFIG_PATH=$P/lib/pkgconfig
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$w/ex_shared" "$w/reader_example.c" $(pkg-config --cflags --libs sitepack)
LD_LIBRARY_PATH=$P/lib "$w/ex_shared" "$h5" > "$w/shared.txt"
diff "$w/expected.txt" "$w/shared.txt" || fail "pkg-config (shared) example output differs from the Python package"
libs=$(LD_LIBRARY_PATH=$P/lib ldd "$w/ex_shared")   # not piped into grep -q: its early exit would SIGPIPE ldd
[[ $libs == *"libsitepack.so.0 => $P/lib/libsitepack.so.0"* ]] || fail "ex_shared does not use the installed libsitepack.so: $libs"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -static-libgcc -o "$w/ex_static" "$w/reader_example.c" \
  $(pkg-config --cflags sitepack) "$P/lib/libsitepack.a" $(pkg-config --static --libs-only-other --libs-only-l sitepack | sed 's/-lsitepack//')
"$w/ex_static" "$h5" > "$w/static.txt"
diff "$w/expected.txt" "$w/static.txt" || fail "static example output differs"

# a CMake project using the installed package
mkdir -p "$w/consumer"
cp "$w/reader_example.c" "$w/consumer/"
cat > "$w/consumer/CMakeLists.txt" <<'CMEOF'
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(sitepack 0.1 REQUIRED)
add_executable(ex reader_example.c)
target_link_libraries(ex PRIVATE sitepack::sitepack)
CMEOF
cmake -S "$w/consumer" -B "$w/consumer/build" -DCMAKE_PREFIX_PATH="$P" > "$w/consumer.log" 2>&1 || { cat "$w/consumer.log"; fail "find_package(sitepack)"; }
cmake --build "$w/consumer/build" >> "$w/consumer.log" 2>&1 || { cat "$w/consumer.log"; fail "consumer build"; }
"$w/consumer/build/ex" "$h5" > "$w/cmake.txt"
diff "$w/expected.txt" "$w/cmake.txt" || fail "find_package example output differs"

# pip install of the Python package into a venv that sees Debian's numpy/h5py (no network: --no-index; --no-deps:
# Debian registers its h5py as "h5py._debian_h5py_serial", which pip does not take for the h5py requirement)
cp -r "$src/python" "$w/pysrc"
"$py" -m venv --system-site-packages "$w/venv"
"$w/venv/bin/pip" install --quiet --no-index --no-build-isolation --no-deps "$w/pysrc" > "$w/pip.log" 2>&1 || { cat "$w/pip.log"; fail "pip install ./python"; }
# the same without a C compiler (CC=/bin/false): the optional extension sitepack._fast is left out, pure Python
# (a fresh copy: pip builds in the source folder, and setuptools would reuse the first install's module)
cp -r "$src/python" "$w/pysrc_pure"
"$py" -m venv --system-site-packages "$w/venv_pure"
CC=/bin/false "$w/venv_pure/bin/pip" install --quiet --no-index --no-build-isolation --no-deps "$w/pysrc_pure" \
  > "$w/pip_pure.log" 2>&1 || { cat "$w/pip_pure.log"; fail "pip install ./python without a compiler"; }
for v in venv:True venv_pure:False; do
(cd "$w" && env -u PYTHONPATH -u SITEPACK_PURE_PYTHON "$w/${v%%:*}/bin/python" - "$h5" "$ver" "$w/${v%%:*}" "${v##*:}" <<'PYEOF'
import sys
import numpy as np
import sitepack
h5, ver, venv, compiled = sys.argv[1:5]
assert sitepack.__file__.startswith(venv), sitepack.__file__
assert sitepack.__version__ == ver, (sitepack.__version__, ver)
assert sitepack.COMPILED == (compiled == "True"), (sitepack.COMPILED, compiled)   # the extension built, or not
ds = sitepack.open(h5)
assert len(ds) > 42 and ds.run["tool_version"] == ver, (len(ds), ds.run.get("tool_version"))
pure = sitepack.Dataset(h5, compiled=False)
assert all(np.array_equal(ds[i].positions, pure[i].positions) for i in range(len(ds)))
print(f"venv sitepack {sitepack.__version__} (compiled reader: {sitepack.COMPILED}): {len(ds)} sites")
PYEOF
) || fail "the venv's sitepack (${v%%:*})"
done
echo "install test: all checks passed (prefix $P)"
