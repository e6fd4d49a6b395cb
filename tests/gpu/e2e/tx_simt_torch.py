# Torch peers of the SIMT kernels (tests/gpu/e2e/tx_simt.sh): torch.softmax, layer_norm and
# x.t().contiguous() at the shapes of tests/gpu/tx_simt_e2e.cu, median of 20 CUDA-event timings
# after 5 warm-ups, as GB/s of the bytes read once + written once.
import torch

def median_ms(fn):
    for _ in range(5):
        fn()
    ts = []
    for _ in range(20):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]

def row(name, shape, nbytes, ms):
    print(f"TORCH | {name} | {shape} | {nbytes / 1e6:.1f} MB | {ms:.4f} ms | {nbytes / (ms * 1e6):.0f} GB/s |")

x = torch.randn(8192, 8192, device="cuda", dtype=torch.float32)
row("transpose f32 x.t().contiguous()", "8192x8192", x.numel() * 8, median_ms(lambda: x.t().contiguous()))
for m, n in [(32768, 1024), (8192, 8192)]:
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    g = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    row("softmax bf16 torch.softmax", f"{m}x{n}", x.numel() * 4, median_ms(lambda: torch.softmax(x, -1)))
    row("layernorm bf16 F.layer_norm", f"{m}x{n}", x.numel() * 4 + n * 4,
        median_ms(lambda: torch.nn.functional.layer_norm(x, (n,), g, b, 1e-5)))
