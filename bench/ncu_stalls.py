"""Where a kernel's warps wait, instruction by instruction, from ncu's source view.

Usage:
  ncu --set full --import-source yes -k regex:NAME --launch-count 1 -o REP <app> ...
  ncu -i REP.ncu-rep --page source --csv --print-source sass > REP-sass.csv
  python3 bench/ncu_stalls.py REP-sass.csv [TOP] [--regions I,J,...]

Prints the total of the warp-stall samples, their split by reason, and the TOP instructions (default 40) with the
most samples, each with its execution count and its three largest stall reasons; --regions I,J,... also sums the
samples between those SASS instruction indices (a loop's body, the epilogue: read the indices off the TOP list).
bench/results/2026-12-06-h100-s51.md used it to set loom's GEMM kernels against cuBLAS's at one shape: how long the
consumers wait on the tensor cores (WARPGROUP.DEPBAR), on the TMA loads (the full barriers' try-wait loop) and in the
epilogue.
"""
import csv
import sys


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    regions = []
    for i, a in enumerate(argv):
        if a == "--regions" and i + 1 < len(argv):
            regions = [int(x) for x in argv[i + 1].split(",")]
            args = [x for x in args if x != argv[i + 1]]
    if not args:
        print(__doc__)
        return 2
    rows = list(csv.reader(open(args[0])))
    hdr, data = rows[1], rows[2:]
    top = int(args[1]) if len(args) > 1 else 40
    i_src = hdr.index("Source")
    i_s = hdr.index("Warp Stall Sampling (All Samples)")
    i_ex = hdr.index("Instructions Executed")
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    col = {s: hdr.index(s) for s in stalls}
    num = lambda r, i: int(r[i] or 0)
    total = sum(num(r, i_s) for r in data)
    print("total samples %d over %d instructions" % (total, len(data)))
    by_reason = {s: sum(num(r, col[s]) for r in data) for s in stalls}
    print("by reason: " + ", ".join("%s %d" % (s[6:], v) for s, v in sorted(by_reason.items(), key=lambda kv: -kv[1])[:10]))
    idx = sorted(range(len(data)), key=lambda i: -num(data[i], i_s))[:top]
    for i in sorted(idx):
        r = data[i]
        reasons = sorted(((num(r, col[s]), s[6:]) for s in stalls), reverse=True)[:3]
        print("%5d %6d %9s  %-60s %s" % (i, num(r, i_s), r[i_ex], r[i_src].strip()[:60],
                                         " ".join("%s:%d" % (b, a) for a, b in reasons if a)))
    if regions:
        bounds = [0] + regions + [len(data)]
        for a, b in zip(bounds, bounds[1:]):
            print("instructions %5d-%5d: %6d samples" % (a, b, sum(num(r, i_s) for r in data[a:b])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
