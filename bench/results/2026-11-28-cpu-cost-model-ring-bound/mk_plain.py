import re, sys
src = open(sys.argv[1]).read()
nmap = int(sys.argv[2])
out = ['#include <cstdint>', '#include <cmath>', '#include <cstdio>', '#include <vector>', '#include <string>',
       'typedef struct { void* data; int32_t rank, dtype; int64_t shape[8]; int64_t stride[8]; } loom_tensor;',
       'typedef void* cudaStream_t; enum { cudaSuccess = 0 }; static int cudaGetDevice(int*) { return 1; } static int cudaGetLastError() { return 0; }',
       'static int64_t cluster_slots(int) { return 0; }',
       'static inline int64_t loom_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }',
       'static inline int64_t loom_min(int64_t a, int64_t b) { return a < b ? a : b; }',
       'static inline int64_t loom_max(int64_t a, int64_t b) { return a > b ? a : b; }',
       'static inline int64_t loom_clip(int64_t e, int64_t o, int64_t b) { int64_t r = e - o; return r < 0 ? 0 : (r > b ? b : r); }',
       'static double LAT = 0;',
       'static int MODE = 0;\nstatic inline double loom_iter(double mma, double fill, double d) { double t = fmax(mma, fill); if (LAT > 0 && d > 1) { double x = MODE == 0 ? (LAT + mma) / d : MODE == 1 ? (LAT + t) / d : LAT / (d - 1); t = fmax(t, x); } return t; }']
for m in range(nmap):
    a = src.find('namespace mapping%d {' % m)
    b = src.find('namespace mapping%d {' % (m + 1)) if m + 1 < nmap + 5 else len(src)
    if b < 0: b = len(src)
    body = src[a:b]
    dm = re.search(r'pipelined (\d+) deep', body)
    D = int(dm.group(1)) if dm else 1
    e = body.find('double estimate_cycles(')
    f = body.find('\n}\n', e)
    fn = body[e:f + 3]
    fn = fn if True else re.sub(r'fmax\(([^,]+), \((.*)\) / (\d+)\.0\)', lambda mm: 'loom_iter(%s, (%s) / %s.0, %d)' % (mm.group(1), mm.group(2), mm.group(3), D), fn)
    out.append('namespace mapping%d {\n%s}\n' % (m, fn))
out.append('typedef double (*Est)(const loom_tensor&, const loom_tensor&, const loom_tensor&, cudaStream_t, int64_t);')
out.append('static Est ests[] = {' + ', '.join('&mapping%d::estimate_cycles' % m for m in range(nmap)) + '};')
out.append(r'''
static loom_tensor t2(int64_t r, int64_t c) { loom_tensor t{}; t.data = (void*)4096; t.rank = 2; t.shape[0] = r; t.shape[1] = c; t.stride[0] = (c + 7) / 8 * 8; t.stride[1] = 1; return t; }
int main(int argc, char** argv) {
  LAT = atof(argv[1]); MODE = argc > 2 ? atoi(argv[2]) : 0;
  long long M, N, K;
  while (scanf("%lld %lld %lld", &M, &N, &K) == 3) {
    loom_tensor C = t2(M, N), A = t2(M, K), B = t2(K, N);
    printf("%lldx%lldx%lld", M, N, K);
    for (auto e : ests) printf(" %.1f", e(C, A, B, nullptr, 132));
    printf("\n");
  }
}''')
open(sys.argv[3], 'w').write('\n'.join(out))
