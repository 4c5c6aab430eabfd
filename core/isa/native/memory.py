"""Device memory in translated code: checked addresses, gathers, scatters, host atomics.

Holds four invariants (the interpreter's core/isa/interp/memory.py, translated):
- every active lane's access [address, address + span) is checked against the dispatch's
  valid ranges before any byte moves: first against the range the wave hit last, then one
  range holding all active lanes (sg_native_find_range), only then lane by lane
  (sg_native_check_lanes), whose first bad lane (and its first bad element) faults the whole
  instruction with the interpreter's report;
- a checked address reaches host memory at address - delta (locked host memory has an agent
  address; arena memory has delta 0);
- loads and stores move little-endian elements of 1, 2 or 4 bytes, zero-extended to i32;
  when several lanes store to one address the highest lane wins (scatter order), as in the
  interpreter; all-active unit-stride accesses are plain vector loads and stores;
- atomics are host atomics applied lane by lane in lane order (LLVM atomicrmw / cmpxchg),
  so they are atomic across threads and visible to host code while the kernel runs.
"""
import llvmlite.ir as ir

from core.isa.native.layout import ENV, RANGE_BYTES, SG_FAULT_MEMORY
from core.isa.native.translate import I1, I8, I16, I32, I64, PTR, const

ELEMENT = {1: I8, 2: I16, 4: I32, 8: I64}
REASON = "access outside every live allocation"


def _extern(k, name, ret, args):
    return k.intrinsic(name, ret, args)


def check(k, addresses, active, elements, esize):
    """Fault unless every active lane's `elements` elements of `esize` bytes from its address
    (<lanes x i64>) lie in valid memory. Returns the host addresses (<lanes x i64>)."""
    b = k.builder
    span = elements * esize
    ones = k.splat(const(I64, -1))
    zeros = k.splat(const(I64, 0))
    lo = k.call(f"llvm.vector.reduce.umin.v{k.lanes}i64", I64, [b.select(active, addresses, ones)])
    top = k.call(f"llvm.vector.reduce.umax.v{k.lanes}i64", I64, [b.select(active, addresses, zeros)])
    hi = b.add(top, const(I64, span))
    start = b.load(k.field("range_start"), typ=I64)
    end = b.load(k.field("range_end"), typ=I64)
    cached = b.load(k.field("range_delta"), typ=I64)
    inside = b.and_(b.and_(b.icmp_unsigned(">=", lo, start), b.icmp_unsigned("<=", hi, end)),
                    b.icmp_unsigned(">=", hi, top))
    fast = b.or_(inside, b.not_(k.any_lane(active)))
    cached_lanes = k.splat(cached)
    entry = b.block
    done = k.new_block("checked")
    slow = k.new_block("find_range")
    b.cbranch(fast, done, slow)

    b.position_at_end(slow)
    find = _extern(k, "sg_native_find_range", I64, [PTR, I64, I64])
    index = b.call(find, [k.env, lo, hi])
    hit = k.new_block("range_hit")
    lanes = k.new_block("lane_check")
    b.cbranch(b.icmp_signed(">=", index, const(I64, 0)), hit, lanes)

    b.position_at_end(hit)
    table = b.load(k.env_field("ranges"), typ=PTR)
    record = b.gep(table, [b.mul(index, const(I64, RANGE_BYTES))], source_etype=I8)
    fields = [b.load(b.gep(record, [const(I64, 8 * i)], source_etype=I8), typ=I64) for i in range(3)]
    for name, value in zip(("range_start", "range_end", "range_delta"), fields):
        b.store(value, k.field(name))
    hit_lanes = k.splat(fields[2])
    hit = b.block
    b.branch(done)

    b.position_at_end(lanes)
    buffer, deltas, bad = k.scratch_buffers()
    b.store(addresses, buffer)
    bits = b.bitcast(active, k.MASK)
    if k.lanes == 32:
        bits = b.zext(bits, I64)
    check_lanes = _extern(k, "sg_native_check_lanes", I32, [PTR, PTR, I64, I32, I32, I32, PTR, PTR])
    lane = b.call(check_lanes, [k.env, buffer, bits, const(I32, k.lanes), const(I32, elements),
                                const(I32, esize), deltas, bad])
    k.fault(SG_FAULT_MEMORY, lane=lane, address=b.load(bad, typ=I64),
            detail=k.reason(REASON), condition=b.icmp_signed(">=", lane, const(I32, 0)))
    per_lane = b.load(deltas, typ=k.V64)
    from_lanes = b.block
    b.branch(done)

    b.position_at_end(done)
    delta = b.phi(k.V64)
    delta.add_incoming(cached_lanes, entry)
    delta.add_incoming(hit_lanes, hit)
    delta.add_incoming(per_lane, from_lanes)
    return b.sub(addresses, delta)


