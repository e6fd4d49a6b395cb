#!/usr/bin/env python3
"""Session 46, offline: the L2 -> SM read rate each mapping of r2-widths-listed.md ran at. Bytes per call: every block
reads its tile's A panel (U x K) and B panel (K x V rounded up to 64-column boxes) once; under multicast(S, T) the L2
serves B once per S row tiles and A once per T column tiles; edge clusters' ghost tiles load too. Rate = bytes / the
measured time. Usage: python3 l2rate.py (from the repository root)."""
import math

HERE = "bench/results/2026-12-05-h100-s46/"
MAPS = {0: (128, 256, 1, 1), 1: (128, 128, 1, 1), 8: (64, 128, 1, 1), 23: (64, 128, 4, 2), 24: (64, 112, 2, 4),
        25: (64, 112, 1, 1), 26: (64, 176, 1, 1), 27: (64, 176, 2, 4), 28: (64, 104, 2, 4), 29: (64, 96, 2, 4)}


def l2_bytes(M, N, K, U, V, S, T):
    rt = math.ceil(math.ceil(M / U) / S) * S
    ct = math.ceil(math.ceil(N / V) / T) * T
    return rt * ct * (U * K * 2 / T + K * math.ceil(V / 64) * 64 * 2 / S), rt * ct


def main():
    rows = {}
    for line in open(HERE + "r2-widths-listed.md"):
        c = [x.strip() for x in line.split("|")[1:-1]]
        if line.startswith("| ") and c and "x" in c[0] and c[0] != "shape":
            rows[c[0]] = [float(x.split()[0]) for x in c[2:32]]
    for shape, times in rows.items():
        M, N, K = map(int, shape.split("x"))
        print(shape)
        for m, (U, V, S, T) in MAPS.items():
            b, tiles = l2_bytes(M, N, K, U, V, S, T)
            print("  m%-2d %3dx%-3d on %dx%d: %5d tiles, %7.1f MB from L2, %8.2f us: %.2f TB/s" % (m, U, V, S, T, tiles, b / 1e6,
                                                                                              times[m], b / times[m] / 1e6))


if __name__ == "__main__":
    main()
