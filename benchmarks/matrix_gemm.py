"""The matrix-unit GEMM of benchmarks/native_bench.py's `mgemm` part: a Triton tl.dot kernel on
fp16 tiles (PyPI's triton, a test dependency), which Triton compiles for each target's MFMA or
WMMA (gfx90a, gfx942, gfx950: MFMA; gfx1100, gfx1201: WMMA), C = A B in fp32."""
import triton
import triton.language as tl

TILE = 64


@triton.jit
def gemm(a, b, c, n, BLOCK: tl.constexpr):
    rows = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    ks = tl.arange(0, 32)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, n, 32):
        x = tl.load(a + rows[:, None] * n + (k + ks)[None, :])
        y = tl.load(b + (k + ks)[:, None] * n + cols[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rows[:, None] * n + cols[None, :], acc)


def compile_for(target, path):
    """Compile gemm for `target` into the code object file `path`; its kernel's name and LDS
    bytes."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    signature = {"a": "*fp16", "b": "*fp16", "c": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    compiled = triton.compile(ASTSource(gemm, signature, constexprs={"BLOCK": TILE}),
                              target=GPUTarget("hip", target, 32 if target.startswith("gfx1") else 64),
                              options={"num_warps": 4})
    with open(path, "wb") as f:
        f.write(compiled.asm["hsaco"])
    return compiled.metadata.name, compiled.metadata.shared
