#!/usr/bin/env python3
"""Writes the example dependence graphs of examples/schedules/ (issue 5).

Graphs are generated so the two sub-tiles of the attention loops stay symmetric; the JSON files are
the source of truth that `loom schedule` reads. Run: python3 bench/sched/gen_examples.py
"""
import json, os, sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "schedules")


def node(name, op=None, shape=None, regs=0, **kw):
    n = {"name": name}
    if op: n["op"] = op
    if shape: n["shape"] = shape
    if regs: n["regs"] = regs
    n.update(kw)
    return n


def edge(a, b, distance=0, **kw):
    e = {"from": a, "to": b}
    if distance: e["distance"] = distance
    e.update(kw)
    return e


def fa_forward_hopper():
    # FA3-style forward loop body: the 128-row Q tile is split into two 64-row sub-tiles (one wgmma
    # m64 each); K and V tiles are 128 x 128 bf16 (32 KB) streamed by TMA.
    nodes = [node("loadK", "tma_load", [128 * 128 * 2], smem=32768),
             node("loadV", "tma_load", [128 * 128 * 2], smem=32768)]
    edges = []
    for j in (0, 1):
        S, M, P, L, A, O = (f"S{j}", f"m{j}", f"P{j}", f"l{j}", f"rescale{j}", f"O{j}")
        nodes += [
            node(S, "gemm", [64, 128, 128], regs=64, comment="S = Q_j K^T, fp32 accumulators"),
            node(M, "alu", [64, 128], regs=2, comment="running row max"),
            node(P, "exp", [64, 128], regs=32, comment="P = exp(S - m), bf16"),
            node(L, "alu", [64, 128], regs=2, comment="running row sum"),
            node(A, "alu", [64, 128], regs=64, comment="O *= exp(m_old - m_new)"),
            node(O, "gemm", [64, 128, 128], regs=64, comment="O += P V"),
        ]
        edges += [
            edge("loadK", S), edge("loadV", O),
            edge(S, M, blocking=True), edge(S, P, blocking=True),
            edge(M, P), edge(M, M, 1), edge(M, A), edge(M, L),
            edge(P, L), edge(L, L, 1), edge(P, O),
            edge(O, A, 1, blocking=True), edge(A, O),
        ]
    return {"name": "fa-forward-hopper", "machine": "hopper",
            "comment": "Sub-tiled FlashAttention forward main loop (two 64-row sub-tiles), Hopper costs.",
            "nodes": nodes, "edges": edges}


def fa_forward_blackwell():
    # FA4-style forward loop body: two 128-row sub-tiles (tcgen05.mma M=128); S and O accumulate in
    # tensor memory; softmax reads S with tcgen05.ld (blocking), writes P back to tensor memory;
    # the rescale of O reads and writes O in tensor memory.
    nodes = [node("loadK", "tma_load", [128 * 128 * 2], smem=32768),
             node("loadV", "tma_load", [128 * 128 * 2], smem=32768)]
    edges = []
    for j in (0, 1):
        S, LS, M, P, SP, L, LO, A, SO, O = (f"S{j}", f"ldS{j}", f"m{j}", f"P{j}", f"stP{j}", f"l{j}",
                                            f"ldO{j}", f"rescale{j}", f"stO{j}", f"O{j}")
        nodes += [
            node(S, "gemm", [128, 128, 128], memory={"tmem": 65536}, comment="S = Q_j K^T into tensor memory"),
            node(LS, "tmem_load", [128, 128], regs=128, comment="tcgen05.ld of S"),
            node(M, "alu", [128, 128], regs=2, comment="running row max"),
            node(P, "exp", [128, 128], regs=64, comment="P = exp(S - m), bf16"),
            node(SP, "tmem_store", [128, 64], memory={"tmem": 32768}, comment="P to tensor memory (aliases S)"),
            node(L, "alu", [128, 128], regs=2, comment="running row sum"),
            node(LO, "tmem_load", [128, 128], regs=128, comment="tcgen05.ld of O"),
            node(A, "alu", [128, 128], regs=128, comment="O *= exp(m_old - m_new)"),
            node(SO, "tmem_store", [128, 128], comment="rescaled O back to tensor memory"),
            node(O, "gemm", [128, 128, 128], memory={"tmem": 65536}, comment="O += P V in tensor memory"),
        ]
        edges += [
            edge("loadK", S), edge("loadV", O),
            edge(S, LS, blocking=True), edge(LS, M), edge(LS, P), edge(M, P), edge(M, M, 1),
            edge(P, SP), edge(P, L), edge(M, L), edge(L, L, 1), edge(SP, O),
            edge(O, LO, 1, blocking=True), edge(M, A), edge(LO, A), edge(A, SO), edge(SO, O),
        ]
    return {"name": "fa-forward-blackwell", "machine": "blackwell",
            "comment": "Sub-tiled FlashAttention forward main loop (two 128-row sub-tiles), Blackwell costs.",
            "nodes": nodes, "edges": edges}