def pointers(k, host):
    return k.builder.inttoptr(host, ir.VectorType(PTR, k.lanes))


def gather(k, host, active, esize):
    """<lanes x i32>: the element at each active lane's host address (0 elsewhere)."""
    b = k.builder
    etype = ELEMENT[esize]
    vtype = ir.VectorType(etype, k.lanes)
    ptrs = pointers(k, host)
    fn = k.intrinsic(f"llvm.masked.gather.v{k.lanes}i{8 * esize}.v{k.lanes}p0", vtype,
                     [ptrs.type, I32, k.VB, vtype])
    value = b.call(fn, [ptrs, const(I32, 1), active, ir.Constant(vtype, None)])
    return b.zext(value, k.V) if esize < 4 else value


def scatter(k, host, active, esize, values):
    """Store the low `esize` bytes of each active lane's value, in lane order."""
    b = k.builder
    etype = ELEMENT[esize]
    vtype = ir.VectorType(etype, k.lanes)
    if values.type != vtype:
        values = b.trunc(values, vtype)
    ptrs = pointers(k, host)
    fn = k.intrinsic(f"llvm.masked.scatter.v{k.lanes}i{8 * esize}.v{k.lanes}p0", ir.VoidType(),
                     [vtype, ptrs.type, I32, k.VB])
    b.call(fn, [values, ptrs, const(I32, 1), active])


def unit_stride(k, addresses, active, stride):
    """i1: every lane is active and lane i's address is lane 0's + i * stride."""
    b = k.builder
    first = b.extract_element(addresses, const(I32, 0))
    want = b.add(k.splat(first), ir.Constant(k.V64, [i * stride for i in range(k.lanes)]))
    same = k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [b.icmp_unsigned("==", addresses, want)])
    full = k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [active])
    return b.and_(same, full)


def load_dwords(k, host, active, count):
    """`count` consecutive dwords from each lane's host address: a list of <lanes x i32>.
    All-active unit-stride lanes load as one vector; others gather."""
    b = k.builder
    dense = unit_stride(k, host, active, 4 * count)
    fast = k.new_block("dense_load")
    slow = k.new_block("gather_load")
    done = k.new_block("loaded")
    b.cbranch(dense, fast, slow)
    b.position_at_end(fast)
    wide = ir.VectorType(I32, k.lanes * count)
    base = b.inttoptr(b.extract_element(host, const(I32, 0)), PTR)
    whole = b.load(base, typ=wide)
    whole.align = 1
    quick = [b.shuffle_vector(whole, ir.Constant(wide, None),
                              ir.Constant(ir.VectorType(I32, k.lanes), [i * count + j for i in range(k.lanes)]))
             for j in range(count)]
    fast_end = b.block
    b.branch(done)
    b.position_at_end(slow)
    four = k.splat(const(I64, 4))
    slow_values = []
    at = host
    for j in range(count):
        slow_values.append(gather(k, at, active, 4))
        at = b.add(at, four)
    slow_end = b.block
    b.branch(done)
    b.position_at_end(done)
    out = []
    for q, s in zip(quick, slow_values):
        phi = b.phi(k.V)
        phi.add_incoming(q, fast_end)
        phi.add_incoming(s, slow_end)
        out.append(phi)
    return out


