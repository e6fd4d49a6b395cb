#!/usr/bin/env python3
"""mk.py GEN.cu NMAP OUT.cpp [--entry-tensors N]: a host-only C++ program holding the launcher's cost
estimates (each mapping's estimate_cycles, cut out of a generated .cu for mappings 0 .. NMAP-1), with
each loop's per-iteration term max(t_mma, t_fill) rewritten as loom_iter(t_mma, t_fill, D), D the
loop's ring depth: the ring round-trip bound of the report, off when the round trip (argv[1] of the
program) is 0, so `est 0` is the estimate as generated. argv[2] picks the bound's form: 0 max(t, (R +
t_mma) / D), 1 max(t, (R + t) / D), 2 max(t, R / (D - 1)). The program reads "M N K" lines and prints
each mapping's estimate in cycles on 132 SMs, rows of bf16 padded to 8 elements. --entry-tensors 4:
the entry takes a fourth tensor, a length-N vector (gemm_bias_act's bias); default 3 (C, A, B)."""
import re
import sys

src_path, nmap, out_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tensors = int(sys.argv[sys.argv.index('--entry-tensors') + 1]) if '--entry-tensors' in sys.argv else 3
src = open(src_path).read()
out = ['#include <cstdint>', '#include <cmath>', '#include <cstdio>', '#include <cstdlib>',
       'typedef struct { void* data; int32_t rank, dtype; int64_t shape[8]; int64_t stride[8]; } loom_tensor;',
       'typedef void* cudaStream_t; enum { cudaSuccess = 0 };',
       'static int cudaGetDevice(int*) { return 1; } static int cudaGetLastError() { return 0; }',
       'static int64_t cluster_slots(int) { return 0; }  // unknown: the estimate falls back to SMs / S',
       'static inline int64_t loom_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }',
       'static inline int64_t loom_min(int64_t a, int64_t b) { return a < b ? a : b; }',
       'static inline int64_t loom_max(int64_t a, int64_t b) { return a > b ? a : b; }',
       'static inline int64_t loom_clip(int64_t e, int64_t o, int64_t b) { return loom_max(0, loom_min(b, e - o)); }',
       'static double LAT = 0;',
       'static int MODE = 0;',
       'static inline double loom_iter(double mma, double fill, double d) {',
       '  double t = fmax(mma, fill);',
       '  if (LAT <= 0 || d <= 1) return t;',
       '  return fmax(t, MODE == 0 ? (LAT + mma) / d : MODE == 1 ? (LAT + t) / d : LAT / (d - 1));',
       '}']
for m in range(nmap):
    a = src.find('namespace mapping%d {' % m)
    b = src.find('namespace mapping%d {' % (m + 1))
    body = src[a:b if b >= 0 else len(src)]
    depth = re.search(r'pipelined (\d+) deep', body)
    D = int(depth.group(1)) if depth else 1
    e = body.find('double estimate_cycles(')
    fn = body[e:body.find('\n}\n', e) + 3]
    fn = re.sub(r'fmax\(([^,]+), \((.*)\) / (\d+)\.0\)',
                lambda mm: 'loom_iter(%s, (%s) / %s.0, %d)' % (mm.group(1), mm.group(2), mm.group(3), D), fn)
    out.append('namespace mapping%d {\n%s}\n' % (m, fn))
params = ', '.join(['const loom_tensor&'] * tensors)
out.append('typedef double (*Est)(%s, cudaStream_t, int64_t);' % params)
out.append('static Est ests[] = {' + ', '.join('&mapping%d::estimate_cycles' % m for m in range(nmap)) + '};')
out.append(r'''
static loom_tensor t2(int64_t r, int64_t c) {
  loom_tensor t{};
  t.data = (void*)4096; t.rank = 2; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1;
  return t;
}
int main(int argc, char** argv) {
  LAT = argc > 1 ? atof(argv[1]) : 0;
  MODE = argc > 2 ? atoi(argv[2]) : 0;
  long long M, N, K;
  while (scanf("%lld %lld %lld", &M, &N, &K) == 3) {
    loom_tensor C = t2(M, N), A = t2(M, K), B = t2(K, N), bias = t2(1, N);
    bias.rank = 1; bias.shape[0] = N; bias.stride[0] = 1;
    (void)bias;
    printf("%lldx%lldx%lld", M, N, K);
    for (auto e : ests) printf(" %.1f", e(''' + ('C, A, B, bias' if tensors == 4 else 'C, A, B') + r''', nullptr, 132));
    printf("\n");
  }
}''')
open(out_path, 'w').write('\n'.join(out) + '\n')