def fa_backward_hopper():
    # FA3-style backward loop over query tiles for one 128-row K/V tile (d = 128, 64-row Q tiles):
    # five GEMMs and one exponential, then an atomic reduction of dQ into global memory.
    nodes = [node("loadQ", "tma_load", [64 * 128 * 2], smem=16384),
             node("loadDO", "tma_load", [64 * 128 * 2], smem=16384),
             node("loadLSE", "tma_load", [64 * 8], smem=512),
             node("S", "gemm", [64, 128, 128], regs=64, comment="S = Q K^T"),
             node("P", "exp", [64, 128], regs=32, comment="P = exp(S - lse)"),
             node("dP", "gemm", [64, 128, 128], regs=64, comment="dP = dO V^T"),
             node("dS", "alu", [64, 128], regs=32, comment="dS = P * (dP - D)"),
             node("dV", "gemm", [128, 128, 64], regs=128, comment="dV += P^T dO"),
             node("dK", "gemm", [128, 128, 64], regs=128, comment="dK += dS^T Q"),
             node("dQ", "gemm", [64, 128, 128], regs=64, comment="dQ = dS K"),
             node("dQatomic", "tma_load", cycles=512, variable_latency=True,
                  comment="TMA reduce-add of dQ into global memory (variable latency; 512-cycle estimate)")]
    edges = [edge("loadQ", "S"), edge("loadLSE", "P"), edge("S", "P", blocking=True),
             edge("loadDO", "dP"), edge("dP", "dS", blocking=True), edge("P", "dS"),
             edge("P", "dV"), edge("loadDO", "dV"), edge("dV", "dV", 1),
             edge("dS", "dK"), edge("loadQ", "dK"), edge("dK", "dK", 1),
             edge("dS", "dQ"), edge("dQ", "dQatomic", blocking=True)]
    return {"name": "fa-backward-hopper", "machine": "hopper",
            "comment": "FlashAttention backward main loop (single-pass algorithm of FA3), Hopper costs.",
            "nodes": nodes, "edges": edges}


def gemm_mainloop():
    # 128x256 output tile, K step 64: two TMA loads and one wgmma per iteration.
    nodes = [node("loadA", "tma_load", [128 * 64 * 2], smem=16384),
             node("loadB", "tma_load", [256 * 64 * 2], smem=32768),
             node("mma", "gemm", [128, 256, 64], regs=128, comment="C += A B (accumulators stay in registers)")]
    edges = [edge("loadA", "mma"), edge("loadB", "mma"), edge("mma", "mma", 1)]
    return {"name": "gemm-mainloop", "machine": "hopper", "comment": "GEMM main loop, Hopper costs.",
            "nodes": nodes, "edges": edges}


def dual_gemm_mainloop():
    # silu(A B1) * (A B2): two accumulators share the A tile; 128x128 output, K step 64.
    nodes = [node("loadA", "tma_load", [128 * 64 * 2], smem=16384),
             node("loadB1", "tma_load", [128 * 64 * 2], smem=16384),
             node("loadB2", "tma_load", [128 * 64 * 2], smem=16384),
             node("mma1", "gemm", [128, 128, 64], regs=64, comment="C1 += A B1"),
             node("mma2", "gemm", [128, 128, 64], regs=64, comment="C2 += A B2")]
    edges = [edge("loadA", "mma1"), edge("loadB1", "mma1"), edge("loadA", "mma2"), edge("loadB2", "mma2"),
             edge("mma1", "mma1", 1), edge("mma2", "mma2", 1)]
    return {"name": "dual-gemm-mainloop", "machine": "hopper", "comment": "Dual-GEMM main loop, Hopper costs.",
            "nodes": nodes, "edges": edges}


def main():
    os.makedirs(OUT, exist_ok=True)
    for fn, g in [("fa-forward-hopper.json", fa_forward_hopper()), ("fa-forward-blackwell.json", fa_forward_blackwell()),
                  ("fa-backward-hopper.json", fa_backward_hopper()), ("gemm-mainloop.json", gemm_mainloop()),
                  ("dual-gemm-mainloop.json", dual_gemm_mainloop())]:
        with open(os.path.join(OUT, fn), "w") as f:
            json.dump(g, f, indent=1)
            f.write("\n")
        print("wrote", fn)


if __name__ == "__main__":
    sys.exit(main())