def store_dwords(k, host, active, values):
    """Store consecutive dwords (`values`, a list of <lanes x i32>) at each lane's address."""
    b = k.builder
    count = len(values)
    dense = unit_stride(k, host, active, 4 * count)
    fast = k.new_block("dense_store")
    slow = k.new_block("scatter_store")
    done = k.new_block("stored")
    b.cbranch(dense, fast, slow)
    b.position_at_end(fast)
    if count == 1:
        whole = values[0]
    else:
        whole = _interleave(k, values)
    base = b.inttoptr(b.extract_element(host, const(I32, 0)), PTR)
    st = b.store(whole, base)
    st.align = 1
    b.branch(done)
    b.position_at_end(slow)
    at = host
    four = k.splat(const(I64, 4))
    for value in values:
        scatter(k, at, active, 4, value)
        at = b.add(at, four)
    b.branch(done)
    b.position_at_end(done)


def _interleave(k, values):
    """[a, b, ...] of <lanes x i32> -> <lanes*count x i32> a0 b0 .. a1 b1 .."""
    b = k.builder
    count = len(values)
    lanes = k.lanes
    # Widen pairwise with shuffles: concatenate all, then one permutation.
    parts = list(values)
    while len(parts) > 1:
        nxt = []
        for i in range(0, len(parts), 2):
            if i + 1 == len(parts):
                nxt.append(parts[i])
                continue
            a, c = parts[i], parts[i + 1]
            n = a.type.count
            if c.type.count != n:
                pad = ir.Constant(ir.VectorType(I32, c.type.count), None)
                c = b.shuffle_vector(c, pad, ir.Constant(ir.VectorType(I32, n),
                                                         [x if x < c.type.count else c.type.count for x in range(n)]))
            nxt.append(b.shuffle_vector(a, c, ir.Constant(ir.VectorType(I32, 2 * n), list(range(2 * n)))))
        parts = nxt
    concat = parts[0]
    # concat holds value j's lane i at j * lanes + i (padding beyond count * lanes).
    order = [j * lanes + i for i in range(lanes) for j in range(count)]
    return b.shuffle_vector(concat, ir.Constant(concat.type, None),
                            ir.Constant(ir.VectorType(I32, lanes * count), order))


ATOMIC_RMW = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor",
              "swap": "xchg", "smin": "min", "smax": "max", "umin": "umin", "umax": "umax"}


def atomic_lanes(k, host, active, width, op, data, compare=None, new_value=None, exchange=False):
    """Apply an atomic at each active lane's host address in lane order; returns the old
    values (<lanes x iN>, 0 for inactive lanes). `op` is an atomicrmw name; or `exchange`
    (one cmpxchg of compare -> data); or `new_value(builder, old, data, compare) -> new`
    for a compare-exchange loop."""
    b = k.builder
    itype = ir.IntType(width)
    vtype = ir.VectorType(itype, k.lanes)
    before = b.block
    loop = k.new_block("atomic_lane")
    do = k.new_block("atomic_do")
    nxt = k.new_block("atomic_next")
    done = k.new_block("atomic_done")
    b.branch(loop)
    b.position_at_end(loop)
    lane = b.phi(I32)
    olds = b.phi(vtype)
    lane.add_incoming(const(I32, 0), before)
    olds.add_incoming(ir.Constant(vtype, None), before)
    on = b.extract_element(active, lane)
    b.cbranch(on, do, nxt)

    b.position_at_end(do)
    ptr = b.inttoptr(b.extract_element(host, lane), PTR)
    value = b.extract_element(data, lane)
    if op is not None:
        old = b.atomic_rmw(op, ptr, value, "seq_cst")
    elif exchange:
        old = b.extract_value(b.cmpxchg(ptr, b.extract_element(compare, lane), value, "seq_cst",
                                        "seq_cst"), 0)
    else:
        cmp = b.extract_element(compare, lane) if compare is not None else None
        old = _cmpxchg_loop(k, ptr, itype, value, cmp, new_value)
    updated = b.insert_element(olds, old, lane)
    do_end = b.block
    b.branch(nxt)

    b.position_at_end(nxt)
    merged = b.phi(vtype)
    merged.add_incoming(olds, loop)
    merged.add_incoming(updated, do_end)
    step = b.add(lane, const(I32, 1))
    lane.add_incoming(step, nxt)
    olds.add_incoming(merged, nxt)
    b.cbranch(b.icmp_unsigned("<", step, const(I32, k.lanes)), loop, done)
    b.position_at_end(done)
    return merged


