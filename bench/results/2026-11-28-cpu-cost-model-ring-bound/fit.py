import re, math, subprocess, sys
def load(f, nm=13):
    rows = []
    for l in open(f):
        if re.match(r'\| \d+x', l):
            c = [x.strip() for x in l.split('|')[1:-1]]
            rows.append((c[0], float(c[1]), [float(c[2 + i].split()[0]) for i in range(nm)]))
    return rows
import os
F = os.environ.get('FILES', 'sweep=/tmp/r4/sweep.md,table=/tmp/r4/table.md').split(',')
sets = {x.split('=')[0]: load(x.split('=')[1]) for x in F}
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
for lat in [float(x) for x in sys.argv[1:]]:
    line = 'LAT %5.0f' % lat
    for n, rows in sets.items():
        inp = ''.join('%s %s %s\n' % tuple(s.split('x')) for s, _, _ in rows)
        out = subprocess.run(['/tmp/fit/est', str(lat), os.environ.get('MODE', '0')], input=inp, capture_output=True, text=True).stdout.split('\n')
        r = []; rb = []; worst = (9, '')
        for (s, cb, t), o in zip(rows, out):
            e = [float(x) for x in o.split()[1:]]
            p = min(range(len(e)), key=lambda i: e[i])
            r.append(cb / t[p]); rb.append(cb / min(t))
            if cb / t[p] < worst[0]: worst = (cb / t[p], s)
        line += '  %s pick %.3f (min %.3f %s) best %.3f' % (n, g(r), worst[0], worst[1], g(rb))
    print(line)
