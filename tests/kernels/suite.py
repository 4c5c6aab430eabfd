"""The kernel suite: every kernel of tests/kernels/ described as data, with its reference.

A case is a function named after its test (and its kernel, unless @case names another),
registered with @case(source, grid, workgroup, ...). Called with a seeded numpy Generator and the wave size, it returns the
kernel's arguments (numpy arrays for pointers, numpy scalars for values, Local(n) for
dynamic __local pointers) and what to expect: {argument index: expected array} compared
with the case's tolerance for that argument (exact by default), or {(indices...): check}
for results that depend on the order atomics happened in (check(*outputs) raises
AssertionError unless the outputs agree with some serial order).

Every case builds for every target (gfx1030, gfx90a, gfx1100) unless it names its
`targets` (a kernel using one generation's builtins); `variants(case, target)` says which
builds of it run where.

Holds these invariants:
- inputs come from a generator seeded by the case name, so every failure reproduces;
- references are computed by numpy from the inputs alone, rounded as the hardware (with
  ROCm's device libraries) rounds; float tolerances are the OpenCL spec's, and where the
  spec leaves accuracy to the implementation (native_*, mad) a stated bound;
- no expected output equals the buffer the kernel starts from, and no order check accepts
  the initial buffers (tests/isa/test_kernel_suite.py asserts both), so a kernel that
  writes nothing cannot pass.
"""
import zlib
from dataclasses import dataclass, replace

import numpy as np

from tests.support.launch import Local
from tests.kernels.checks import (EXACT, Close, Columns, Ulps, clz, fma16, fma32, fma64,
                                  llvm_round, popcount, round_to, saturate, wrap32)
from tests.support.kernels import compile_hip, compile_opencl

N = 256
INT_MIN, INT_MAX = -2**31, 2**31 - 1


@dataclass(frozen=True)
class Case:
    name: str                   # the test id
    kernel: str                 # the kernel's name in the code object
    source: str                 # file under tests/kernels/
    build: object               # (rng, wave) -> (args, expected)
    grid: tuple
    workgroup: tuple
    tolerance: dict             # argument index -> Exact/Ulps/Close/Columns
    extra: tuple                # extra compiler flags
    code_objects: tuple         # code object versions to build
    waves: tuple                # wave sizes to build
    opts: tuple                 # optimisation levels to build
    group_segment: int          # dynamic LDS bytes the dispatch requests (HIP extern __shared__)
    global_offset: tuple        # OpenCL global work offset (hidden_global_offset_*), () for none
    targets: tuple              # the targets it builds for

    def inputs(self, wave):
        rng = np.random.default_rng(zlib.crc32(self.name.encode()))
        return self.build(rng, wave)

    def compile(self, opt, wave, code_object=4, target="gfx1030"):
        compile_ = compile_hip if self.source.endswith(".hip") else compile_opencl
        return compile_(self.source, opt=opt, wave64=(wave == 64), code_object=code_object,
                        mcpu=target, extra=self.extra)

    def check(self, expected, outputs):
        """outputs: {argument index: array} as the kernel left them."""
        for key, want in expected.items():
            if isinstance(key, tuple):
                want(*(outputs[i] for i in key))
            else:
                tolerance = self.tolerance.get(key, EXACT)
                tolerance.assert_matches(outputs[key], want, f"{self.name} argument {key}")


CASES = []


TARGETS = ("gfx1030", "gfx90a", "gfx1100")


def case(source, grid, workgroup, *, tolerance=None, extra=(), code_objects=(4,), waves=(32, 64),
         opts=("-O0", "-O2"), kernel=None, group_segment=0, global_offset=(), targets=TARGETS):
    """Register a case named after its build function; `kernel` when the kernel's name differs."""
    def register(build):
        as_tuple = (lambda v: (v,) if isinstance(v, int) else tuple(v))
        CASES.append(Case(build.__name__, kernel or build.__name__, source, build,
                          as_tuple(grid), as_tuple(workgroup), tolerance or {}, tuple(extra),
                          code_objects, waves, opts, group_segment, global_offset,
                          tuple(targets)))
        return build
    return register


def ints(rng, n, lo=INT_MIN, hi=INT_MAX, dtype=np.int32):
    return rng.integers(lo, hi, n, endpoint=True, dtype=np.int64).astype(dtype)


def floats(rng, n, lo_exp=-3, hi_exp=3, dtype=np.float32):
    """Signed values spread over magnitudes 10^lo_exp .. 10^hi_exp."""
    sign = rng.choice([-1.0, 1.0], n)
    return (sign * 10.0 ** rng.uniform(lo_exp, hi_exp, n)).astype(dtype)


def with_edges(values, edges):
    values = values.copy()
    values[:len(edges)] = edges
    return values


def _u32(x):
    return np.asarray(x).view(np.uint32)


# --- integer math ---

@case("int_math.cl", N, 64)
def int_arith(rng, wave):
    a = with_edges(ints(rng, N), [INT_MIN, INT_MAX, -1, 0])
    b = with_edges(ints(rng, N), [-1, 2, INT_MIN, 7])
    x, y = a.astype(np.int64), b.astype(np.int64)
    want = np.stack([wrap32(x + y), wrap32(x - y), wrap32(x * y), ((x * y) >> 32).astype(np.int32)],
                    axis=1)
    return [a, b, np.zeros(4 * N, np.int32)], {2: want}