def _cmpxchg_loop(k, ptr, itype, value, compare, new_value):
    b = k.builder
    first = b.load(ptr, typ=itype)
    first.align = itype.width // 8
    start = b.block
    retry = k.new_block("cas")
    out = k.new_block("cas_done")
    b.branch(retry)
    b.position_at_end(retry)
    old = b.phi(itype)
    old.add_incoming(first, start)
    new = new_value(b, old, value, compare)
    pair = b.cmpxchg(ptr, old, new, "seq_cst", "seq_cst")
    seen = b.extract_value(pair, 0)
    ok = b.extract_value(pair, 1)
    old.add_incoming(seen, b.block)
    b.cbranch(ok, out, retry)
    b.position_at_end(out)
    return old


def _float(b, x):
    return b.bitcast(x, ir.FloatType() if x.type.width == 32 else ir.DoubleType())


def _bits(b, f, itype):
    return b.bitcast(f, itype)


def _sel(b, cond, x, y):
    return b.select(cond, x, y)


# op -> new value from (builder, old, data, compare), for ops LLVM has no atomicrmw for;
# each is the interpreter's core/isa/interp/atomics.OPS rule.
NEW_VALUE = {
    "rsub": lambda b, o, d, c: b.sub(d, o),
    "inc": lambda b, o, d, c: _sel(b, b.icmp_unsigned(">=", o, d), ir.Constant(o.type, 0),
                                   b.add(o, ir.Constant(o.type, 1))),
    "dec": lambda b, o, d, c: _sel(b, b.or_(b.icmp_unsigned("==", o, ir.Constant(o.type, 0)),
                                            b.icmp_unsigned(">", o, d)), d,
                                   b.sub(o, ir.Constant(o.type, 1))),
    "fcmpswap": lambda b, o, d, c: _sel(b, b.fcmp_ordered("==", _float(b, o), _float(b, c)), d, o),
    "fmin": lambda b, o, d, c: _sel(b, b.or_(b.fcmp_unordered("uno", _float(b, d), _float(b, d)),
                                             b.fcmp_ordered("<=", _float(b, o), _float(b, d))), o, d),
    "fmax": lambda b, o, d, c: _sel(b, b.or_(b.fcmp_unordered("uno", _float(b, d), _float(b, d)),
                                             b.fcmp_ordered(">=", _float(b, o), _float(b, d))), o, d),
    "fadd": lambda b, o, d, c: _bits(b, b.fadd(_float(b, o), _float(b, d)), o.type),
    "mskor": lambda b, o, d, c: b.or_(b.and_(o, b.not_(d)), c),
    "csub": lambda b, o, d, c: _sel(b, b.icmp_unsigned(">=", o, d), b.sub(o, d), ir.Constant(o.type, 0)),
    "wrap": lambda b, o, d, c: _sel(b, b.icmp_unsigned(">=", o, d), b.sub(o, d), b.add(o, c)),
}


def atomic(k, host, active, width, op, data, compare=None):
    """Apply the interpreter's atomic `op` lane by lane in lane order at the host addresses;
    returns the old values (<lanes x iN>)."""
    if op in ATOMIC_RMW:
        return atomic_lanes(k, host, active, width, ATOMIC_RMW[op], data)
    if op == "cmpswap":
        return atomic_lanes(k, host, active, width, None, data, compare, exchange=True)
    return atomic_lanes(k, host, active, width, None, data, compare, NEW_VALUE[op])
