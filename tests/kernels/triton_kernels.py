"""Triton kernels as ML users write them (element-wise, a reduction, softmax, a tl.dot GEMM), compiled by PyPI's triton for AMD targets without a GPU (tests/isa/test_triton.py).
Sources only: importing this module needs triton."""
import triton
import triton.language as tl


@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    tl.store(out + offsets, tl.load(x + offsets, mask=inside) + tl.load(y + offsets, mask=inside),
             mask=inside)


@triton.jit
def row_sum(x, out, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    values = tl.load(x + row * cols + offsets, mask=offsets < cols, other=0.0)
    tl.store(out + row, tl.sum(values, axis=0))


@triton.jit
def softmax(x, out, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    values = tl.load(x + row * cols + offsets, mask=offsets < cols, other=-float("inf"))
    values = values - tl.max(values, axis=0)
    exps = tl.exp(values)
    tl.store(out + row * cols + offsets, exps / tl.sum(exps, axis=0), mask=offsets < cols)


@triton.jit
def gemm(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A B for any M, N, K (the edges masked), stored in C's own type."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + ks
        x = tl.load(a + rows[:, None] * K + kk[None, :], mask=(rows[:, None] < M) & (kk[None, :] < K),
                    other=0.0)
        y = tl.load(b + kk[:, None] * N + cols[None, :], mask=(kk[:, None] < K) & (cols[None, :] < N),
                    other=0.0)
        acc += tl.dot(x, y)
    tl.store(c + rows[:, None] * N + cols[None, :], acc.to(c.dtype.element_ty),
             mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def gemm_accumulating(a, b, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      ACC: tl.constexpr):
    """C = A B of whole tiles with tl.dot accumulating in ACC (int32 for int8 inputs: the
    matrix units' integer forms), stored in C's type."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    n = tl.num_programs(1) * BN
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, K, BK):
        x = tl.load(a + rows[:, None] * K + (k + ks)[None, :])
        y = tl.load(b + (k + ks)[:, None] * n + cols[None, :])
        acc = tl.dot(x, y, acc, out_dtype=ACC)
    tl.store(c + rows[:, None] * n + cols[None, :], acc.to(c.dtype.element_ty))


@triton.jit
def cast(x, out, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inside = offsets < n
    tl.store(out + offsets, tl.load(x + offsets, mask=inside).to(out.dtype.element_ty), mask=inside)


@triton.jit
def gemm_mx(a, a_scale, b, b_scale, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
            FA: tl.constexpr, FB: tl.constexpr):
    """C = (A x its block scales) (B x its block scales) of whole tiles, with tl.dot_scaled: A
    [M, K] and B [K, N] in the MX formats FA and FB (e2m1 packed two to a byte along K), one
    E8M0 scale per 32 k of each row of A (a_scale [M, K/32]) and column of B (b_scale [N, K/32]);
    an A of bf16 or fp16 has no scales (Triton upcasts B to its type)."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    n = tl.num_programs(1) * BN
    PA: tl.constexpr = 2 if FA == "e2m1" else 1
    PB: tl.constexpr = 2 if FB == "e2m1" else 1
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K // BK):
        ka = k * (BK // PA) + tl.arange(0, BK // PA)
        kb = k * (BK // PB) + tl.arange(0, BK // PB)
        ks = k * (BK // 32) + tl.arange(0, BK // 32)
        x = tl.load(a + rows[:, None] * (K // PA) + ka[None, :])
        y = tl.load(b + kb[:, None] * n + cols[None, :])
        y_scale = tl.load(b_scale + cols[:, None] * (K // 32) + ks[None, :])
        if FA == "bf16" or FA == "fp16":
            acc = tl.dot_scaled(x, None, FA, y, y_scale, FB, acc)
        else:
            x_scale = tl.load(a_scale + rows[:, None] * (K // 32) + ks[None, :])
            acc = tl.dot_scaled(x, x_scale, FA, y, y_scale, FB, acc)
    tl.store(c + rows[:, None] * n + cols[None, :], acc)
