#!/usr/bin/env python3
"""gelu_runtime.py FORM DST: a copy of runtime/ under DST whose runtime.cuh computes gelu_tanh in another
form (bench/micro/gelu_forms.cu): rcp (ex2 + rcp.approx), newton (ex2 + two Newton steps), tanh
(tanh.approx). Generated code compiled with -IDST runs that form; nothing else changes."""
import os
import re
import shutil
import sys

BODIES = {
    "rcp": """  const float u = 1.5957691216057308f * x * fmaf(0.044715f, x * x, 1.0f);
  float r, d = 1.0f + ex2_approx(-1.4426950408889634f * u);
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(d));
  return x * r;
""",
    "newton": """  const float u = 1.5957691216057308f * x * fmaf(0.044715f, x * x, 1.0f);
  const float d = 1.0f + fminf(ex2_approx(-1.4426950408889634f * u), 1.8446744e19f);
  float y = __int_as_float(0x7ef311c3 - __float_as_int(d));
  float e = fmaf(-d, y, 1.0f);
  y = fmaf(y, e, y);
  e = fmaf(-d, y, 1.0f);
  y = fmaf(y, e, y);
  return x * y;
""",
    "tanh": """  const float u = 0.7978845608028654f * x * fmaf(0.044715f, x * x, 1.0f);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
  const float h = 0.5f * x;
  return fmaf(h, t, h);
""",
}

form, dst = sys.argv[1], sys.argv[2]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
shutil.rmtree(dst, ignore_errors=True)
shutil.copytree(os.path.join(root, "runtime"), dst)
p = os.path.join(dst, "loom", "runtime.cuh")
s = open(p).read()
pat = re.compile(r"(__device__ __forceinline__ float gelu_tanh\(float x\) \{\n)(.*?)(\n\}\n)", re.S)
assert pat.search(s), "gelu_tanh not found"
s = pat.sub(lambda m: m.group(1) + BODIES[form].rstrip("\n") + m.group(3), s, count=1)
open(p, "w").write(s)
