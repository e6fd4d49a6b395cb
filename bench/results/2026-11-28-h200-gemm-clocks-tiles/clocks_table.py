# Matches nvidia-smi samples (OUT/smi.csv) to the probe's windows (OUT/probe.txt): python3 clocks_table.py OUT
import sys, csv, datetime
out = sys.argv[1]
rows = []
for r in csv.reader(open(out + "/smi.csv")):
    if not r or r[0].startswith("timestamp"): continue
    try:
        ts = datetime.datetime.strptime(r[0].strip(), "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp() * 1e3
        rows.append((ts, float(r[1]), float(r[3]), float(r[4]), r[5].strip()))
    except Exception: pass
print("| who | shape | µs/launch | TFLOP/s | SM MHz (mean, min over window minus first 0.5 s) | power W (mean) | temp C | event reasons |")
print("|---|---|---|---|---|---|---|---|")
shape = ""
for line in open(out + "/probe.txt"):
    if line.startswith("# sets"): continue
    f = line.split()
    if "window_ms" not in f: continue
    w0, w1 = float(f[3]), float(f[4])
    s = [r for r in rows if w0 + 500 <= r[0] <= w1]
    if not s: print("|", f[0], "| no samples |"); continue
    mhz = sum(r[1] for r in s) / len(s); pw = sum(r[2] for r in s) / len(s)
    print(f"| {f[0]} | {f[1]} | {f[8]} | {f[10]} | {mhz:.0f}, {min(r[1] for r in s):.0f} | {pw:.0f} | {max(r[3] for r in s):.0f} | {','.join(sorted(set(r[4] for r in s)))} |")
