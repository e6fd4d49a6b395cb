# Sourced by prepare1-3.sh: so S NAME GENDIR builds GENDIR/*.cu into S/lib/libNAME.so as bench/fused.sh does (exports
# loom_* only; ptxas's report in S/lib/NAME.log), the library bymap.py and fused_bench.py load.
so() {
  mkdir -p "$1/lib"
  printf '{ global: loom_*; local: *; };\n' > "$1/exports.map"
  /usr/local/cuda/bin/nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC -Iruntime -I"$3" "$3"/*.cu \
    -o "$1/lib/lib$2.so" -Xptxas -v -Xlinker --version-script="$1/exports.map" -Xlinker -Bsymbolic \
    -L/usr/local/cuda/lib64/stubs -lcuda > "$1/lib/$2.log" 2>&1
}
