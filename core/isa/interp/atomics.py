"""Atomic read-modify-write over many lanes at once, equal to a serial order.

Holds these invariants:
- lanes apply in (wave, lane) order: where k lanes hit one address, lane j sees the value
  after the j lanes before it, and memory ends with all k applied;
- add, sub, and, or, xor, swap and 32-bit min/max (histograms, counters returning indices,
  reductions, flags) run as one segmented scan over lanes sorted by address; every other op
  (inc/dec, compare-swap, float ops, 64-bit min/max) runs as one vectorized round per rank
  within an address (a round touches each address once), so its cost grows with the
  most-hit address;
- `apply_shared` gives the same old values and memory as some serial order also while other
  threads change the memory through host atomics (the native tier's translated atomics, when
  the interpreter runs an instruction for it): each address's lanes are applied to a copy of
  its word, and the result is stored only by a compare-and-swap from the word it was computed
  from.
"""
import numpy as np

from core.isa.alu.bits import F32, is_nan
from core.isa.alu.conversion import bf16_nearest_even


def _as_float(x):
    return x.view(np.float32) if x.dtype == np.uint32 else x.view(np.float64)


def _signed(x):
    return x.view(np.int32) if x.dtype == np.uint32 else x.view(np.int64)


def _fmin(old, data):
    a, b = _as_float(old), _as_float(data)
    return np.where(np.isnan(b) | (a <= b), a, b).view(old.dtype)


def _fmax(old, data):
    a, b = _as_float(old), _as_float(data)
    return np.where(np.isnan(b) | (a >= b), a, b).view(old.dtype)


def _fadd(old, data):
    return (_as_float(old) + _as_float(data)).view(old.dtype)


def _pk_fadd16(old, data):
    """Two f16 adds, one per half (global_atomic_pk_add_f16)."""
    halves = (old.view(np.float16).reshape(-1, 2) + data.view(np.float16).reshape(-1, 2))
    return halves.astype(np.float16).reshape(-1).view(old.dtype)


def _pk_faddbf16(old, data):
    """Two bf16 adds, one per half (global/ds_pk_add_bf16): each sum in f32, then rounded to
    nearest even (correctly rounded: f32 holds the sum exactly unless the addends lie 2^16
    apart, and then its rounding cannot reach a bf16 tie); a NaN addend gives itself quieted
    (the old value's first), as the ALU's NaN rule."""
    old32, data32 = np.asarray(old, np.uint32), np.asarray(data, np.uint32)
    result = np.zeros_like(old32)
    for shift in (0, 16):
        a = (old32 >> np.uint32(shift) & np.uint32(0xFFFF)) << np.uint32(16)
        b = (data32 >> np.uint32(shift) & np.uint32(0xFFFF)) << np.uint32(16)
        with np.errstate(all="ignore"):
            total = (a.view(np.float32) + b.view(np.float32)).view(np.uint32)
        total = np.where(is_nan(b, F32), b | np.uint32(F32.quiet_bit), total)
        total = np.where(is_nan(a, F32), a | np.uint32(F32.quiet_bit), total)
        result |= bf16_nearest_even(total) << np.uint32(shift)
    return result.view(old.dtype)


def _inc(old, data):
    return np.where(old >= data, 0, old + 1).astype(old.dtype)


def _dec(old, data):
    return np.where((old == 0) | (old > data), data, old - 1).astype(old.dtype)


SCANS = ("add", "sub", "xor", "or", "and", "swap")        # any width
ORDERED = ("umax", "umin", "smax", "smin")                 # 32-bit (keyed running maximum)

# op name -> f(old, data, cmp) -> new value
OPS = {
    "add": lambda o, d, c: o + d,
    "sub": lambda o, d, c: o - d,
    "rsub": lambda o, d, c: d - o,
    "smin": lambda o, d, c: np.minimum(_signed(o), _signed(d)).view(o.dtype),
    "smax": lambda o, d, c: np.maximum(_signed(o), _signed(d)).view(o.dtype),
    "umin": lambda o, d, c: np.minimum(o, d),
    "umax": lambda o, d, c: np.maximum(o, d),
    "and": lambda o, d, c: o & d,
    "or": lambda o, d, c: o | d,
    "xor": lambda o, d, c: o ^ d,
    "inc": lambda o, d, c: _inc(o, d),
    "dec": lambda o, d, c: _dec(o, d),
    "swap": lambda o, d, c: d,
    "cmpswap": lambda o, d, c: np.where(o == c, d, o),
    "fcmpswap": lambda o, d, c: np.where(_as_float(o) == _as_float(c), d, o),
    "fmin": lambda o, d, c: _fmin(o, d),
    "fmax": lambda o, d, c: _fmax(o, d),
    "fadd": lambda o, d, c: _fadd(o, d),
    "pk_fadd16": lambda o, d, c: _pk_fadd16(o, d),
    "pk_faddbf16": lambda o, d, c: _pk_faddbf16(o, d),
    "mskor": lambda o, d, c: (o & ~d) | c,
    "csub": lambda o, d, c: np.where(o >= d, o - d, 0).astype(o.dtype),
    "cond_sub": lambda o, d, c: np.where(o >= d, o - d, o).astype(o.dtype),
    "wrap": lambda o, d, c: np.where(o >= d, o - d, o + c).astype(o.dtype),
}


