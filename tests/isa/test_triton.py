"""Triton kernels (PyPI's triton, AMD backend, compiled here without a GPU) run on SoftGPU on
every target both support, on both engine tiers: element-wise, a row reduction, softmax, and
tl.dot GEMM tiles in fp32 (tf32), fp16, bf16 and each target's 8-bit floats (gfx942's FNUZ,
gfx950's and gfx1201's OCP; the others convert them in software) on the target's MFMA or WMMA,
also with masked edges, 8 warps and results stored as fp16/bf16 (gfx950's v_cvt_pk_*_f32 and
v_permlane32_swap), f32 cast to the 8-bit floats each target converts to itself (ties
included, against ml_dtypes), each against numpy, and the native tier's buffers bit for bit
the interpreter's. A kernel's LDS is Triton's `shared` (it asks for it at launch)."""
import os
import warnings

import numpy as np
from elftools.elf.elffile import ELFFile
import pytest

from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from tests.support.clang21 import LINE
from tests.kernels.checks import Close
from tests.kernels.suite import Case, _fp8_bytes, _bf16_bits
from tests.support.differential import assert_same_run, run_on
from tests.support.suite_run import kernel_metadata, output_buffers
from tests.support import rocm64
from tests.support.tools import missing

TARGETS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")
# Triton's 8-bit float types and (mantissa bits, bias) of their bytes.
FP8 = {"fp8e4b8": (3, 8), "fp8e5b16": (2, 16), "fp8e4nv": (3, 7), "fp8e5": (2, 15)}
# The 8-bit float GEMMs each target runs: every type where matrix units take 8-bit floats
# (gfx942's FNUZ natively and OCP's converted, gfx950 the other way round), OCP's elsewhere
# (converted to f16 in software).
FP8_OF = {"gfx90a": ("fp8e4nv", "fp8e5"), "gfx942": tuple(FP8), "gfx950": tuple(FP8),
          "gfx1100": ("fp8e4nv", "fp8e5"), "gfx1201": ("fp8e4nv", "fp8e5")}
# The 8-bit floats each target converts f32 to with its own instructions, and their ml_dtypes.
NATIVE_FP8 = {"gfx942": ("fp8e4b8", "fp8e5b16"), "gfx950": ("fp8e4nv", "fp8e5"),
              "gfx1201": ("fp8e4nv", "fp8e5")}
ML_DTYPES = {"fp8e4b8": "float8_e4m3fnuz", "fp8e5b16": "float8_e5m2fnuz", "fp8e4nv": "float8_e4m3fn",
             "fp8e5": "float8_e5m2"}
# tl.dot_scaled's formats, by ml_dtypes' name; e2m1 is two to a byte (low nibble first) along K.
MX_FORMATS = {"e2m1": "float4_e2m1fn", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}
MX_TYPE = {"bf16": "bf16", "fp16": "fp16"}          # Triton's pointer types of unscaled A
# Each format on each side, fp8/bf8 with fp4 among them: only mixed widths show where a
# lane's 8-bit elements lie (a layout shared by both sides sums to the same product).
MX_PAIRS = (("e2m1", "e2m1"), ("e4m3", "e2m1"), ("e2m1", "e5m2"), ("e5m2", "e4m3"))
# A of bf16/fp16 and no scales: Triton upcasts B (gfx950: v_cvt_scalef32_pk_{bf16,f16}_{fp4,fp8,bf8};
# elsewhere in software) and multiplies on the 16-bit MFMA or WMMA.
MX_UPCASTS = (("bf16", "e2m1"), ("fp16", "e2m1"), ("bf16", "e4m3"), ("fp16", "e5m2"))
WARPS = 4
SIZE = 64           # GEMMs: 64 x 64 x 64 in 32 x 32 x 32 tiles


def _kernels():
    """tests/kernels/triton_kernels.py, which needs triton (a test dependency: pyproject.toml)."""
    try:
        from tests.kernels import triton_kernels
    except ImportError as error:
        missing(f"triton is not installed ({error})")
    return triton_kernels


def _bf16_bits_nearest(values):
    """float64 values -> their bf16 bit patterns, rounded to nearest even through f32."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + (bits >> 16 & 1)) >> 16).astype(np.uint16).view(np.int16)


def _compile(target, fn, signature, constants, path, warps):
    """Compile `fn` for `target` into the code object file `path`: its kernel's name, LDS bytes
    and explicit arguments."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = triton.compile(ASTSource(fn, signature, constexprs=constants),
                                  target=GPUTarget("hip", target, 32 if target.startswith("gfx1") else 64),
                                  options={"num_warps": warps})
    with open(path, "wb") as f:
        f.write(compiled.asm["hsaco"])
    args = [a for a in kernel_metadata(path, compiled.metadata.name)[1][".args"]
            if not a[".value_kind"].startswith("hidden_")]
    return compiled.metadata.name, compiled.metadata.shared, len(args)