@case("int_math.cl", N, 64)
def int_div_rem(rng, wave):
    a = with_edges(ints(rng, N), [INT_MIN, INT_MAX, -7, 7, 0])
    b = np.where(rng.random(N) < 0.5, ints(rng, N, -1000, 1000), ints(rng, N))
    b = with_edges(np.where(b == 0, 3, b).astype(np.int32), [1, -2, 2, -2, -5])
    x, y = a.astype(np.int64), b.astype(np.int64)
    q = np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))
    ux, uy = _u32(a).astype(np.int64), _u32(b).astype(np.int64)
    want = np.stack([q, x - q * y, wrap32(ux // uy), wrap32(ux % uy)], axis=1).astype(np.int32)
    return [a, b, np.zeros(4 * N, np.int32)], {2: want}


@case("int_math.cl", N, 64)
def int_shifts(rng, wave):
    a, b = ints(rng, N), with_edges(ints(rng, N), [0, 31, 32, -1])
    s = (b & 31).astype(np.uint32)
    u = _u32(a)
    rot = (_u32(b) % 32).astype(np.uint32)
    rotated = np.where(rot == 0, u, (u << rot) | (u >> ((32 - rot) % 32)))
    want = np.stack([(u << s).view(np.int32), a >> s.astype(np.int32), (u >> s).view(np.int32),
                     rotated.astype(np.uint32).view(np.int32)], axis=1)
    return [a, b, np.zeros(4 * N, np.int32)], {2: want}


@case("int_math.cl", N, 64)
def int_bitops(rng, wave):
    a = with_edges(ints(rng, N, 0, 2**32 - 1, np.uint32), [0, 1, 0xFFFFFFFF, 0x80000000])
    b = with_edges(ints(rng, N, 0, 2**32 - 1, np.uint32), [0, 0x80000000, 1, 0])
    low = np.where(b == 0, 32, clz((b & -b.astype(np.int64)).astype(np.uint32), 32) ^ 31)
    want = np.stack([(a & b) ^ (~a | b), popcount(a), clz(a, 32), low,
                     (a & ~np.uint32(0x0FF0F00F)) | (b & np.uint32(0x0FF0F00F)),
                     (a >> 7) & 0x3FF], axis=1).astype(np.uint32)
    return [a, b, np.zeros(6 * N, np.uint32)], {2: want}


@case("int_math.cl", N, 64)
def int_minmax(rng, wave):
    a = with_edges(ints(rng, N), [INT_MIN, INT_MAX, -5, INT_MIN])
    b = with_edges(ints(rng, N), [1, 1, INT_MAX, INT_MAX])
    c = ints(rng, N, -1000, 1000)
    x, y, z = a.astype(np.int64), b.astype(np.int64), c.astype(np.int64)
    want = np.stack([np.minimum(x, y), np.maximum(x, y), wrap32(np.minimum(_u32(a), _u32(b))),
                     wrap32(np.abs(x)), np.clip(x, np.minimum(y, z), np.maximum(y, z)),
                     np.clip(x + y, INT_MIN, INT_MAX), np.clip(x - y, INT_MIN, INT_MAX),
                     wrap32(np.abs(x - y))], axis=1).astype(np.int32)
    return [a, b, c, np.zeros(8 * N, np.int32)], {3: want}


@case("int_math.cl", N, 64)
def int_mad24_hadd(rng, wave):
    a, b, c = ints(rng, N), ints(rng, N), ints(rng, N)
    x, y = a.astype(np.int64) >> 8, b.astype(np.int64) >> 8
    s = a.astype(np.int64) + b
    want = np.stack([wrap32(x * y), wrap32(x * y + c), s >> 1, (s + 1) >> 1], axis=1)
    return [a, b, c, np.zeros(4 * N, np.int32)], {3: want.astype(np.int32)}


def _bitreverse32(x):
    x = np.asarray(x, dtype=np.uint32)
    out = np.zeros_like(x)
    for bit in range(32):
        out |= ((x >> np.uint32(bit)) & np.uint32(1)) << np.uint32(31 - bit)
    return out


@case("int_math.cl", N, 64)
def int_bitfield(rng, wave):
    a, b = (ints(rng, N, 0, 2**32 - 1, np.uint32) for _ in range(2))
    signed_field = ((a << np.uint32(7)).view(np.int32) >> 20).view(np.uint32)
    inserted = (a & ~np.uint32(0x0FF0)) | ((b << 4) & 0x0FF0)
    narrow = np.stack([(a >> 5) & 0x1FF, signed_field, inserted,
                       _bitreverse32(a)], axis=1).astype(np.uint32)
    joined = (b.astype(np.uint64) << np.uint64(32)) | a
    turn = (a & 127).astype(np.uint64) % np.uint64(64)
    back = (np.uint64(64) - turn) % np.uint64(64)
    rotated = np.where(turn == 0, joined, (joined << turn) | (joined >> back))
    wide = np.stack([(a.astype(np.uint64) << np.uint64(32)) | b, rotated], axis=1)
    return [a, b, np.zeros(4 * N, np.uint32), np.zeros(2 * N, np.uint64)], {2: narrow, 3: wide}


@case("int_math.cl", N, 64)
def short_math(rng, wave):
    a, b = (ints(rng, 2 * N, -32768, 32767, np.int16).reshape(N, 2) for _ in range(2))
    x, y = a.astype(np.int64), b.astype(np.int64)
    smaller = np.minimum(a.view(np.uint16), b.view(np.uint16)).astype(np.int64) - [7, 700]
    pairs = np.stack([x + y, x * y, np.maximum(x, y) >> [3, 1], smaller], axis=1).astype(np.int16)
    p, q = a[:, 0].view(np.uint16).astype(np.int64), b[:, 1].view(np.uint16).astype(np.int64)
    u = ((p * q + (p >> 3)) ^ (q << 2)).astype(np.uint16)
    return [a, b, np.zeros((4 * N, 2), np.int16), np.zeros(N, np.uint16)], {2: pairs, 3: u}


@case("mad16.cl", N, 64)
def mad16(rng, wave):
    a, b, c = (rng.integers(0, 2**16, N, dtype=np.uint16) for _ in range(3))
    x, y, z = (v.astype(np.int64) for v in (a, b, c))
    m = (x * y + z) & 0xFFFF
    s = (x.astype(np.int16).astype(np.int64) * z.astype(np.int16) + y.astype(np.int16)) & 0xFFFF
    wide = (m * 3 + ((x + y) & 0xFFFF)).astype(np.uint32)
    halves = [(v & mask).astype(np.uint16).view(np.float16).astype(np.float64)
              for v, mask in ((a, 0x3FFF), (b, 0x3FFF), (c, 0xBFFF))]
    fused = (halves[0] * halves[1] + halves[2]).astype(np.float16)   # exact in f64, one rounding
    return ([a, b, c, np.zeros(N, np.uint16), np.zeros(N, np.int16), np.zeros(N, np.uint32),
             np.zeros(N, np.float16)],
            {3: m.astype(np.uint16), 4: s.astype(np.uint16).view(np.int16), 5: wide, 6: fused})


def _scalar_uniform_ref(seed, n, groups):
    mask64, out = 2**64 - 1, []
    for group in range(groups):
        h = seed ^ ((group * 0x9E3779B97F4A7C15) & mask64)
        acc = 0
        for _ in range(n):
            h ^= (h << 13) & mask64
            h ^= h >> 7
            h ^= (h << 17) & mask64
            lo, hi = h & 0xFFFFFFFF, (h >> 32) | 0x80000000
            acc = (acc + bin(lo).count("1") + (32 - (lo | 1).bit_length())
                   + ((hi & -hi).bit_length() - 1)) & 0xFFFFFFFF
            acc = (max(acc, h >> 40) - min(acc, 5)) & 0xFFFFFFFF
        out += [h, acc]
    return np.array(out, np.uint64)


@case("int_math.cl", N, 64)
def scalar_uniform(rng, wave):
    seed = int(rng.integers(0, 2**63))
    return ([np.zeros(8, np.uint64), np.uint64(seed), np.uint32(20)],
            {0: _scalar_uniform_ref(seed, 20, N // 64)})


def _mulhi_u64(x, y):
    """High 64 bits of the 128-bit product, from 32-bit halves."""
    mask = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    xl, xh, yl, yh = x & mask, x >> s32, y & mask, y >> s32
    ll, lh, hl, hh = xl * yl, xl * yh, xh * yl, xh * yh
    mid = (ll >> s32) + (lh & mask) + (hl & mask)
    return hh + (lh >> s32) + (hl >> s32) + (mid >> s32)


@case("int_math.cl", N, 64)
def long_math(rng, wave):
    a = ints(rng, N, -2**62, 2**62, np.int64)
    b = np.where(rng.random(N) < 0.5, ints(rng, N, -2**20, 2**20, np.int64),
                 ints(rng, N, -2**62, 2**62, np.int64))
    b = with_edges(np.where(b == 0, 11, b), [1, -1, 2**40])
    ua, ub = a.view(np.uint64), b.view(np.uint64)
    q = np.sign(a) * (np.abs(a) // np.abs(b)) * np.sign(b)
    shl = (ua << (ub & np.uint64(63))).view(np.int64)
    want = np.stack([a + b, (ua * ub).view(np.int64), q, a - q * b, (ua // ub).view(np.int64),
                     shl ^ (a >> ((b >> 8) & 63)), _mulhi_u64(ua, ub).view(np.int64),
                     popcount(ua) + clz(ua, 64) * 256], axis=1).astype(np.int64)
    return [a, b, np.zeros(8 * N, np.int64)], {2: want}


# --- single precision ---

@case("float_math.cl", N, 64)
def float_arith(rng, wave):
    a, b, c = floats(rng, N), floats(rng, N), floats(rng, N)
    want = np.stack([a + b, a - c, a * b, fma32(a, b, c)], axis=1)
    return [a, b, c, np.zeros(4 * N, np.float32)], {3: want}


@case("float_math.cl", N, 64, tolerance={2: Columns(Ulps(2.5), Ulps(3))})
def float_div_sqrt(rng, wave):
    a, b = floats(rng, N, -6, 6), floats(rng, N, -6, 6)
    want = np.stack([a.astype(np.float64) / b, np.sqrt(np.abs(a.astype(np.float64)))], axis=1)
    return [a, b, np.zeros(2 * N, np.float32)], {2: want}


@case("float_exact.cl", N, 64, extra=("-cl-fp32-correctly-rounded-divide-sqrt",))
def float_div_sqrt_cr(rng, wave):
    a, b = floats(rng, N, -15, 15), floats(rng, N, -15, 15)
    want = np.stack([a / b, np.sqrt(np.abs(a))], axis=1)
    return [a, b, np.zeros(2 * N, np.float32)], {2: want}


@case("float_math.cl", N, 64,
      tolerance={3: Columns(*[EXACT] * 7, Ulps(1))})
def float_minmax(rng, wave):
    a = floats(rng, N)
    a[::7] = np.nan
    b, t = floats(rng, N), rng.random(N).astype(np.float32)
    want = np.stack([np.fmin(a, b), np.fmax(a, b), np.abs(a), np.copysign(b, a),
                     np.fmin(np.fmax(b, np.float32(-0.5)), np.float32(0.75)),
                     np.where(b < 0.25, 0, 1), np.sign(b),
                     b.astype(np.float64) + b.astype(np.float64) * t], axis=1)
    return [a, b, t, np.zeros(8 * N, np.float32)], {3: want}


@case("float_math.cl", N, 64, tolerance={6: Ulps(1)})
def mad_family(rng, wave):
    a, b = np.abs(floats(rng, N)), floats(rng, N)
    c = np.copysign(np.abs(floats(rng, N)), b)
    # Small and full-range factors: some products saturate, some do not.
    x, y = (np.where(rng.random(N) < 0.5, ints(rng, N, -30000, 30000), ints(rng, N))
            .astype(np.int32) for _ in range(2))
    z = ints(rng, N)
    p, q, r = x.astype(np.int64), y.astype(np.int64), z.astype(np.int64)
    unsigned = [min(int(u) * int(v) + int(w), 2**32 - 1)
                for u, v, w in zip(_u32(x), _u32(y), _u32(z))]
    ints_out = np.stack([wrap32(((p * q) >> 32) + r), np.clip(p * q + r, INT_MIN, INT_MAX),
                         wrap32(np.array(unsigned, np.int64))], axis=1).astype(np.int32)
    exact = a.astype(np.longdouble) * b + c
    return ([a, b, c, x, y, z, np.zeros(N, np.float32), np.zeros(3 * N, np.int32)],
            {6: exact, 7: ints_out})


def _flush(x):
    """Denormals to zero of the same sign, as FLOAT_DENORM_MODE_32 = 0 does to inputs and results."""
    return np.where(np.abs(x) < np.finfo(np.float32).tiny, np.copysign(np.float32(0), x), x)


def _denormal_case(rng, flush):
    a = np.concatenate([floats(rng, N - 32, -44, -38), floats(rng, 32, -37, -36)])
    a = a.astype(np.float32)
    b = np.abs(floats(rng, N, -2, 1))
    c = floats(rng, N, -44, -38)
    f = _flush if flush else (lambda v: v)
    x, y, z = f(a), f(b), f(c)
    want = np.stack([f(x * y), f(x + z), f(fma32(x, y, z)), f(x * np.float32(2.0**100))], axis=1)
    return [a, b, c, np.zeros(4 * N, np.float32)], {3: want}


@case("denormals.cl", N, 64)
def float_denormals(rng, wave):
    return _denormal_case(rng, flush=False)


@case("denormals.cl", N, 64, extra=("-cl-denorms-are-zero",), kernel="float_denormals")
def float_denormals_ftz(rng, wave):
    return _denormal_case(rng, flush=True)


@case("float_modes.cl", 64, 64)
def read_mode(rng, wave):
    # FP_ROUND 0 (nearest), FP_DENORM 0xF (f32 and f64/f16 kept), DX10_CLAMP and IEEE set.
    return [np.zeros(64, np.uint32)], {0: np.full(64, 0x3F0, np.uint32)}


def _rounding_case(rng, mode):
    a, b, c = (floats(rng, N, -3, 3) for _ in range(3))
    d = floats(rng, N, -3, 3, np.float64)
    x, y = a.astype(np.longdouble), b.astype(np.longdouble)
    out = np.stack([round_to(x + y, np.float32, mode), round_to(x * y, np.float32, mode),
                    round_to(x * y + c, np.float32, mode)], axis=1)
    return [a, b, c, d, np.zeros(3 * N, np.float32), np.zeros(N)], {4: out, 5: d + a}


@case("float_modes.cl", N, 64)
def round_up(rng, wave):
    return _rounding_case(rng, "rtp")


@case("float_modes.cl", N, 64)
def round_down(rng, wave):
    return _rounding_case(rng, "rtn")


@case("float_modes.cl", N, 64)
def round_toward_zero(rng, wave):
    return _rounding_case(rng, "rtz")


@case("float_math.cl", N, 64)
def float_round(rng, wave):
    a = np.concatenate([rng.integers(-400, 400, N // 2) / 4, floats(rng, N // 2, -2, 9)])
    a = with_edges(a.astype(np.float32), [0.5, -0.5, 1.5, -2.5, 2**23 + 1, -0.0, 0.49999997])
    want = np.stack([np.floor(a), np.ceil(a), llvm_round(a), np.rint(a), np.trunc(a),
                     a - np.trunc(a)], axis=1)
    return [a, np.zeros(6 * N, np.float32)], {1: want}


@case("float_math.cl", N, 64, tolerance={2: Ulps(3)})
def float_exp_log(rng, wave):
    a = rng.uniform(-30, 30, N).astype(np.float32)
    p = np.abs(floats(rng, N, -8, 8))
    al, pl = a.astype(np.longdouble), p.astype(np.longdouble)
    want = np.stack([np.exp(al), np.exp2(al), np.log(pl), np.log2(pl)], axis=1)
    return [a, p, np.zeros(4 * N, np.float32)], {2: want}


@case("float_math.cl", N, 64, tolerance={1: Ulps(4)})
def float_sin_cos(rng, wave):
    a = with_edges(rng.uniform(-100, 100, N).astype(np.float32), [0.0, np.pi, -np.pi / 2, 1e-3])
    al = a.astype(np.longdouble)
    return [a, np.zeros(2 * N, np.float32)], {1: np.stack([np.sin(al), np.cos(al)], axis=1)}


@case("float_math.cl", N, 64, tolerance={2: Ulps(16)})
def float_pow(rng, wave):
    a = (10.0 ** rng.uniform(-1, 1, N)).astype(np.float32)
    b = rng.uniform(-8, 8, N).astype(np.float32)
    return [a, b, np.zeros(N, np.float32)], {2: np.power(a.astype(np.longdouble), b)}


@case("float_math.cl", N, 64, tolerance={2: Columns(Ulps(2), Ulps(2), Ulps(4), Ulps(6))})
def float_misc(rng, wave):
    a, b = np.abs(floats(rng, N)), floats(rng, N)
    al, bl = a.astype(np.longdouble), b.astype(np.longdouble)
    want = np.stack([1 / np.sqrt(al), np.cbrt(b.astype(np.float64)), np.hypot(al, bl),
                     np.arctan2(bl, al)], axis=1)
    return [a, b, np.zeros(4 * N, np.float32)], {2: want}


@case("float_math.cl", N, 64,
      tolerance={2: Columns(Ulps(3), Ulps(3), Ulps(3), Ulps(2), Ulps(4), Ulps(16))})
def float_special_values(rng, wave):
    xs = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1.0, 2.0, -2.0, 0.5, -8.0, 1e-30, 1e30, -0.5]
    ys = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, -3.0, 0.5, np.inf, -np.inf, np.nan, 1 / 3]
    pairs = np.array([(x, y) for x in xs for y in ys])
    a = np.concatenate([pairs[:, 0], rng.uniform(-100, 100, N - len(pairs))]).astype(np.float32)
    b = np.concatenate([pairs[:, 1], rng.uniform(-4, 4, N - len(pairs))]).astype(np.float32)
    x, y = a.astype(np.longdouble), b.astype(np.longdouble)
    with np.errstate(all="ignore"):
        want = np.stack([np.exp(x), np.log(x), np.sqrt(x), 1 / np.sqrt(x), np.sin(x),
                         np.power(x, y)], axis=1)
    return [a, b, np.zeros(6 * N, np.float32)], {2: want}


@case("float_math.cl", N, 64, tolerance={2: Close(rtol=1e-4, atol=1e-4)})
def float_native(rng, wave):
    a = rng.uniform(-np.pi, np.pi, N).astype(np.float32)
    p = rng.uniform(0.1, 100, N).astype(np.float32)
    x, q = a.astype(np.float64), p.astype(np.float64)
    want = np.stack([np.sin(x), np.cos(x), np.exp2(x), np.log2(q), 1 / q, 1 / np.sqrt(q),
                     np.sqrt(q), x / q], axis=1)
    return [a, p, np.zeros(8 * N, np.float32)], {2: want}


# --- conversions ---

@case("conversions.cl", N, 64)
def convert_float_to_int(rng, wave):
    a = np.concatenate([rng.integers(-1200, 1200, N // 2) / 4, floats(rng, N // 2, -1, 10)])
    a = with_edges(a.astype(np.float32), [np.nan, np.inf, -np.inf, 2.5, -2.5, 3e9, -3e9, -0.75])
    clamped = np.where(np.isnan(a), 7, np.trunc(np.clip(a, -1e9, 1e9)))
    want = np.stack([saturate(a, INT_MIN, INT_MAX), saturate(a, INT_MIN, INT_MAX, np.rint),
                     saturate(a, INT_MIN, INT_MAX, np.ceil),
                     saturate(a, INT_MIN, INT_MAX, np.floor),
                     wrap32(saturate(a, 0, 2**32 - 1)), saturate(a, -128, 127),
                     saturate(a, 0, 65535), clamped], axis=1).astype(np.int32)
    return [a, np.zeros(8 * N, np.int32)], {1: want}


@case("conversions.cl", N, 64)
def convert_int_narrow(rng, wave):
    a = np.where(rng.random(N) < 0.5, ints(rng, N, -70000, 70000), ints(rng, N)).astype(np.int32)
    want = np.stack([np.clip(a, 0, 255), np.clip(a, -32768, 32767), a.astype(np.int8),
                     a.astype(np.uint16)], axis=1).astype(np.int32)
    return [a, np.zeros(4 * N, np.int32)], {1: want}


@case("conversions.cl", N, 64)
def convert_int_to_float(rng, wave):
    a = with_edges(ints(rng, N), [INT_MIN, INT_MAX, 16777217, -16777219, 0])
    exact = a.astype(np.float64)
    want = np.stack([exact.astype(np.float32), round_to(exact, np.float32, "rtz"),
                     round_to(exact, np.float32, "rtp"), round_to(exact, np.float32, "rtn"),
                     _u32(a).astype(np.float64).astype(np.float32)], axis=1)
    return [a, np.zeros(5 * N, np.float32)], {1: want}


def _nearest_float(value, bits):
    """A Python integer rounded to the nearest float with `bits` significand bits (ties to
    even), exactly: numpy's int64 -> float32 cast may round twice."""
    magnitude = abs(value)
    shift = max(magnitude.bit_length() - bits, 0)
    q, r = divmod(magnitude, 1 << shift)
    if shift and (r > 1 << (shift - 1) or (r == 1 << (shift - 1) and q & 1)):
        q += 1
    return float(q << shift) * (-1 if value < 0 else 1)


def _clamped_int(value, lo, hi):
    """The device library's float -> 64-bit conversion: fmax/fmin clamp (NaN -> lo), truncate."""
    if np.isnan(value) or value <= lo:
        return lo
    return hi if value >= hi else int(value)


@case("conversions.cl", N, 64)
def convert_64bit(rng, wave):
    longs = np.where(rng.random(N) < 0.5, ints(rng, N, -2**62, 2**62, np.int64),
                     ints(rng, N, -2**63, 2**63 - 1, np.int64))
    longs = with_edges(longs, [2**24 + 1, -(2**53) - 1, 2**63 - 1, -2**63, -1, 2**40 + 2**16,
                               2**25 + 3])
    f = np.concatenate([[np.nan, 3e19, -1.0, 2.5e19, 1.8e19, -3e19, 0.75, -0.0, 9.3e18, -9.3e18],
                        floats(rng, N - 10, -2, 18)]).astype(np.float32)
    to_float = [[_nearest_float(int(v), 24) for v in longs],
                [_nearest_float(int(v), 24) for v in longs.view(np.uint64)]]
    bits = 2**64 - 1          # a Python integer's two's complement 64-bit pattern
    to_long = [[_clamped_int(v, -2**63, 2**63 - 1) & bits, _clamped_int(v, 0, 2**64 - 1)]
               for v in f.astype(np.float64)]
    to_double = [_nearest_float(int(v), 53) for v in longs.view(np.uint64)]
    return ([longs, f, np.zeros(2 * N, np.float32), np.zeros(2 * N, np.int64), np.zeros(N)],
            {2: np.array(to_float, np.float32).T, 3: np.array(to_long, np.uint64).view(np.int64),
             4: np.array(to_double)})


# --- IEEE corner cases: what the hardware computes from ROCm's device library ---

F32_MAX, F32_MIN = float(np.finfo(np.float32).max), float(np.finfo(np.float32).tiny)
F32_SNAN = float(np.array(0x7FA00001, np.uint32).view(np.float32))
NEG_NAN = float(np.array(0xFFC00000, np.uint32).view(np.float32))


def _specials(rng, edges, dtype, spread=3.0):
    """The edges, then values in (-spread, spread) and small negatives in (-1, 0)."""
    rest = np.concatenate([rng.uniform(-spread, spread, (N - len(edges)) // 2),
                           -rng.uniform(0, 1, N - len(edges) - (N - len(edges)) // 2)])
    return np.concatenate([np.array(edges, dtype), rest.astype(dtype)])


def _round_fixed(x):
    """C's round(): trunc(x) plus +-1 or a zero of x's sign (what LLVM 18 emits)."""
    t = np.trunc(x)
    return t + np.copysign(np.where(np.abs(x - t) >= 0.5, 1, 0).astype(x.dtype), x)


ROUNDING_EDGES = [-0.25, -0.5, -0.75, -0.0, 0.0, 0.5, -1.5, 1.5, -2.5, 2.5, -0.49999997, 0.49999997,
                  np.inf, -np.inf, np.nan, NEG_NAN]


@case("ieee_corners.cl", N, 64, code_objects=(4, 5))
def rounding_signs(rng, wave):
    a = _specials(rng, ROUNDING_EDGES + [-1e-45, 1e-45, -F32_MIN, F32_MAX, -F32_MAX, 8388609.0], np.float32)
    b = _specials(rng, ROUNDING_EDGES + [-5e-324, 2.0**52 + 1, -(2.0**52) - 1], np.float64)
    c = _specials(rng, ROUNDING_EDGES[:14] + [-2.0**-24, 65504.0, -65504.0, 512.5, -512.5], np.float16)
    with np.errstate(invalid="ignore"):
        # fract is v_fract (x - floor(x) below 1.0, -0 -> +0) with +-inf -> +0 (OCML).
        fract = np.where(np.isinf(a), 0, np.minimum(a - np.floor(a), np.nextafter(np.float32(1), 0)))
        floats = np.stack([np.floor(a), np.ceil(a), np.trunc(a), np.rint(a), llvm_round(a), _round_fixed(a),
                           fract.astype(np.float32), np.floor(a)], axis=1)
        doubles = np.stack([np.floor(b), np.ceil(b), np.trunc(b), np.rint(b), llvm_round(b)], axis=1)
    halves = np.stack([np.floor(c), np.ceil(c), np.trunc(c), np.rint(c)], axis=1)
    return [a, b, c, np.zeros(8 * N, np.float32), np.zeros(5 * N), np.zeros(4 * N, np.float16)], \
        {3: floats, 4: doubles, 5: halves}


CONVERSION_EDGES = [np.nan, NEG_NAN, F32_SNAN, np.inf, -np.inf, F32_MAX, -F32_MAX, 2.0**31, -(2.0**31),
                    2147483520.0, -2147483904.0, 4294967040.0, 2.0**32, -0.5, 0.5, -1.5, 1.5, -2.5, 2.5,
                    127.5, -128.5, 128.0, -129.0, 255.5, -0.0, 32767.5, -32768.5, 65535.5, 65536.0, -1e-45]


@case("ieee_corners.cl", N, 64, code_objects=(4, 5))
def saturating_conversions(rng, wave):
    a = _specials(rng, CONVERSION_EDGES, np.float32, spread=3e9)
    b = _specials(rng, [np.nan, np.inf, -np.inf, 2147483647.5, -2147483648.5, 4294967295.5, -0.5, 2.5, 3.5,
                        9.3e18, -9.3e18, 1.9e19, 1e300, -1e300, 2.0**63, -(2.0**63)], np.float64, spread=3e9)
    floor, ceil = np.floor, np.ceil
    ints_out = np.stack([
        saturate(a, INT_MIN, INT_MAX), saturate(a, INT_MIN, INT_MAX, np.rint),
        saturate(a, INT_MIN, INT_MAX, ceil), saturate(a, INT_MIN, INT_MAX, floor), saturate(a, INT_MIN, INT_MAX),
        wrap32(saturate(a, 0, 2**32 - 1)), wrap32(saturate(a, 0, 2**32 - 1, np.rint)), saturate(a, -128, 127),
        saturate(a, 0, 255, floor), saturate(a, -32768, 32767, ceil), saturate(a, 0, 65535),
        np.where(np.isnan(a), 0, saturate(a, INT_MIN, INT_MAX)),
        saturate(b, INT_MIN, INT_MAX), wrap32(saturate(b, 0, 2**32 - 1, np.rint))], axis=1).astype(np.int32)
    bits = 2**64 - 1          # a Python integer's two's complement 64-bit pattern
    longs = np.array([[_clamped_int(v, -2**63, 2**63 - 1) & bits, _clamped_int(v, 0, 2**64 - 1)] for v in b],
                     dtype=np.uint64).view(np.int64)
    return [a, b, np.zeros(14 * N, np.int32), np.zeros(2 * N, np.int64)], {2: ints_out, 3: longs}


def _ordered(x, y, pick_min):
    """fmin/fmax as v_min/v_max compute them: a NaN operand yields the other one, -0 < +0."""
    lo_first = (x < y) | ((x == y) & np.signbit(x) & ~np.signbit(y))
    picked = np.where(lo_first == pick_min, x, y)
    return np.where(np.isnan(x), y, np.where(np.isnan(y), x, picked))


MINMAX_PAIRS = [(np.nan, 1.0), (1.0, np.nan), (np.nan, np.nan), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0),
                (F32_SNAN, 2.0), (-2.0, F32_SNAN), (-np.inf, np.nan), (np.inf, -np.inf), (1e-45, -1e-45),
                (NEG_NAN, -3.0), (-0.0, np.nan), (np.nan, -0.0)]


@case("ieee_corners.cl", N, 64, code_objects=(4, 5))
def fminmax_specials(rng, wave):
    pairs = np.array(MINMAX_PAIRS + [(float(p), float(q)) for p, q in rng.uniform(-2, 2, (N - len(MINMAX_PAIRS), 2))])
    a, b = pairs[:, 0].astype(np.float32), pairs[:, 1].astype(np.float32)
    c, d = pairs[:, 0], pairs[:, 1]
    with np.errstate(invalid="ignore"):
        shifted = a + np.float32(0)
        clamped = np.where(np.isnan(shifted), 0, np.clip(shifted, 0, 1))
    floats = np.stack([_ordered(a, b, True), _ordered(a, b, False), clamped,
                       _ordered(_ordered(a, b, True), np.full(N, -0.0, np.float32), False)], axis=1)
    doubles = np.stack([_ordered(c, d, True), _ordered(c, d, False)], axis=1)
    return [a, b, c, d, np.zeros(4 * N, np.float32), np.zeros(2 * N)], {4: floats.astype(np.float32), 5: doubles}


# --- half precision ---

@case("half_math.cl", N, 64)
def half_arith(rng, wave):
    a, b, c = (floats(rng, N, -3, 2, np.float16) for _ in range(3))
    x, y, z = (v.astype(np.float64) for v in (a, b, c))
    want = np.stack([(x + y).astype(np.float16), (x - z).astype(np.float16),
                     (x * y).astype(np.float16), fma16(a, b, c), np.fmax(a, b), np.abs(c)], axis=1)
    return [a, b, c, np.zeros(6 * N, np.float16)], {3: want}


@case("half_math.cl", N, 64)
def half_convert(rng, wave):
    a = np.concatenate([floats(rng, N - 64, -8, 4), floats(rng, 64, 4.8, 5.2)]).astype(np.float32)
    h = floats(rng, N, -7, 4, np.float16)
    exact = a.astype(np.float64)
    with np.errstate(over="ignore"):      # values beyond 65504 become inf, on purpose
        halves = np.stack([a.astype(np.float16), round_to(exact, np.float16, "rtz"),
                           round_to(exact, np.float16, "rtp")], axis=1)
    return ([a, h, np.zeros(3 * N, np.float16), np.zeros(N, np.float32)],
            {2: halves, 3: h.astype(np.float32) * np.float32(3)})


@case("half_math.cl", N, 64, tolerance={2: Ulps(1)})
def half_sqrt_div(rng, wave):
    a = np.abs(floats(rng, N, -3, 3, np.float16))
    b = floats(rng, N, -1, 1, np.float16)
    x, y = a.astype(np.float64), b.astype(np.float64)
    return [a, b, np.zeros(2 * N, np.float16)], {2: np.stack([np.sqrt(x), x / y], axis=1)}


@case("half_math.cl", N, 64)
def half2_ops(rng, wave):
    a, b = (floats(rng, 2 * N, -3, 2, np.float16).reshape(N, 2) for _ in range(2))
    c = floats(rng, 2 * N, -3, 2, np.float16)
    z = c.reshape(N, 2)[:, ::-1]
    x, y, zz = (v.astype(np.float64) for v in (a, b, z))
    top = np.fmax(a, z).astype(np.float64)
    want = np.stack([(x + y).astype(np.float16), (x * zz).astype(np.float16), fma16(a, b, z),
                     (top - y[:, ::-1]).astype(np.float16)], axis=1)
    return [a, b, c, np.zeros((4 * N, 2), np.float16)], {3: want}


@case("half_math.cl", N, 64)
def half_round_cmp(rng, wave):
    a = np.concatenate([rng.integers(-40, 40, N // 2) / 4, floats(rng, N // 2, -2, 2)])
    a = a.astype(np.float16)
    b = floats(rng, N, -2, 2, np.float16)
    b[::9] = -a[::9]
    i = np.arange(N)
    halves = np.stack([np.floor(a), np.ceil(a), np.rint(a), np.trunc(a), np.where(a < b, a, b * 4),
                       (i * 37 - 4000).astype(np.float64).astype(np.float16)], axis=1)
    flags = (a > b).astype(np.int16) + 2 * (a == -b) + 4 * (b < 0)
    shorts = np.stack([np.trunc(a.astype(np.float64) * 8), flags], axis=1).astype(np.int16)
    return ([a, b, np.zeros(6 * N, np.float16), np.zeros(2 * N, np.int16)],
            {2: halves.astype(np.float16), 3: shorts})


@case("half_math.cl", N, 64, tolerance={2: Ulps(2)})
def half_transcendental(rng, wave):
    a = rng.uniform(-10, 10, N).astype(np.float16)
    p = np.abs(floats(rng, N, -4, 4, np.float16))
    x, y = a.astype(np.longdouble), p.astype(np.longdouble)
    want = np.stack([np.exp(x), np.exp2(x), np.log(y), np.log2(y), np.tan(x), np.cos(x),
                     1 / np.sqrt(y)], axis=1)
    return [a, p, np.zeros(7 * N, np.float16)], {2: want}


# --- double precision ---

@case("double_math.cl", N, 64)
def double_arith(rng, wave):
    a, b, c = (floats(rng, N, -50, 50, np.float64) for _ in range(3))
    want = np.stack([a + b, a - c, a * b, fma64(a, b, c), a / b, np.sqrt(np.abs(c))], axis=1)
    return [a, b, c, np.zeros(6 * N, np.float64)], {3: want}


@case("double_math.cl", N, 64, tolerance={2: Columns(Ulps(3), Ulps(3), Ulps(4), Ulps(4), Ulps(16))})
def double_transcendental(rng, wave):
    a = rng.uniform(-50, 50, N)
    p = np.abs(floats(rng, N, -20, 20, np.float64))
    al, pl = a.astype(np.longdouble), p.astype(np.longdouble)
    want = np.stack([np.exp(al), np.log(pl), np.sin(al), np.cos(al), np.power(pl, al * 0.25)],
                    axis=1)
    return [a, p, np.zeros(5 * N, np.float64)], {2: want}


@case("double_math.cl", N, 64)
def double_convert(rng, wave):
    a = np.concatenate([rng.integers(-4000, 4000, N // 2) / 8,
                        floats(rng, N // 2, -3, 10, np.float64)])
    a = with_edges(a, [0.5, -0.5, 2.5, -1.5, 1 + 2**-30, 3e9, -3e9, -0.0])
    longs = with_edges(ints(rng, N, -2**63, 2**63 - 1, np.int64), [2**53 + 1, -2**63, 2**62 + 2**9])
    f = np.stack([a.astype(np.float32), round_to(a, np.float32, "rtz")], axis=1)
    n = np.stack([np.trunc(a).astype(np.int64), saturate(a, INT_MIN, INT_MAX)], axis=1)
    d = np.stack([longs.astype(np.float64), np.floor(a), np.ceil(a), llvm_round(a)], axis=1)
    return ([a, longs, np.zeros(2 * N, np.float32), np.zeros(2 * N, np.int64),
             np.zeros(4 * N, np.float64)], {2: f, 3: n, 4: d})


@case("double_math.cl", N, 64, tolerance={2: Columns(EXACT, EXACT, EXACT, Ulps(3), Ulps(3))})
def double_special(rng, wave):
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 5e-324, -5e-324]
    a = np.concatenate([specials, floats(rng, N // 2, -315, -300, np.float64),
                        floats(rng, N // 2 - len(specials), -3, 3, np.float64)])
    b = np.concatenate([rng.uniform(0.9, 1.07, N - 32), floats(rng, 32, 10, 300, np.float64)])
    exponent = (b * -700.0).astype(np.longdouble)        # rounded to f64, as in the kernel
    with np.errstate(all="ignore"):
        want = np.stack([a * b, a / b, np.sqrt(a), np.exp(exponent),
                         np.log(a.astype(np.longdouble))], axis=1)
    return [a, b, np.zeros(5 * N)], {2: want}


# --- vector types ---

@case("vectors.cl", N, 64)
def float4_ops(rng, wave):
    a, b, c = (floats(rng, 4 * N).reshape(N, 4) for _ in range(3))
    want = np.stack([fma32(a, b, c), (a + b)[:, ::-1], np.where(b > a, b, a)], axis=1)
    return [a, b, c, np.zeros((3 * N, 4), np.float32)], {3: want}


@case("vectors.cl", N, 64)
def int2_ops(rng, wave):
    a, b = ints(rng, 2 * N).reshape(N, 2), ints(rng, 2 * N).reshape(N, 2)
    x, y = a.astype(np.int64), b.astype(np.int64)
    ints_out = np.stack([wrap32(x[:, ::-1] * y + [1, -1]), np.where(x > y, y, x)], axis=1)
    return ([a, b, np.zeros((2 * N, 2), np.int32), np.zeros((N, 2), np.float32)],
            {2: ints_out.astype(np.int32), 3: wrap32(x - y).astype(np.float32)})


@case("vectors.cl", N, 64)
def uchar4_ops(rng, wave):
    a, b = (ints(rng, 4 * N, 0, 255, np.uint8).reshape(N, 4) for _ in range(2))
    x, y = a.astype(np.int64), b.astype(np.int64)
    want = np.stack([np.minimum(x + y, 255), (x + y + 1) >> 1, np.clip(np.floor(x * 1.5), 0, 255),
                     x[:, [3, 1, 2, 0]] ^ y], axis=1).astype(np.uint8)
    return [a, b, np.zeros((4 * N, 4), np.uint8)], {2: want}


@case("vectors.cl", N, 64)
def vload3_vstore3(rng, wave):
    a = floats(rng, 3 * N)
    v = a.reshape(N, 3)
    return [a, np.zeros(3 * N, np.float32)], {1: v[:, [2, 0, 1]] * np.float32(2)}


@case("vectors.cl", N, 64)
def unaligned_vectors(rng, wave):
    f = floats(rng, 4 * N + 4)
    sh = ints(rng, 2 * N + 2, -32768, 32767, np.int16)
    b = ints(rng, 8 * N + 8, 0, 255, np.uint8)
    fo = np.full(4 * N + 4, -1, np.float32)
    so = np.full(2 * N + 2, -1, np.int16)
    bo = np.full(8 * N + 8, 0xEE, np.uint8)
    want_f, want_s, want_b = fo.copy(), so.copy(), bo.copy()
    want_f[3:4 * N + 3] = f[1:4 * N + 1] * np.float32(2)
    want_s[1:2 * N + 1] = sh[1:2 * N + 1].reshape(N, 2)[:, ::-1].ravel()
    want_b[1:8 * N + 1] = b[3:8 * N + 3].reshape(N, 8)[:, ::-1].ravel()
    return [f, sh, b, fo, so, bo], {3: want_f, 4: want_s, 5: want_b}


POD = np.dtype([("a", "<i4"), ("b", "<f4"), ("c", "<i2")], align=True)


@case("arguments.cl", 128, 64)
def kernel_arguments(rng, wave):
    values = [np.int8(-5), np.uint8(200), np.int16(-30000), np.uint16(60000), np.float16(1.5),
              np.int32(-123456), np.int64(-2**40 - 7), np.float32(3.25), np.float64(-1e300)]
    v = np.array([1.5, -2.0, 4.0, 0.25], np.float32)
    w = np.array([7, -8, 9], np.int32)
    pod = np.array((-77, 0.5, -3), POD)
    row = [float(x) for x in values] + [v[0] + v[3], v[1] * v[2], w[0] - w[2], w[1],
                                        -77, 0.5, -3]
    want = np.tile(row, (128, 1))
    want[:, 15] += np.arange(128)
    return values + [v, w, pod, np.zeros(16 * 128)], {12: want}


# --- byte and short memory ---

@case("memory.cl", N, 64)
def byte_short_loads(rng, wave):
    c, uc = ints(rng, N, -128, 127, np.int8), ints(rng, N, 0, 255, np.uint8)
    s, us = ints(rng, N, -32768, 32767, np.int16), ints(rng, N, 0, 65535, np.uint16)
    want = np.stack([c, uc, s, us], axis=1).astype(np.int32)
    return [c, uc, s, us, np.zeros(4 * N, np.int32)], {4: want}


@case("memory.cl", N, 64)
def byte_short_stores(rng, wave):
    a = ints(rng, N)
    x = a.astype(np.int64)
    packed = np.stack([x, x >> 8, x >> 16], axis=1).astype(np.uint8)
    return ([a, np.full(N, 0x5A, np.int8), np.full(N, 0x5A5A, np.int16), np.zeros(3 * N, np.uint8)],
            {1: (x + 100).astype(np.int8), 2: (x * 3).astype(np.int16), 3: packed})


@case("memory.cl", 65536, 256)
def stream_triad(rng, wave):
    a, b = floats(rng, 65536), floats(rng, 65536)
    k = np.float32(-0.75)
    return [a, b, np.zeros(65536, np.float32), k], {2: fma32(np.full(65536, k), b, a)}


RECORD = np.dtype([("tag", "i1"), ("weight", "<i2"), ("value", "<i4"), ("scale", "<f4")],
                  align=True)


@case("memory.cl", N, 64)
def struct_fields(rng, wave):
    rec = np.zeros(N, RECORD)
    rec["tag"] = ints(rng, N, -128, 127, np.int8)
    rec["weight"] = ints(rng, N, -30000, 30000, np.int16)
    rec["value"], rec["scale"] = ints(rng, N), floats(rng, N)
    want = np.zeros(N, RECORD)
    want["tag"] = (-rec["tag"].astype(np.int64)).astype(np.int8)
    want["weight"] = (rec["weight"].astype(np.int64) + rec["tag"]).astype(np.int16)
    want["value"] = rec["value"] ^ rec["weight"].astype(np.int32)
    want["scale"] = rec["scale"] * np.float32(2)
    return [rec, np.zeros(N, RECORD)], {1: want}


# --- control flow ---

@case("control_flow.cl", N, 64)
def collatz_steps(rng, wave):
    start = ints(rng, N, 1, 1000, np.uint32)
    n, steps = start.astype(np.int64), np.zeros(N, np.uint32)
    while np.any(n != 1):
        live = n != 1
        n = np.where(live, np.where(n & 1, 3 * n + 1, n >> 1), n)
        steps += live
    return [start, np.zeros(N, np.uint32)], {1: steps}


@case("control_flow.cl", N, 64)
def divergent_switch(rng, wave):
    a = ints(rng, N, -5000, 5000)
    x = a.astype(np.int64)
    r = np.select([(x & 7) == k for k in (0, 1, 2, 3, 5)], [x * 3, x - 17, x ^ 0x5A5A, x >> 2, -x],
                  x + 1000)
    r = np.where(x > 0, r + np.where(x & 0x100, 1, -1), r)
    return [a, np.zeros(N, np.int32)], {1: r.astype(np.int32)}


@case("control_flow.cl", N, 64)
def early_return(rng, wave):
    a = ints(rng, N, -100, 100)
    out = np.where(a < 0, -7777, a * 2)
    more = np.where((a >= 0) & (a % 3 != 0), a + 1, -7777)
    return ([a, np.full(N, -7777, np.int32), np.full(N, -7777, np.int32)],
            {1: out.astype(np.int32), 2: more.astype(np.int32)})


@case("control_flow.cl", N, 64)
def loops_break_continue(rng, wave):
    rows, limit = ints(rng, (N, 32), 0, 200), ints(rng, N, 120, 230)
    total, first = np.zeros(N, np.int64), np.full(N, -1, np.int64)
    for j in range(32):
        v = rows[:, j].astype(np.int64)
        live = (first < 0) & (v % 5 != 0)
        stop = live & (v > limit)
        first = np.where(stop, j, first)
        total += np.where(live & ~stop, popcount(v), 0)
    return ([rows.reshape(-1), limit, np.zeros(2 * N, np.int32)],
            {2: np.stack([total, first], axis=1).astype(np.int32)})


# --- private memory and calls ---

@case("private_memory.cl", N, 64)
def private_array_walk(rng, wave):
    seed = ints(rng, N, 0, 2**32 - 1, np.uint32)
    buf, s = np.zeros((N, 96), np.uint32), seed.copy()
    for k in range(96):
        s = s * np.uint32(1664525) + np.uint32(1013904223)
        buf[:, k] = s
    rows, idx, acc = np.arange(N), seed % 96, np.zeros(N, np.uint32)
    for k in range(64):
        idx = (buf[rows, idx] ^ np.uint32(k)) % 96
        acc += buf[rows, idx]
        buf[rows, idx] += np.uint32(k)
    return [seed, np.zeros(N, np.uint32)], {1: acc ^ buf[rows, seed % 96]}


@case("private_memory.cl", N, 64)
def private_sort(rng, wave):
    values = floats(rng, 16 * N)
    return [values, np.zeros(16 * N, np.float32)], {1: np.sort(values.reshape(N, 16), axis=1)}


@case("private_memory.cl", N, 64)
def register_pressure(rng, wave):
    values = floats(rng, 48 * N).reshape(N, 48)
    acc = values.copy()
    # In the kernel's order (acc[(k + 7) % 48] may already be updated). x * 0.5 is exact,
    # so whether clang contracts the expression into an fma or not, it rounds once.
    for _ in range(4):
        for k in range(48):
            acc[:, k] = acc[:, k] * np.float32(0.5) + acc[:, (k + 7) % 48]
    return [values.ravel(), np.zeros(48 * N, np.float32)], {1: acc.ravel()}


def _mix64(x):
    x = x ^ (x >> np.uint64(33))
    x = x * np.uint64(0xFF51AFD7ED558CCD)
    return x ^ (x >> np.uint64(33))


@case("calls.cl", N, 64)
def noinline_calls(rng, wave):
    a = with_edges(ints(rng, N), [INT_MIN, INT_MAX])
    x = a.astype(np.int64)
    p = x & 1023
    lo = np.minimum(x, np.minimum(x >> 4, wrap32(-x)))
    hi = np.maximum(x, np.maximum(x >> 4, wrap32(-x)))
    window = np.stack([x, lo, hi, x & 255, np.full(N, 7)], axis=1)
    n = (x & 3) + 2
    weights = np.where(np.arange(5) < n[:, None], np.arange(1, 6), 0)
    summed = (window * weights).sum(axis=1) + (n + 2) * n + 3
    out = np.stack([wrap32((3 * p - 5) * p + 11), wrap32(hi - lo), wrap32(summed)], axis=1)
    hashed = _mix64(x.view(np.uint64) * np.uint64(0x9E3779B97F4A7C15))
    return [a, np.zeros(3 * N, np.int32), np.zeros(N, np.uint64)], {1: out, 2: hashed}


@case("address_spaces.cl", N, 64)
def generic_pointers(rng, wave):
    g = ints(rng, 4 * N, -1000, 1000)
    i = np.arange(N)
    out = np.stack([g.reshape(N, 4).sum(axis=1), 50 * i + 13, 5 * i - 5, np.ones(N)], axis=1)
    bumped = (g.reshape(N, 4) + np.arange(1, 5)).ravel()
    return [g, np.zeros(4 * N, np.int32)], {0: bumped.astype(np.int32), 1: out.astype(np.int32)}


# --- __local memory and barriers (work-groups of 128) ---

@case("local_memory.cl", 1024, 128)
def wg_reduce(rng, wave):
    data = ints(rng, 1024, -1000, 1000)
    return [data, np.zeros(8, np.int32)], {1: data.reshape(8, 128).sum(axis=1).astype(np.int32)}


@case("local_memory.cl", 512, 128)
def wg_prefix_scan(rng, wave):
    data = ints(rng, 512, -1000, 1000)
    want = np.cumsum(data.reshape(4, 128), axis=1).astype(np.int32).ravel()
    return [data, np.zeros(512, np.int32)], {1: want}


@case("local_memory.cl", (40, 24), (8, 8))
def tiled_matmul(rng, wave):
    n, k, m = 24, 32, 40
    # Small integers: every product and partial sum is exact, fused or not.
    A = rng.integers(-8, 9, (n, k)).astype(np.float32)
    B = rng.integers(-8, 9, (k, m)).astype(np.float32)
    return ([A, B, np.zeros((n, m), np.float32), np.int32(n), np.int32(k), np.int32(m)],
            {2: A @ B})


@case("local_memory.cl", 512, 128)
def local_arg_reverse(rng, wave):
    data = ints(rng, 512, -10000, 10000)
    want = data.reshape(4, 128)[:, ::-1] * 2 + np.arange(128)
    return [data, np.zeros(512, np.int32), Local(128 * 4)], {1: want.astype(np.int32).ravel()}


@case("local_memory.cl", 2500, 1024, code_objects=(4, 5))
def big_partial_reduce(rng, wave):
    data = ints(rng, 2500, -1000, 1000)
    sums = [data[k:k + 1024].sum() for k in range(0, 2500, 1024)]
    want = np.stack([sums, [1024, 1024, 2500 - 2048]], axis=1).astype(np.int32)
    return [data, np.zeros(6, np.int32)], {1: want}


@case("local_memory.cl", (48, 32), (16, 16))
def local_double_transpose(rng, wave):
    matrix = floats(rng, 32 * 48, -3, 3, np.float64).reshape(32, 48)
    return ([matrix, np.zeros((48, 32)), np.int32(48)], {1: matrix.T * 2.0})


@case("local_memory.cl", 512, 128)
def local_bytes(rng, wave):
    data = ints(rng, 512)
    other = np.roll(data.reshape(4, 128), -1, axis=1).ravel().astype(np.int64)
    char = other.astype(np.int8).astype(np.int64)
    short = (other >> 4).astype(np.int16).astype(np.int64)
    want = char * 65536 + ((other >> 8) & 0xFF) * 16 + short
    return [data, np.zeros(512, np.int32)], {1: want.astype(np.int32)}


# --- atomics ---

@case("atomics.cl", 1024, 64)
def histogram_inc(rng, wave):
    data = ints(rng, 1024, 0, 2**32 - 1, np.uint32)
    return ([data, np.zeros(64, np.uint32)],
            {1: np.bincount(data & 63, minlength=64).astype(np.uint32)})


def _slots_check(n):
    def check(counter, slots, taken):
        assert counter[0] == n, f"counter ended at {counter[0]}, want {n}"
        assert np.array_equal(np.sort(taken), np.arange(n)), "atomic_add returned repeated slots"
        assert np.array_equal(slots[taken], np.arange(n)), "slots do not point back at their taker"
    return check


@case("atomics.cl", 512, 64)
def counter_slots(rng, wave):
    return ([np.zeros(1, np.uint32), np.full(512, 0xFFFFFFFF, np.uint32), np.zeros(512, np.uint32)],
            {(0, 1, 2): _slots_check(512)})


@case("atomics.cl", 512, 64)
def atomic_minmax_bits(rng, wave):
    a = ints(rng, 512)
    x = a.astype(np.int64)
    start = np.array([INT_MAX, INT_MIN, 0, -1, 0x1234, -1], np.int32)
    bits = np.uint32(0)
    for b in np.unique(x & 31):
        bits |= np.uint32(1) << np.uint32(b)
    cleared = np.uint32(0xFFFFFFFF)
    for b in np.unique((x >> 5) & 31):
        cleared &= ~(np.uint32(1) << np.uint32(b))
    xor = np.bitwise_xor.reduce(a) ^ np.int32(0x1234)
    fixed = np.array([x.min(), x.max(), wrap32(bits), wrap32(cleared), xor], np.int32)

    def check(res, olds):
        assert np.array_equal(res[:5], fixed), f"min/max/or/and/xor gave {res[:5]}, want {fixed}"
        # atomic_xchg: the values seen plus the final one are the start value and every id.
        chain = np.sort(np.append(olds, res[5]))
        assert np.array_equal(chain, np.arange(-1, 512)), "xchg results are not one serial order"
    return [a, start, np.zeros(512, np.int32)], {(1, 2): check}


@case("atomics.cl", N, 64)
def cmpxchg_add(rng, wave):
    a = ints(rng, N, -1000, 1000)
    want = a.astype(np.int64).reshape(-1, 16).sum(axis=0).astype(np.int32)
    return [a, np.zeros(16, np.int32)], {1: want}


@case("atomics.cl", 512, 64)
def atomic64(rng, wave):
    a = ints(rng, 512, -2**50, 2**50, np.int64)
    return ([a, np.zeros(1, np.int64), np.full(1, -2**63, np.int64)],
            {1: np.array([a.sum()]), 2: np.array([a.max()])})


@case("atomics.cl", 512, 128)
def local_atomics(rng, wave):
    data = ints(rng, 512, 0, 2**32 - 1, np.uint32)

    def check(slot_of):
        for group in slot_of.reshape(4, 128):
            assert np.array_equal(np.sort(group), np.arange(128)), \
                "local atomic_add repeated a slot"
    return ([data, np.zeros(16, np.uint32), np.full(512, 0xFFFF, np.uint32)],
            {1: np.bincount(data & 15, minlength=16).astype(np.uint32), (2,): check})


@case("atomics.cl", 512, 128)
def atomics_more(rng, wave):
    a = ints(rng, 512, 0, 2**32 - 1, np.uint32)
    x = a.astype(np.int64)
    start = np.array([10**9, 5000, 0xFFFFFFFF, 0], np.uint32)
    g = np.array([10**9 - (x & 0xFF).sum(), 5000 - 512, x.min(), x.max()], np.uint32)
    groups = x.reshape(4, 128)

    def check(local_out):
        got = local_out.reshape(4, 6).astype(np.int64)
        for k, v in enumerate(groups):
            fixed = [v.min(), v.max(), 10**6 - (v & 0xFF).sum(), np.bitwise_or.reduce(v & 0xF0F0),
                     np.bitwise_xor.reduce(v)]
            assert list(got[k, [0, 1, 2, 4, 5]]) == fixed, f"group {k}: local atomics gave {got[k]}"
            assert got[k, 3] in v, \
                f"group {k}: local atomic_xchg left {got[k, 3]}, not a stored value"
    return [a, start, np.zeros(24, np.uint32)], {1: g, (2,): check}


# --- sub-groups and cross-lane operations (sub-group = wave) ---

def _by_wave(values, wave):
    return values.reshape(-1, wave)


@case("subgroups.cl", N, 128, code_objects=(4, 5))
def subgroup_basics(rng, wave):
    # Lanes 0-63 have no x > 900 and none <= -990; lane 104 alone is > 900, lane 131 alone
    # is <= -990; lanes 192-255 are random: any/all come out both ways at both wave sizes.
    a = ints(rng, N, -980, 880)
    a[104], a[131] = 950, -1000
    a[192:] = ints(rng, 64, -1000, 1000)
    w = _by_wave(a, wave)
    lane = np.arange(N) % wave
    any_all = np.any(w > 900, axis=1).astype(np.int64) + 2 * np.all(w > -990, axis=1)
    want = np.stack([np.repeat(w[:, 3], wave), wave * 1000 + lane,
                     (np.arange(N) % 128) // wave * 1000 + 128 // wave,
                     np.repeat(any_all, wave)], axis=1)
    return [a, np.zeros(4 * N, np.int32)], {1: want.astype(np.int32)}


@case("subgroup_scans.cl", N, 128, opts=("-O2",))
def subgroup_collectives(rng, wave):
    a = ints(rng, N, -1000, 1000)
    w = _by_wave(a.astype(np.int64), wave)
    exclusive_max = np.concatenate([np.full((w.shape[0], 1), INT_MIN),
                                    np.maximum.accumulate(w, axis=1)[:, :-1]], axis=1)
    want = np.stack([np.repeat(w.sum(axis=1), wave), np.cumsum(w, axis=1).ravel(),
                     exclusive_max.ravel(), np.repeat(w.min(axis=1), wave)], axis=1)
    return [a, np.zeros(4 * N, np.int32)], {1: want.astype(np.int32)}


@case("lookback.cl", 4096, 64, opts=("-O2",))   # sub-group scans: -O2 only, as above
def lookback_scan(rng, wave):
    # A wave a tile: 128 or 64 tiles, each publishing (aggregate, PARTIAL) then (inclusive
    # prefix, COMPLETE) in one 16-byte word its successors poll. How often a tile polls
    # depends on the order tiles run in, so the values are checked, not the instruction counts.
    x = ints(rng, 4096, -1000, 1000)
    prefix = np.cumsum(x.astype(np.int64)).astype(np.int32)
    ends = prefix[wave - 1::wave]
    words = np.stack([_u32(ends), _u32(ends >> 31), np.full(ends.size, 2, np.uint32),
                      ~_u32(ends)], axis=1).ravel()

    def check(out, state, torn):
        np.testing.assert_array_equal(out, prefix)
        np.testing.assert_array_equal(state, words)
        assert torn[0] == 0, f"{torn[0]} words read not whole"
    return ([x, np.zeros(4096, np.int32), np.zeros(4 * (4096 // wave), np.uint32),
             np.zeros(1, np.uint32)], {(1, 2, 3): check})


@case("subgroup_scans.cl", 512, 128, opts=("-O2",))
def workgroup_collectives(rng, wave):
    # Group 0 has no x > 990 and none <= -995, group 1 one x > 990, group 2 one x <= -995.
    a = ints(rng, 512, -990, 980)
    a[128 + 77], a[256 + 3] = 999, -1000
    a[384:] = ints(rng, 128, -1000, 1000)
    g = a.astype(np.int64).reshape(4, 128)
    exclusive_min = np.concatenate([np.full((4, 1), INT_MAX),
                                    np.minimum.accumulate(g, axis=1)[:, :-1]], axis=1)
    any_all = np.any(g > 990, axis=1).astype(np.int64) + 2 * np.all(g > -995, axis=1)
    want = np.stack([np.repeat(g.sum(axis=1), 128), np.cumsum(g, axis=1).ravel(),
                     exclusive_min.ravel(), np.repeat(g[:, 5], 128), np.repeat(any_all, 128)],
                    axis=1)
    return [a, np.zeros(5 * 512, np.int32)], {1: want.astype(np.int32)}


@case("subgroups.cl", N, 128)
def cross_lane_builtins(rng, wave):
    a = ints(rng, N, -1000, 1000)
    w = _by_wave(a, wave)
    lane = np.arange(wave)
    first = np.where(lane % 3 != 0, w[:, 1:2], -1)
    want = np.stack([w[:, (lane + 1) % wave].ravel(), first.ravel(), np.repeat(w[:, 5], wave),
                     w[:, (lane & ~3) + 3 - (lane & 3)].ravel(), w[:, lane ^ 1].ravel(),
                     np.repeat((w > 0).sum(axis=1), wave)], axis=1)
    return [a, np.zeros(6 * N, np.int32)], {1: want.astype(np.int32)}


@case("subgroups.cl", N, 128)
def upper_lanes(rng, wave):
    a = ints(rng, N, -1000, 1000)
    a[[30, 100, 200]] = 999
    w = _by_wave(a, wave)
    first = wave * 5 // 8
    active = np.arange(wave) >= first
    upper = w[:, first:]
    r0 = np.where(active, w[:, first:first + 1], -1)
    r1 = np.where(active, (upper > 0).sum(axis=1)[:, None], -1)
    r2 = np.where(active, 1 + 10 * np.any(upper > 995, axis=1)[:, None], -1)
    want = np.stack([r0.ravel(), r1.ravel(), r2.ravel()], axis=1).astype(np.int32)
    count = np.array([N // wave * (wave - first)], np.int32)
    return [a, np.zeros(3 * N, np.int32), np.zeros(1, np.int32)], {1: want, 2: count}


def _lane_select(lo, hi, r):
    """v_permlane*16: lane r (0..15 in its row) takes nibble r of the 64-bit {hi, lo}."""
    nibbles = np.array([(hi << 32 | lo) >> (4 * k) & 0xF for k in range(16)])
    return nibbles[r]


@case("subgroups.cl", N, 128, targets=("gfx1030", "gfx1100"))   # v_permlane16: gfx10+
def dpp_permlane(rng, wave):
    a = ints(rng, N, -1000, 1000)
    i = np.arange(N)
    r, row = i % 16, i - i % 16
    lane, base = i % wave, i - i % wave
    want = np.stack([np.where(r == 0, -1, a[i - 1]),                 # row_shr:1, old kept
                     np.where(r == 15, 0, a[np.minimum(i + 1, N - 1)]),  # row_shl:1, bound_ctrl
                     a[row + (r - 4) % 16],                          # row_ror:4
                     a[row + 15 - r],                                # row_mirror
                     a[row + _lane_select(0x01234567, 0x89ABCDEF, r)],
                     a[(i & ~31) + ((i & 16) ^ 16) + _lane_select(0xFEDCBA98, 0x76543210, r)],
                     a[base + (lane - 3) % wave],                    # ds_permute to lane + 3
                     a[(i & ~3) + 3 - (i & 3)]],                     # swizzle quad [3,2,1,0]
                    axis=1)
    return [a, np.zeros(8 * N, np.int32)], {1: want.astype(np.int32)}


@case("subgroups.cl", N, 128)
def dpp_masks(rng, wave):
    a = ints(rng, N, -1000, 1000)
    i = np.arange(N)
    r, row_base = i % 16, i - i % 16
    row, bank = i % wave // 16, i % 16 // 4

    def masked(old, value, row_mask, bank_mask):
        enabled = ((row_mask >> row) & 1) & ((bank_mask >> bank) & 1)
        return np.where(enabled == 1, value, old)

    want = np.stack([
        masked(-1, np.where(r == 0, -1, a[i - 1]), 0x5, 0xF),
        masked(-2, a[(i & ~3) + 3 - (i & 3)], 0xF, 0x6),
        masked(-3, np.where(r == 15, 0, a[np.minimum(i + 1, N - 1)]), 0xA, 0x9),
        masked(-4, a[row_base + (r - 4) % 16], 0x3, 0x1),
        masked(-5, a[row_base + 15 - r], 0xE, 0xC)], axis=1)
    return [a, np.zeros(5 * N, np.int32)], {1: want.astype(np.int32)}


# --- ND ranges with partial work-groups ---

def _ids(grid, group):
    """Per work-item (x fastest) global id, local id, group id, actual local size per dimension."""
    axes = np.meshgrid(*[np.arange(g) for g in reversed(grid)], indexing="ij")
    gid = [axis.ravel() for axis in reversed(axes)]
    grp = [g // w for g, w in zip(gid, group)]
    size = [np.minimum(w, total - r * w) for r, w, total in zip(grp, group, grid)]
    return gid, [g % w for g, w in zip(gid, group)], grp, size


@case("ndrange.cl", 1000, 64, code_objects=(4, 5))
def ndrange_1d(rng, wave):
    (g,), (lid,), (grp,), (size,) = _ids((1000,), (64,))
    want = np.stack([g, lid, grp, size, np.full(1000, 64), np.full(1000, 16), np.full(1000, 1000),
                     g, np.ones(1000)], axis=1).astype(np.uint32)
    return [np.full(9 * 1000, 0xDEAD, np.uint32)], {0: want}


@case("ndrange.cl", 1000, 64, code_objects=(4, 5), kernel="ndrange_1d", global_offset=(100,))
def ndrange_1d_offset(rng, wave):
    args, expected = ndrange_1d(rng, wave)
    expected[0][:, 0] += 100        # get_global_id includes the offset, the linear id does not
    return args, expected


@case("ndrange.cl", (37, 23), (8, 4), code_objects=(4, 5))
def ndrange_2d(rng, wave):
    grid, group = (37, 23), (8, 4)
    gid, lid, grp, size = _ids(grid, group)
    count = gid[0].size
    cols = []
    for d in range(2):
        cols += [lid[d], grp[d], size[d], np.full(count, group[d]),
                 np.full(count, -(-grid[d] // group[d])), np.full(count, grid[d])]
    # ROCm's get_local_linear_id multiplies by the enqueued sizes (the packet's), also in
    # partial groups where the spec's formula would use the actual local size.
    cols[5] = cols[5] + 1000 * (lid[1] * group[0] + lid[0])
    return [np.full(12 * count, 0xDEAD, np.uint32)], {0: np.stack(cols, axis=1).astype(np.uint32)}


@case("ndrange.cl", (9, 7, 5), (4, 4, 2), code_objects=(4, 5))
def ndrange_3d(rng, wave):
    grid, group = (9, 7, 5), (4, 4, 2)
    gid, lid, grp, size = _ids(grid, group)
    count = gid[0].size
    cols = []
    for d in range(3):
        cols += [lid[d] + 100 * grp[d], size[d] + 100 * group[d],
                 np.full(count, -(-grid[d] // group[d]) + 100 * grid[d])]
    cols.append((lid[2] * group[1] + lid[1]) * group[0] + lid[0] + 3000)   # see ndrange_2d
    return [np.full(10 * count, 0xDEAD, np.uint32)], {0: np.stack(cols, axis=1).astype(np.uint32)}


# --- program-scope data ---

@case("globals.cl", N, 64)
def crc32_table(rng, wave):
    data = ints(rng, 16 * N, 0, 255, np.uint8)
    want = np.array([zlib.crc32(data[16 * i:16 * i + 16].tobytes()) for i in range(N)], np.uint32)
    return [data, np.zeros(N, np.uint32)], {1: want}


def _consecutive(visit):
    assert np.array_equal(np.sort(visit) - visit.min(), np.arange(visit.size)), \
        "atomic_inc on a program-scope global repeated or skipped values"


@case("globals.cl", N, 64)
def program_globals(rng, wave):
    a = ints(rng, N, -1000, 1000)
    lut = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3])
    return ([a, np.zeros(N, np.int32), np.zeros(N, np.uint32)],
            {1: (lut[a & 15] * 4 + a).astype(np.int32), (2,): _consecutive})


# --- HIP (wave32 only: HIP 5.2's headers reject wave64 on gfx10) ---

@case("hip_kernels.hip", 1024, 256, waves=(32,))
def hip_saxpy(rng, wave):
    x, y = floats(rng, 1024), floats(rng, 1024)
    a = np.float32(1.75)
    want = y.copy()
    want[:1000] = fma32(np.full(1000, a), x[:1000], y[:1000])
    return [a, x, y, np.int32(1000)], {2: want}


@case("hip_kernels.hip", 1024, 256, waves=(32,), code_objects=(4, 5))
def hip_block_sum(rng, wave):
    data = ints(rng, 1024, -1000, 1000)
    return [data, np.zeros(4, np.int32)], {1: data.reshape(4, 256).sum(axis=1).astype(np.int32)}


@case("hip_kernels.hip", 1024, 128, waves=(32,))
def hip_histogram(rng, wave):
    data = ints(rng, 1024, 0, 2**32 - 1, np.uint32)
    want = np.bincount(data % 32, minlength=32).astype(np.uint32)
    return [data, np.zeros(32, np.uint32)], {1: want}



def _scale_case(rng, dtype):
    data = floats(rng, 1024, -2, 2, dtype)
    factor = dtype(-1.25)
    fma = fma32 if dtype == np.float32 else fma64
    want = data.copy()
    want[:1000] = fma(data[:1000], np.full(1000, factor), (np.arange(1000) % 128).astype(dtype))
    return [data, factor, np.int32(1000)], {0: want}


@case("hip_kernels.hip", 1024, 128, waves=(32,), kernel="_Z5scaleIfEvPT_S0_i")
def hip_template_float(rng, wave):
    return _scale_case(rng, np.float32)


@case("hip_kernels.hip", 1024, 128, waves=(32,), kernel="_Z5scaleIdEvPT_S0_i")
def hip_template_double(rng, wave):
    return _scale_case(rng, np.float64)


@case("hip_kernels.hip", 1024, 256, waves=(32,), group_segment=256 * 4)
def hip_dynamic_shared(rng, wave):
    data = ints(rng, 1024, -10000, 10000)
    want = data.reshape(4, 256)[:, ::-1] - np.arange(256)
    return [data, np.zeros(1024, np.int32)], {1: want.astype(np.int32).ravel()}


def _clocks_check(expected_values):
    def check(out):
        rows = out.reshape(-1, 3)
        # s_memtime counts core clocks: two reads around a loop differ; s_memrealtime ticks
        # at a fixed slower rate, so two close reads may be equal. gfx11's clock64() is the
        # 20-bit SHADER_CYCLES register, which wraps (every millisecond of the native tier's
        # nanosecond count): a difference across the wrap is negative by less than 2^20.
        cycles = rows[:, 0]
        assert np.all(np.where(cycles < 0, cycles + (1 << 20), cycles) > 0), "clock64() did not advance"
        assert np.all(rows[:, 1] >= 0), "wall_clock64() ran backwards"
        assert np.array_equal(rows[:, 2], expected_values), "the timed work computed wrong values"
    return check


@case("hip_kernels.hip", 256, 64, waves=(32,))
def hip_clocks(rng, wave):
    data = ints(rng, 256, -1000, 1000)
    v = data.astype(np.int64)
    for k in range(15):
        v = np.where(k < (data & 15), wrap32(v * 3 + k), v)
    return [data, np.full(3 * 256, -1, np.int64)], {(1,): _clocks_check(v)}

# The wave sizes each target runs the suite in. gfx1030 runs every case in the sizes it
# lists (wave32 and wave64; HIP wave32 only: HIP 5.2's headers reject wave64 on RDNA);
# gfx90a has wave64 alone; gfx1100 runs wave32, its default, so the suite's CI time grows by
# about one gfx1030 pass per target, not two (its wave64 builds are decoded, not run:
# tests/isa/test_decoder_kernels.py).
TARGET_WAVES = {"gfx90a": (64,), "gfx1100": (32,)}


# --- matrix instructions: gfx90a's MFMA and gfx11's WMMA against numpy matmuls, each tile
# set a workgroup of one wave (tests/kernels/matrix_*.hip name the register layouts) ---

TILES = 3
MATRIX = Ulps(2)        # products are exact; hardware may round partial sums once more


def _tiles(rng, rows, cols, dtype, lo=-4, hi=4):
    """TILES random rows x cols matrices of small integers and halves (sums stay exact)."""
    return (rng.integers(2 * lo, 2 * hi, (TILES, rows, cols)) / 2).astype(dtype)


def _matmul(a, b, c):
    return np.matmul(a.astype(np.float64), b.astype(np.float64)) + c.astype(np.float64)


def _mfma_case(rng, m, n, k, in_type, out_type):
    a, b = _tiles(rng, m, k, in_type), _tiles(rng, k, n, in_type)
    c = _tiles(rng, m, n, out_type, -50, 50)
    return [a.ravel(), b.ravel(), c.ravel(), np.zeros(c.size, out_type)], \
        {3: _matmul(a, b, c).astype(out_type).ravel()}


@case("matrix_gfx90a.hip", 64 * TILES, 64, targets=("gfx90a",), tolerance={3: MATRIX})
def mfma_f32_32x32x8f16(rng, wave):
    return _mfma_case(rng, 32, 32, 8, np.float16, np.float32)


@case("matrix_gfx90a.hip", 64 * TILES, 64, targets=("gfx90a",), tolerance={3: MATRIX})
def mfma_f32_16x16x4f32(rng, wave):
    return _mfma_case(rng, 16, 16, 4, np.float32, np.float32)


@case("matrix_gfx90a.hip", 64 * TILES, 64, targets=("gfx90a",), tolerance={3: MATRIX})
def mfma_f64_16x16x4f64(rng, wave):
    return _mfma_case(rng, 16, 16, 4, np.float64, np.float64)


def _int8_mfma_case(rng, k):
    """16x16 int32 C plus A (16 x k) times B (k x 16), int8."""
    a = rng.integers(-128, 128, (TILES, 16, k)).astype(np.int8)
    b = rng.integers(-128, 128, (TILES, k, 16)).astype(np.int8)
    c = rng.integers(-2**20, 2**20, (TILES, 16, 16)).astype(np.int32)
    d = np.matmul(a.astype(np.int64), b.astype(np.int64)) + c
    return [a.ravel(), b.ravel(), c.ravel(), np.zeros(c.size, np.int32)], {3: d.astype(np.int32).ravel()}


@case("matrix_gfx90a.hip", 64 * TILES, 64, targets=("gfx90a",))
def mfma_i32_16x16x16i8(rng, wave):
    return _int8_mfma_case(rng, 16)


# gfx942's int8 MFMA (built by clang-21 in the ROCm 6.4 root: tests/isa/test_cdna_clang21.py).
@case("matrix_gfx90a.hip", 64 * TILES, 64, targets=("gfx942",))
def mfma_i32_16x16x32i8(rng, wave):
    return _int8_mfma_case(rng, 32)


# gfx940+'s LDS DMA (tests/kernels/lds_dma.cl, built by clang-21: tests/isa/test_cdna_clang21.py).
DMA_GROUPS = 3


def _neighbours(n):
    """Each lane's neighbour (lane ^ 1) in the same wave of 64, as a global index."""
    gid = np.arange(n)
    return (gid & ~63) | ((gid & 63) ^ 1)


@case("lds_dma.cl", 256 * DMA_GROUPS, 256, targets=("gfx942",), waves=(64,))
def lds_dma_dword(rng, wave):
    n = 256 * DMA_GROUPS
    src = ints(rng, n + 4, 0, 2**32 - 1, np.uint32)
    out = np.zeros((n, 2), np.uint32)
    out[:, 0], out[:, 1] = src[_neighbours(n)], src[_neighbours(n) + 4]
    return [src, np.zeros(2 * n, np.uint32)], {1: out.ravel()}


@case("lds_dma.cl", 256 * DMA_GROUPS, 256, targets=("gfx950",), waves=(64,))
def lds_dma_wide(rng, wave):
    n = 256 * DMA_GROUPS
    src = ints(rng, 4 * n, 0, 2**32 - 1, np.uint32).reshape(n, 4)
    out = np.zeros((n, 7), np.uint32)
    out[:, :4], out[:, 4:] = src[_neighbours(n)], src[_neighbours(n), :3]
    return [src.ravel(), np.zeros(7 * n, np.uint32)], {1: out.ravel()}


# gfx940+'s 8-bit float products (tests/kernels/matrix_fp8.hip, built by clang-21): the same
# kernels on gfx942, whose fp8/bf8 are the FNUZ formats (biases 8 and 16), and on gfx950, whose
# are OCP's (biases 7 and 15), so each has its own cases: same values, other bytes.
FP8_FORMATS = {("fnuz", "fp8"): (3, 8), ("fnuz", "bf8"): (2, 16),
               ("ocp", "fp8"): (3, 7), ("ocp", "bf8"): (2, 15)}


def _fp8_bytes(values, mantissa_bits, bias):
    """The bytes of exactly representable values: sign, exponent + bias, fraction; the
    exponent field 0 for subnormals (0.f x 2^(1 - bias)); zero is 0x00."""
    out = np.zeros(values.shape, np.uint8)
    for index, v in np.ndenumerate(values):
        if v == 0:
            continue
        fraction, exponent = np.frexp(abs(v))             # |v| = fraction * 2^exponent
        field = int(exponent) - 1 + bias
        if field >= 1:
            code = field << mantissa_bits | int((2 * fraction - 1) * (1 << mantissa_bits))
        else:
            code = int(abs(v) / 2.0 ** (1 - bias) * (1 << mantissa_bits))
        out[index] = code | (0x80 if v < 0 else 0)
    return out


def _fp8_case(rng, m, n, k, flavour, a_kind, b_kind):
    """Small integers and halves, and a format's smallest subnormal in A's first column:
    every product and sum is exact in double, so D is rounded once, as the engine does."""
    a, b = _tiles(rng, m, k, np.float64), _tiles(rng, k, n, np.float64)
    a_bits, a_bias = FP8_FORMATS[flavour, a_kind]
    a[:, :, 0] = np.where(rng.integers(0, 2, (TILES, m)), 2.0 ** (1 - a_bias - a_bits), a[:, :, 0])
    c = _tiles(rng, m, n, np.float32, -50, 50)
    return [_fp8_bytes(a, *FP8_FORMATS[flavour, a_kind]).ravel(),
            _fp8_bytes(b, *FP8_FORMATS[flavour, b_kind]).ravel(), c.ravel(),
            np.zeros(c.size, np.float32)], {3: _matmul(a, b, c).astype(np.float32).ravel()}


def _fp8_cases():
    for flavour, target in (("fnuz", "gfx942"), ("ocp", "gfx950")):
        for m, n, k, kinds in ((16, 16, 32, ("fp8_fp8", "fp8_bf8", "bf8_fp8", "bf8_bf8")),
                               (32, 32, 16, ("fp8_fp8",))):
            for kinds_name in kinds:
                kernel = f"mfma_f32_{m}x{n}x{k}_{kinds_name}"
                build = (lambda rng, wave, m=m, n=n, k=k, f=flavour, ab=kinds_name.split("_"):
                         _fp8_case(rng, m, n, k, f, *ab))
                build.__name__ = f"{kernel}_{flavour}"
                case("matrix_fp8.hip", 64 * TILES, 64, targets=(target,), waves=(64,),
                     kernel=kernel)(build)


_fp8_cases()


@case("matrix_fp8.hip", 64 * TILES, 64, targets=("gfx950",), waves=(64,))
def mfma_f32_16x16x32_f16(rng, wave):
    return _mfma_case(rng, 16, 16, 32, np.float16, np.float32)


@case("matrix_fp8.hip", 64 * TILES, 64, targets=("gfx950",), waves=(64,))
def mfma_i32_16x16x64_i8(rng, wave):
    return _int8_mfma_case(rng, 64)


@case("matrix_gfx90a.hip", 64 * TILES, 64, targets=("gfx90a",), tolerance={3: MATRIX})
def mfma_f32_4x4x1f32_broadcasts(rng, wave):
    # Sixteen blocks of 4x1 by 1x4; CBSZ 4 / ABID 3: every block takes A's block 3; BLGP 1:
    # blocks 8-15 take B's blocks 0-7.
    a, b = (_tiles(rng, 16, 4, np.float32) for _ in range(2))          # [tile, block, i or j]
    c = _tiles(rng, 16, 16, np.float32, -50, 50)                       # [tile, block, i * 4 + j]
    blocks = np.arange(16)
    d = a[:, None, 3, :, None] * b[:, blocks % 8, None, :] + c.reshape(TILES, 16, 4, 4)
    return [a.ravel(), b.ravel(), c.ravel(), np.zeros(c.size, np.float32)], {3: d.astype(np.float32).ravel()}


def _wmma_case(rng, in_type, out_type, bits=None):
    a, b = _tiles(rng, 16, 16, in_type), _tiles(rng, 16, 16, in_type)
    c = _tiles(rng, 16, 16, out_type, -50, 50)
    d = _matmul(a, b, c).astype(out_type)
    if bits:                            # bf16 travels as its 16-bit patterns
        a, b = (_bf16_bits(x) for x in (a, b))
    return [a.ravel(), b.ravel(), c.ravel(), np.zeros(c.size, out_type)], {3: d.ravel()}


def _bf16_bits(values):
    """float32 values that bf16 holds exactly -> their bf16 bit patterns as int16."""
    return (values.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16).view(np.int16)


@case("matrix_gfx1100.hip", 32 * TILES, 32, targets=("gfx1100",), tolerance={3: MATRIX})
def wmma_f32_16x16x16_f16(rng, wave):
    return _wmma_case(rng, np.float16, np.float32)


@case("matrix_gfx1100.hip", 32 * TILES, 32, targets=("gfx1100",), tolerance={3: MATRIX})
def wmma_f32_16x16x16_bf16(rng, wave):
    return _wmma_case(rng, np.float32, np.float32, bits=True)


@case("matrix_gfx1100.hip", 32 * TILES, 32, targets=("gfx1100",), tolerance={3: Ulps(1)})
def wmma_f16_16x16x16_f16(rng, wave):
    return _wmma_case(rng, np.float16, np.float16)


@case("matrix_gfx1100.hip", 32 * TILES, 32, targets=("gfx1100",))
def wmma_i32_16x16x16_iu8(rng, wave):
    # A signed, B unsigned; C near the int32 limits so some sums saturate (clamp).
    a = rng.integers(-128, 128, (TILES, 16, 16)).astype(np.int8)
    b = rng.integers(0, 256, (TILES, 16, 16)).astype(np.uint8)
    c = rng.choice([-2**31 + 1000, 0, 2**31 - 1000], (TILES, 16, 16)).astype(np.int32)
    d = np.clip(np.matmul(a.astype(np.int64), b.astype(np.int64)) + c, -2**31, 2**31 - 1)
    return [a.ravel(), b.ravel(), c.ravel(), np.zeros(c.size, np.int32)], {3: d.astype(np.int32).ravel()}


def _serial_adds(start):
    """Check of the values f64 atomic adds returned: per slot (lane % 4), some order of its
    lanes in which each lane saw the sum of the lanes before it (x > 0, so sums grow)."""
    def check(x, returned):
        for slot, first in enumerate(start):
            lanes = np.flatnonzero(np.arange(x.size) % len(start) == slot)
            order = lanes[np.argsort(returned[lanes], kind="stable")]
            seen = first + np.concatenate([[0.0], np.cumsum(x[order])[:-1]])
            assert np.array_equal(returned[order], seen), \
                f"slot {slot}: returned values are no serial order of the adds"
    return check


@case("fp_atomics_gfx90a.hip", N, 64, targets=("gfx90a",))
def fp_atomics(rng, wave):
    # Quarter-integers: every sum is exact whatever order the lanes add in.
    x = rng.integers(1, 4000, N) / 4.0
    slots = np.arange(N) % 4
    start = np.array([0.5, -100.0, 1e6, 3.25])
    sums = start + np.bincount(slots, x, minlength=4)
    mins = np.minimum(np.full(4, 2000.0), [x[slots == s].min() for s in range(4)])
    maxs = np.maximum(np.full(4, -1.0), [x[slots == s].max() for s in range(4)])
    fsums = (np.float32(7) + np.bincount(slots, x, minlength=4)).astype(np.float32)
    halves = np.zeros((4, 2), np.float16)
    halves[:, 0] = np.bincount(slots, np.arange(N) % 8, minlength=4)
    halves[:, 1] = np.bincount(slots, minlength=4)
    return ([x, start.copy(), np.full(4, 2000.0), np.full(4, -1.0), np.full(4, 7, np.float32),
             np.zeros(8, np.float16), np.full(N, -9.0)],
            {1: sums, 2: mins, 3: maxs, 4: fsums, 5: halves.ravel(), (0, 6): _serial_adds(start)})


def variants(case, target="gfx1030"):
    """Every build of a case that runs on `target`: (opt, wave, code object version)."""
    if target not in case.targets:
        return []
    waves = TARGET_WAVES.get(target, case.waves)
    return [(opt, wave, version) for opt in case.opts for wave in waves
            for version in case.code_objects]


def code_objects(target="gfx1030"):
    """Every distinct code object the suite builds for `target`, as {path: "source opt wN
    vV flags"}: what the decoder must agree with llvm-objdump on."""
    built = {}
    for case in CASES:
        for opt, wave, version in variants(case, target):
            label = " ".join([case.source, opt, f"w{wave}", f"v{version}", *case.extra])
            built.setdefault(case.compile(opt, wave, version, target), label)
    return built

# --- the same kernels with flat scratch: private memory through scratch_* instructions and
# the FLAT_SCRATCH register pair instead of MUBUF and the private segment buffer ---

FLAT_SCRATCH = ("-Xclang", "-target-feature", "-Xclang", "+enable-flat-scratch")


def _flat_scratch(name):
    base = next(c for c in CASES if c.name == name)
    CASES.append(replace(base, name=f"{name}_flat_scratch", extra=base.extra + FLAT_SCRATCH))


_flat_scratch("private_array_walk")
_flat_scratch("noinline_calls")


# The image cases register themselves with `case` (tests/kernels/image_cases.py).
from tests.kernels import image_cases  # noqa: E402,F401
