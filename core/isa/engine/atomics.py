"""Atomic read-modify-write over many lanes at once, equal to a serial order.

Holds two invariants:
- lanes apply in (wave, lane) order: where k lanes hit one address, lane j sees the value
  after the j lanes before it, and memory ends with all k applied;
- integer add/sub (histograms, counters returning indices) run as one segmented prefix sum;
  every other op runs as one vectorized round per rank within an address (a round touches
  each address once), so cost grows with the most-hit address, never with the lane count.
"""
import numpy as np



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


def _inc(old, data):
    return np.where(old >= data, 0, old + 1).astype(old.dtype)


def _dec(old, data):
    return np.where((old == 0) | (old > data), data, old - 1).astype(old.dtype)


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
    "mskor": lambda o, d, c: (o & ~d) | c,
    "csub": lambda o, d, c: np.where(o >= d, o - d, 0).astype(o.dtype),
    "wrap": lambda o, d, c: np.where(o >= d, o - d, o + c).astype(o.dtype),
}


def apply(memory, index, op, data, compare=None):
    """Apply `op` at memory[index[i]] with data[i] for i in order; return the old values."""
    with np.errstate(all="ignore"):          # float atomics overflow and make NaNs as IEEE says
        return _apply(memory, index, OPS[op], op, data, compare)


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
    old = np.empty_like(d)
    if op in ("add", "sub") and where.size:
        step = d if op == "add" else (np.zeros_like(d) - d)
        running = np.cumsum(step, dtype=memory.dtype)
        segment = np.cumsum(first) - 1
        base = (running - step)[first]                           # prefix before each segment
        before = running - step - base[segment]                   # exclusive prefix in segment
        start = memory[where[first]]
        old = start[segment] + before
        total = running[np.r_[np.flatnonzero(first)[1:] - 1, where.size - 1]] - base
        memory[where[first]] = start + total
    else:
        starts = np.flatnonzero(first)
        rank = np.arange(where.size) - np.repeat(starts, np.diff(np.r_[starts, where.size]))
        for r in range(int(rank.max()) + 1 if where.size else 0):
            sel = np.flatnonzero(rank == r)
            at = where[sel]
            current = memory[at]
            memory[at] = fn(current, d[sel], None if c is None else c[sel])
            old[sel] = current
    result = np.empty_like(old)
    result[order] = old
    return result