def _mx_codes(rng, fmt, shape):
    """Random codes of an MX format naming finite values, and those values (bf16 and fp16:
    small integers and halves, exact in both)."""
    import ml_dtypes
    if fmt in ("bf16", "fp16"):
        values = _small_tile(rng, shape)
        return (_bf16_bits(values) if fmt == "bf16" else values.astype(np.float16)), values
    dtype = getattr(ml_dtypes, MX_FORMATS[fmt])
    codes = rng.integers(0, 16 if fmt == "e2m1" else 256, shape).astype(np.uint8)
    values = codes.view(dtype).astype(np.float64)
    codes = np.where(np.isfinite(values), codes, 0).astype(np.uint8)
    return codes, codes.view(dtype).astype(np.float64)


def _mx_packed(codes, fmt, k_axis):
    """e2m1 codes packed two to a byte along K (even k in the low nibble); others as they are."""
    if fmt != "e2m1":
        return codes
    pairs = np.moveaxis(codes, k_axis, 0)
    return np.moveaxis(pairs[0::2] | pairs[1::2] << 4, 0, k_axis)


def _small_tile(rng, shape):
    """Small integers and halves: products and sums exact in every format here."""
    return rng.integers(-8, 8, shape) / 2.0


def _programs():
    """(id, builder) of each kernel: builder(rng) -> (fn, signature, constants, args,
    expected {index: array}, tolerance, grid in workgroups, warps)."""
    def add(rng):
        k = _kernels()
        n = 1000
        x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        return (k.add, {"x": "*fp32", "y": "*fp32", "out": "*fp32", "n": "i32", "BLOCK": "constexpr"},
                {"BLOCK": 256}, [x, y, np.zeros(n, np.float32), np.int32(n)], {2: x + y}, {},
                (4, 1), WARPS)

    def rows(kernel, reference, tolerance):
        def build(rng):
            fn = getattr(_kernels(), kernel)
            count, cols = 8, 200
            x = rng.standard_normal((count, cols)).astype(np.float32)
            out = np.zeros(count if kernel == "row_sum" else count * cols, np.float32)
            return (fn, {"x": "*fp32", "out": "*fp32", "cols": "i32", "BLOCK": "constexpr"},
                    {"BLOCK": 256}, [x.ravel(), out, np.int32(cols)], {1: reference(x).ravel()},
                    {1: tolerance}, (count, 1), WARPS)
        return build

    def softmax_of(x):
        e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def matmul(dtype, tile=(32, 32, 32), size=SIZE):
        def build(rng):
            a, b = _small_tile(rng, (size, size)), _small_tile(rng, (size, size))
            if dtype in ("fp16", "fp32"):
                data = a.astype(dtype.replace("fp", "float")), b.astype(dtype.replace("fp", "float"))
            elif dtype == "bf16":
                data = _bf16_bits(a), _bf16_bits(b)
            else:
                data = _fp8_bytes(a, *FP8[dtype]), _fp8_bytes(b, *FP8[dtype])
            signature = {"a": "*" + dtype, "b": "*" + dtype, "c": "*fp32", "M": "i32", "N": "i32",
                         "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
            return (_kernels().gemm, signature, dict(zip(("BM", "BN", "BK"), tile)),
                    [data[0].ravel(), data[1].ravel(), np.zeros(size * size, np.float32)]
                    + [np.int32(size)] * 3, {2: (a @ b).astype(np.float32).ravel()}, {},
                    (size // tile[0], size // tile[1]), WARPS)
        return build

    def gemm(dtype, tile, warps):
        """Edges masked (200 x 136 x 96), the result stored in the input's type."""
        def build(rng):
            m, n, kk = 200, 136, 96
            a, b = _small_tile(rng, (m, kk)), _small_tile(rng, (kk, n))
            exact = a @ b
            if dtype == "fp16":
                data, want = (a.astype(np.float16), b.astype(np.float16)), exact.astype(np.float16)
            else:
                data, want = (_bf16_bits(a), _bf16_bits(b)), _bf16_bits_nearest(exact)
            signature = {"a": "*" + dtype, "b": "*" + dtype, "c": "*" + dtype, "M": "i32",
                         "N": "i32", "K": "i32", "BM": "constexpr", "BN": "constexpr",
                         "BK": "constexpr"}
            return (_kernels().gemm, signature, dict(zip(("BM", "BN", "BK"), tile)),
                    [data[0].ravel(), data[1].ravel(), np.zeros(m * n, data[0].dtype),
                     np.int32(m), np.int32(n), np.int32(kk)], {2: want.ravel()}, {},
                    (-(-m // tile[0]), -(-n // tile[1])), warps)
        return build

    def matmul_int8(rng):
        """int8 tiles, the products summed in int32 (the matrix units' integer forms)."""
        import triton.language as tl
        a, b = (rng.integers(-128, 128, (SIZE, SIZE)) for _ in range(2))
        signature = {"a": "*i8", "b": "*i8", "c": "*i32", "K": "i32", "BM": "constexpr",
                     "BN": "constexpr", "BK": "constexpr", "ACC": "constexpr"}
        constants = {"BM": 32, "BN": 32, "BK": 32, "ACC": tl.int32}
        return (_kernels().gemm_accumulating, signature, constants,
                [a.astype(np.int8).ravel(), b.astype(np.int8).ravel(), np.zeros(SIZE * SIZE, np.int32),
                 np.int32(SIZE)], {2: (a @ b).astype(np.int32).ravel()}, {},
                (SIZE // 32, SIZE // 32), WARPS)

    def matmul_mx(format_a, format_b, tile):
        """64 x 64 x 256 in tile x tile x 128 tiles (16: the 16x16x128 MFMA, 32: 32x32x64):
        random finite codes of each MX format, one random E8M0 scale (2^-4 to 2^4) per 32 k
        of each row of A and column of B."""
        def build(rng):
            import ml_dtypes
            m = n = 64
            kk = 256
            a_codes, a_values = _mx_codes(rng, format_a, (m, kk))
            b_codes, b_values = _mx_codes(rng, format_b, (kk, n))
            # Up to 2^4 (fp16 A: 2^0, so that B upcast to fp16 stays finite: E5M2 reaches 57344).
            top = 128 if format_a == "fp16" else 132
            a_scales, b_scales = (rng.integers(123, top, (rows, kk // 32)) for rows in (m, n))
            scale = lambda codes: np.repeat(codes.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)
                                            .astype(np.float64), 32, axis=1)
            if format_a in ("bf16", "fp16"):
                a_scales = np.full_like(a_scales, 127)          # none: the kernel reads none
            want = (a_values * scale(a_scales)) @ (b_values * scale(b_scales).T)
            signature = {"a": "*" + MX_TYPE.get(format_a, "u8"), "a_scale": "*u8", "b": "*u8", "b_scale": "*u8", "c": "*fp32",
                         "K": "i32", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr",
                         "FA": "constexpr", "FB": "constexpr"}
            constants = {"BM": tile, "BN": tile, "BK": 128, "FA": format_a, "FB": format_b}
            return (_kernels().gemm_mx, signature, constants,
                    [_mx_packed(a_codes, format_a, 1).ravel(), a_scales.astype(np.uint8).ravel(),
                     _mx_packed(b_codes, format_b, 0).ravel(), b_scales.astype(np.uint8).ravel(),
                     np.zeros(m * n, np.float32), np.int32(kk)],
                    # Sums of products 2^48 apart round in double, in any order: within a
                    # millionth of the largest result.
                    {4: want.astype(np.float32).ravel()}, {4: Close(1e-6, 1e-6 * np.abs(want).max())},
                    (m // tile, n // tile), WARPS)
        return build

    def cast(dtype):
        """f32 to an 8-bit float (the target's own conversion), values inside the format's range
        and ties between codes: rounded to nearest even, as ml_dtypes rounds."""
        def build(rng):
            import ml_dtypes
            target_type = getattr(ml_dtypes, ML_DTYPES[dtype])
            top = float(ml_dtypes.finfo(target_type).max)
            n = 1000
            x = np.clip(rng.standard_normal(n) * top / 8, -top, top).astype(np.float32)
            grid = np.arange(256, dtype=np.uint8).view(target_type).astype(np.float32)
            grid = np.sort(grid[np.isfinite(grid)])
            x[:len(grid) - 1] = (grid[:-1] + grid[1:]) / 2          # every midpoint: the ties
            want = x.astype(target_type).view(np.uint8)
            return (_kernels().cast, {"x": "*fp32", "out": "*" + dtype, "n": "i32", "BLOCK": "constexpr"},
                    {"BLOCK": 256}, [x, np.zeros(n, np.uint8), np.int32(n)], {1: want}, {},
                    (4, 1), WARPS)
        return build

    programs = [("add", add), ("row_sum", rows("row_sum", lambda x: x.astype(np.float64).sum(axis=1),
                                               Close(1e-5, 1e-5))),
                ("softmax", rows("softmax", softmax_of, Close(1e-5, 1e-7))),
                ("matmul_fp16", matmul("fp16")), ("matmul_bf16", matmul("bf16")),
                # fp32 inputs: tl.dot's default precision is tf32 (gfx942: the xf32 MFMA).
                ("matmul_fp32", matmul("fp32")),
                ("gemm_fp16_edges", gemm("fp16", (64, 64, 32), 4)),
                ("gemm_bf16_edges_8_warps", gemm("bf16", (128, 128, 64), 8)),
                ("matmul_int8", matmul_int8)]
    # 128 x 128 x 64 tiles of OCP's 8-bit floats: gfx950's f8f6f4 MFMA.
    programs += [(f"matmul_{d}_large_tiles", matmul(d, (128, 128, 64), 128))
                 for d in ("fp8e4nv", "fp8e5")]
    programs += [(f"cast_{d}", cast(d)) for d in sorted(FP8)]
    # tl.dot_scaled: gfx950's scaled f8f6f4 MFMA.
    programs += [(f"matmul_mx_{fa}_{fb}_{tile}", matmul_mx(fa, fb, tile)) for fa, fb in MX_PAIRS
                 for tile in (16, 32)]
    programs += [(f"upcast_mx_{fa}_{fb}", matmul_mx(fa, fb, 32)) for fa, fb in MX_UPCASTS]
    return programs + [(f"matmul_{d}", matmul(d)) for d in sorted(FP8)]


PROGRAMS = dict(_programs())


def _runs():
    for target in TARGETS:
        for name in PROGRAMS:
            if name.startswith("matmul_fp8") and name.split("_")[1] not in FP8_OF[target]:
                continue
            if name.startswith("cast_") and name[5:] not in NATIVE_FP8.get(target, ()):
                continue        # converted in software elsewhere (Triton's own rounding)
            if name.startswith("upcast_mx_") and target not in ("gfx942", "gfx950"):
                continue        # tl.dot_scaled: the CDNA targets Triton lowers it for
            if name.startswith("matmul_mx_") and target != "gfx950":
                continue        # tl.dot_scaled lowers to the scaled MFMA on gfx950 alone
            if name.endswith("_large_tiles") and target != "gfx950":
                continue        # elsewhere over 6,000 instructions: the native tier declines
            yield pytest.param(target, name, id=f"{target}-{name}")


@pytest.mark.parametrize("target,name", list(_runs()))
def test_triton_kernels_match_numpy_on_both_tiers(session, tmp_path, target, name):
    rng = np.random.default_rng(7)
    fn, signature, constants, args, expected, tolerance, groups, warps = PROGRAMS[name](rng)
    path = str(tmp_path / f"{name}.hsaco")
    kernel, shared, explicit = _compile(target, fn, signature, constants, path, warps)
    # Triton's own trailing arguments (scratch pointers): buffers of their own.
    args = args + [np.zeros(1, np.uint8)] * (explicit - len(args))
    workgroup = warps * (32 if target.startswith("gfx1") else 64)
    case = Case(name, kernel, "", lambda _rng, _wave: (args, expected), (groups[0] * workgroup, groups[1]),
                (workgroup, 1), tolerance, (), (), (), (), shared, (), (target,))
    oracle, oracle_stats, _ = run_on(session, case, path, 64, "interp")
    case.check(expected, output_buffers(path, case, oracle))
    native, native_stats, fallback = run_on(session, case, path, 64, "native")
    assert fallback is None, f"the native tier left it to the interpreter: {fallback.reason}"
    case.check(expected, output_buffers(path, case, native))
    assert_same_run(path, target, native, native_stats, oracle, oracle_stats)


# gfx1100 and gfx1201 are left out: Triton's newer LLVM fills unused VOP3 src2 fields with
# inline 0 (0x80), which llvm-objdump-21 refuses to decode (it prints such words as .long);
# the runs above execute those kernels.
@pytest.mark.parametrize("target,name", [p for p in _runs() if not p.values[0].startswith("gfx1")])
def test_decoder_reads_triton_builds_as_llvm_objdump_21(target, name):
    """Every instruction of Triton's code, decoded as the ROCm 6.4 root's llvm-objdump-21
    prints it (the f8f6f4 MFMA, transposed reads and lane-half swaps of gfx950 among them)."""
    root = rocm64.require_tools()
    fn, signature, constants, *_, warps = PROGRAMS[name](np.random.default_rng(7))
    path = os.path.join(root, "var", "tmp", f"triton-{target}-{name}-{os.getpid()}.hsaco")
    try:
        _compile(target, fn, signature, constants, path, warps)
        with open(path, "rb") as f:
            text = ELFFile(f).get_section_by_name(".text")
            code, base = text.data(), text["sh_addr"]
        listing = rocm64.objdump(path, target)
    finally:
        os.unlink(path)
    expected = {int(m.group(2), 16): m.group(1) for m in map(LINE.match, listing.splitlines()) if m}
    wave64 = not target.startswith("gfx1")
    decoded = {i.address: format_instruction(i) for i in decode_all(code, base, wave64, target)}
    assert decoded.keys() == expected.keys()
    assert [(hex(a), expected[a], decoded[a]) for a in sorted(expected)
            if decoded[a] != expected[a]] == []
