#!/usr/bin/env bash
# Session 47: what the extended gemm_bias_act (gelu_fast) and add_gemm dispatchers would pick (report section 3),
# offline: each mapping's estimate_cycles() and load_bytes() compiled for the host from prepare2.sh's generated
# code (build-gpu/s47b/ext/gen), on the 35 shapes of fused_bench (5 listed + the 30-shape sweep of seed 20261125);
# prints the shapes whose pick changes from the committed menu's (first of equal estimates) to the extended
# menu's (fewest bytes of equal estimates). Without a device cluster_slots() fails and slots = SMs / S.
set -eu
T=$(mktemp -d)
python3 - "$T" <<'PY'
import sys
T = sys.argv[1]
for name, n, nb, hdr, args, setup in [
    ("gba", 18, 15, "gemm_bias_act.cu", "C, A, B, bias",
     "loom_tensor C = t2(m, n), A = t2(m, k), B = t2(k, n); loom_tensor bias{}; bias.data = C.data; bias.rank = 1;"
     " bias.dtype = LOOM_BF16; bias.shape[0] = n; bias.stride[0] = 1;"),
    ("ag", 13, 10, "add_gemm.cu", "E, A, B, C2, D",
     "loom_tensor E = t2(m, n), A = t2(m, k), B = t2(k, n), C2 = t2(m, k), D = t2(k, n);")]:
    ce = "".join(f"    e[{i}] = mapping{i}::estimate_cycles({args}, nullptr, 132);\n" for i in range(n))
    cb = "".join(f"    b[{i}] = mapping{i}::load_bytes({args}, nullptr);\n" for i in range(n))
    open(f"{T}/{name}.cu", "w").write(f'''#include <cstdio>
#include "{hdr}"
static loom_tensor t2(long long r, long long c) {{
  loom_tensor t{{}};
  t.data = reinterpret_cast<void*>(uintptr_t{{1}} << 20);
  t.rank = 2; t.dtype = LOOM_BF16; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;
  return t;
}}
int main() {{
  long long m, n, k;
  while (std::scanf(" %lldx%lldx%lld", &m, &n, &k) == 3) {{
    {setup}
    double e[{n}], b[{n}];
{ce}{cb}    int p0 = 0, p1 = 0;
    for (int i = 1; i < {n}; ++i) {{
      if (i < {nb} && e[i] < e[p0]) p0 = i;
      if (e[i] < e[p1] || (e[i] == e[p1] && b[i] < b[p1])) p1 = i;
    }}
    if (p0 != p1) std::printf("%lldx%lldx%lld m%d -> m%d (est %.0f -> %.0f cycles)\\n", m, n, k, p0, p1, e[p0], e[p1]);
  }}
}}
''')
PY
G=build-gpu/s47b/ext/gen
N=/usr/local/cuda/bin/nvcc
F="-std=c++17 -O1 -gencode=arch=compute_90a,code=sm_90a -Iruntime -L/usr/local/cuda/lib64/stubs -lcuda"
$N $F -I$G/gemm_bias_act_gelu_fast $T/gba.cu -o $T/gba
$N $F -I$G/add_gemm $T/ag.cu -o $T/ag
S="2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x14336x4096 8192x8192x1024 7168x7760x328 2832x3960x4848 2256x7968x552
4520x3504x1736 5728x4184x6520 1264x2688x7968 5368x3960x7152 6408x696x7384 5264x7640x7224 5448x6448x2800 7328x5488x7248
6336x608x456 5312x2584x7744 6192x5624x4888 1704x5336x928 2232x2520x3816 5720x2928x6640 2232x3288x3296 5968x2448x6416
5096x6688x2936 408x6896x6408 6456x2912x5496 5304x6224x3864 3464x4040x1240 6024x3896x1488 2112x3648x3848 1880x5120x3840
656x5248x7728 7824x7424x6296 5536x1880x2736"
echo "== gemm_bias_act (gelu_fast): committed 15 -> with the three (18)"; echo $S | tr ' ' '\n' | $T/gba
echo "== add_gemm: committed 10 -> with the three (13)"; echo $S | tr ' ' '\n' | $T/ag
