import re,sys,math,glob
def load(fn):
    L=open(fn).read().splitlines()
    rows=[]
    for l in L:
        if not l.startswith('| ') or l.startswith('| shape'): continue
        c=[x.strip() for x in l.split('|')[1:-1]]
        if 'x' not in c[0]: continue
        cub=float(c[1]); ms=[]
        for x in c[2:]:
            m=re.match(r'([\d.]+) \(([\d.]+)\)',x)
            if m: ms.append((float(m.group(1)),float(m.group(2))))
            else: break
        rows.append((c[0],cub,ms))
    return rows