def apply(memory, index, op, data, compare=None):
    """Apply `op` at memory[index[i]] with data[i] for i in order; return the old values."""
    with np.errstate(all="ignore"):          # float atomics overflow and make NaNs as IEEE says
        return _apply(memory, index, OPS[op], op, data, compare)


def apply_shared(memory, index, op, data, compare, compare_exchange):
    """As `apply`, where other threads may change memory meanwhile. compare_exchange(memory,
    words, expected, desired) swaps memory[words[i]] from expected[i] to desired[i] atomically
    where it still holds expected[i], and returns where it did (elsewhere expected[i] becomes
    the word found, from which that address's lanes are applied again)."""
    data = data.astype(memory.dtype, copy=False)
    if compare is not None:
        compare = compare.astype(memory.dtype, copy=False)
    old = np.empty(index.size, memory.dtype)
    words, word_of_lane = np.unique(index, return_inverse=True)
    found = memory[words]                   # a plain read: the compare-and-swap checks it
    pending = np.arange(words.size)
    while pending.size:
        lanes = np.flatnonzero(np.isin(word_of_lane, pending))     # still in lane order
        copy = found[pending]
        old[lanes] = apply(copy, np.searchsorted(pending, word_of_lane[lanes]), op, data[lanes],
                           None if compare is None else compare[lanes])
        expected = found[pending]
        swapped = compare_exchange(memory, words[pending], expected, copy)
        found[pending] = expected
        pending = pending[~swapped]
    return old


def _apply(memory, index, fn, op, data, compare):
    data = data.astype(memory.dtype, copy=False)
    if compare is not None:
        compare = compare.astype(memory.dtype, copy=False)
    order = np.argsort(index, kind="stable")
    where = index[order]
    d = data[order]
    c = None if compare is None else compare[order]
    first = np.ones(where.size, np.bool_)
    first[1:] = where[1:] != where[:-1]
    if where.size and (op in SCANS or (op in ORDERED and memory.dtype == np.uint32)):
        old = _scanned(memory, where, first, op, d)
    else:
        old = _rounds(memory, where, first, fn, d, c)
    result = np.empty_like(old)
    result[order] = old
    return result


def _scanned(memory, where, first, op, d):
    """Segmented scan: each address's run of values, led by the value in memory, combined
    in order; a lane's old value is the combination of everything before it."""
    k = where.size
    starts = np.flatnonzero(first)
    count = starts.size
    segment = np.cumsum(first) - 1
    position = np.arange(k) + segment + 1           # where each lane's value sits in `run`
    head = starts + np.arange(count)                # where each address's memory value sits
    run = np.empty(k + count, memory.dtype)
    run[position] = (np.zeros_like(d) - d) if op == "sub" else d
    run[head] = memory[where[first]]
    run_segment = np.repeat(np.arange(count), np.diff(np.r_[head, k + count]))
    scanned = _scan(op, run, head, run_segment)
    memory[where[first]] = scanned[np.r_[head[1:] - 1, k + count - 1]]
    return scanned[position - 1]


def _scan(op, run, head, segment):
    """Inclusive scan of `run` restarting at each head."""
    if op in ("add", "sub"):
        total = np.cumsum(run, dtype=run.dtype)
        return total - (total - run)[head][segment]
    if op == "xor":
        total = np.bitwise_xor.accumulate(run)
        return total ^ (total ^ run)[head][segment]
    if op == "swap":
        return run                                   # the last value written is the value
    if op in ("or", "and"):
        bits = run if op == "or" else ~run
        index = np.arange(run.size)
        start = head[segment]
        out = np.zeros_like(run)
        for bit in range(run.dtype.itemsize * 8):
            one = run.dtype.type(1) << run.dtype.type(bit)
            last_set = np.maximum.accumulate(np.where(bits & one, index, -1))
            out |= np.where(last_set >= start, one, run.dtype.type(0))
        return out if op == "or" else ~out
    # 32-bit min/max: ordering-preserving maps to unsigned max, keyed by segment so the
    # running maximum restarts at each address.
    flip = {"umax": 0, "umin": 0xFFFFFFFF, "smax": 0x80000000, "smin": 0x7FFFFFFF}[op]
    keyed = (segment.astype(np.uint64) << np.uint64(32)) | (run ^ np.uint32(flip)).astype(np.uint64)
    best = np.maximum.accumulate(keyed) & np.uint64(0xFFFFFFFF)
    return best.astype(np.uint32) ^ np.uint32(flip)


def _rounds(memory, where, first, fn, d, c):
    """One vectorized round per rank within an address (ops with no cheap scan)."""
    old = np.empty_like(d)
    starts = np.flatnonzero(first)
    rank = np.arange(where.size) - np.repeat(starts, np.diff(np.r_[starts, where.size]))
    for r in range(int(rank.max()) + 1 if where.size else 0):
        sel = np.flatnonzero(rank == r)
        at = where[sel]
        current = memory[at]
        memory[at] = fn(current, d[sel], None if c is None else c[sel])
        old[sel] = current
    return old
