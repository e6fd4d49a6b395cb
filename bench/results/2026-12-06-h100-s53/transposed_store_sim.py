# Session 53: a host model of the transposed direct store (src/codegen/epilogue.cpp): the accumulator fragment of
# C^T (register i of thread t holds D[acc_col(t, i)][acc_row(t, i)]), movmatrix.trans as the PTX ISA defines it, and
# loom::rt::quad_gather; checks that each lane's mine[0..3] holds the 8 columns of the row and column the generated
# code stores them at, for tiles of 40, 48 and 224 rows (5, 6, 28 row groups), every element once.
def acc_row(t,i): return 16*(t//32) + (t%32)//4 + 8*((i>>1)&1)
def acc_col(t,i): return 8*(i>>2) + 2*(t%4) + (i&1)
for U in (40, 48, 224):
  half = U//2  # registers per 64-col block (xt[0]/2)
  # register i of thread t holds D[acc_col(t,i)][acc_row(t,i)]
  reg = {(t,i):(acc_col(t,i), acc_row(t,i)) for t in range(128) for i in range(half)}
  groups = U//8
  def movmatrix(warp, vals):  # vals[lane] = (lo, hi); A[l/4][2(l%4)+e]
    A = {}
    for l in range(32):
      for e in range(2): A[(l//4, 2*(l%4)+e)] = vals[l][e]
    return [tuple(A[(2*(l%4)+e, l//4)] for e in range(2)) for l in range(32)]
  ok = 0; seen=set()
  for w in range(4):
    ts = [32*w + l for l in range(32)]
    col0 = 16*w
    for jj in range(groups//2):
      pairs = [[None]*4 for _ in range(32)]
      for t4 in range(4):
        j = 2*jj + (t4>>1); h = t4 & 1
        i = 4*j + 2*h
        vals = [(reg[(t,i)], reg[(t,i+1)]) for t in ts]
        out = movmatrix(w, vals)
        for l in range(32): pairs[l][t4] = out[l]
      for l in range(32):
        q = l & 3
        mine = [pairs[(l & ~3) | p][q] for p in range(4)]
        row = 16*jj + 8*(q>>1) + (l>>2); col = col0 + 8*(q&1)
        for p in range(4):
          for e in range(2):
            assert mine[p][e] == (row, col + 2*p + e), (U, w, jj, l, p, e, mine[p][e], row, col)
            seen.add(mine[p][e]); ok += 1
    if groups % 2:
      j = groups - 1
      for h in range(2):
        i = 4*j + 2*h
        out = movmatrix(w, [(reg[(t,i)], reg[(t,i+1)]) for t in ts])
        for l in range(32):
          row = 8*j + (l>>2); col = col0 + 8*h + 2*(l&3)
          for e in range(2):
            assert out[l][e] == (row, col+e); seen.add(out[l][e]); ok += 1
  assert len(seen) == U*64, (len(seen), U*64)
  print(U, "ok", ok)
