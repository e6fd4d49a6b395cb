#!/usr/bin/env bash
# scripts/pack_loom.sh [BUILD] [DEST]: a copy of the loom binary that runs on the GPU machine, which
# has none of loom's solver libraries (z3, CBC/CLP, LAPACK): DEST/loom.bin (stripped), DEST/lib/ (the
# shared libraries it needs beyond libc, libstdc++ and zlib) and DEST/loom, a script that runs
# loom.bin with DEST/lib on the library path (only for loom, not for the Python that calls it). Defaults: build/ -> build-gpu/bin
# (about 42 MB, under the device tool's 64 MiB carry limit). tests/gpu/torch_ops.sh uses DEST/loom
# when it exists, so that python/tests' loom.compile tests run there too.
set -eu
BUILD=${1:-build}
DEST=${2:-build-gpu/bin}
[ -x "$BUILD/loom" ] || { echo "pack_loom.sh: no $BUILD/loom (build first)" >&2; exit 1; }
rm -rf "$DEST"; mkdir -p "$DEST/lib"
strip -o "$DEST/loom.bin" "$BUILD/loom"
cat > "$DEST/loom" <<'SH'
#!/bin/sh
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/loom.bin" "$@"
SH
chmod +x "$DEST/loom"
ldd "$BUILD/loom" | awk '/=> \//{print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|libpthread.so*|libdl.so*|librt.so*|libz.so*) ;;
    *) cp -L "$lib" "$DEST/lib/" ;;
  esac
done
du -sh "$DEST"
