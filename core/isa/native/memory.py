"""Device memory in translated code: checked addresses, gathers, scatters, host atomics.

Holds these invariants (the interpreter's core/isa/interp/memory.py, translated):
- every active lane's access is checked against the dispatch's valid ranges before any byte
  moves: inline against the range this access site (one per checked access in the code)
  hit last, kept per thread across waves, else lane by lane out of line
  (sg_native_access), whose first bad lane (and its first bad element) faults the whole
  instruction with the interpreter's report;
- a checked address reaches host memory at address - delta (locked host memory has an agent
  address; arena memory has delta 0);
- loads and stores move little-endian elements of 1, 2 or 4 bytes, zero-extended to i32;
  when several lanes store to one address the highest lane wins (lane order), as in the
  interpreter; lane-contiguous accesses are masked vector loads and stores, and the active
  lanes of a load at one address read one value (loaded once);
- gathers and scatters of device memory (lanes not contiguous) move out of line, in
  sg_native_move, once their addresses are checked inline; LDS's stay inline;
- gathers, scatters, loads at one address and the out-of-line path move a lane's dword pair
  as one 8-byte access and an aligned dwordx4 as one 16-byte access (_units), as the GPU's
  64- and 128-bit accesses are single-copy atomic: another thread's wave never sees part of
  them. Lane-contiguous accesses are masked vector moves, which no
  test has seen torn (tests/isa/test_native_threads.py stores and reads them so);
- a checked lane-contiguous access prefetches what the same access of a wave 16 runs
  later would touch (a hint only: a prefetch never faults and moves nothing);
- atomics are host atomics applied lane by lane in lane order (LLVM atomicrmw / cmpxchg),
  so they are atomic across threads and visible to host code while the kernel runs.
"""
import llvmlite.ir as ir

from core.isa.native.alu.bits import is_nan, quiet
from core.isa.native.alu.conversion import bf16_nearest_even
from core.isa.native.alu.kit import Kit
from core.isa.native.runner_layout import (ACCESS_CHECK, ACCESS_LOAD, ACCESS_RUN, ACCESS_STORE,
                                           GROUP_LDS, GROUP_SITES, RANGE_BYTES, SG_FAULT_MEMORY)
from core.isa.native.ir_types import I1, I8, I16, I32, I64, PTR, const
from core.isa.native.ir_vector import Vector

ELEMENT = {1: I8, 2: I16, 4: I32, 8: I64}
REASON = "access outside every live allocation"


def site(k):
    """A new access site: the pointer to its entry in the workgroup's range cache (sg_group
    `sites`: the range the site's last out-of-line check found, which its fast test uses)."""
    b = k.builder
    sites = b.load(b.gep(k.group, [const(I64, GROUP_SITES)], source_etype=I8), typ=PTR)
    index = k.new_access_site()
    return b.gep(sites, [const(I64, index * RANGE_BYTES)], source_etype=I8)


def within(k, at, lo, hi):
    """i1 and the delta: [lo, hi) lies in the range access site `at` hit last (and does not
    wrap)."""
    b = k.builder
    start, end, delta = [b.load(b.gep(at, [const(I64, 8 * i)], source_etype=I8), typ=I64)
                         for i in range(3)]
    inside = b.and_(b.and_(b.icmp_unsigned(">=", lo, start), b.icmp_unsigned("<=", hi, end)),
                    b.icmp_unsigned(">=", hi, lo))
    return inside, delta


def _out_of_line(k, at, addresses, active, count, esize, stride, flags, values=None):
    """Call sg_native_access; faults where it reports a bad lane. Returns what the C side
    left: the host addresses (<lanes x i64>) of a check alone (flags ACCESS_CHECK), else a
    load's rows ([] for a store): an access that moves data has no use for its addresses."""
    b = k.builder
    buffer, data = k.scratch_buffers()
    b.store(addresses, buffer)              # lane 0's alone for an ACCESS_RUN
    bits = staged(k, data, values, active)
    fn = k.intrinsic("sg_native_access", I32, [PTR, PTR, PTR, PTR, I64, I32, I32, I32, I64, PTR, I32])
    fn.attributes.add("cold")      # so the register allocator keeps spills off the fast paths
    lane = b.call(fn, [k.env, k.wave, at, buffer, bits, const(I32, k.lanes), const(I32, count),
                       const(I32, esize), const(I64, stride), data, const(I32, flags)])
    if flags & ACCESS_CHECK:
        reported_fault(k, lane)
    if not flags & (ACCESS_LOAD | ACCESS_STORE):
        return b.load(buffer, typ=k.V64)
    return loaded_rows(k, data, count) if flags & ACCESS_LOAD else []


# What the C side's accesses (sg_native_access, sg_native_buffer) take and give: element rows
# of lanes in the scratch `data` buffer, row e at 4 * e * lanes bytes; the EXEC mask as i64
# lane bits; the first bad lane (negative when none) and its address in fault_address.

def staged(k, data, values, active):
    """Put a store's element rows (`values`, None for a load) in `data`; the lane bits of `active`."""
    b = k.builder
    for e, value in enumerate(values or ()):
        b.store(value, b.gep(data, [const(I64, 4 * e * k.lanes)], source_etype=I8))
    bits = k.bits_of(active)
    return b.zext(bits, I64) if k.lanes == 32 else bits


def loaded_rows(k, data, count):
    """The `count` element rows a load left in `data`."""
    b = k.builder
    return [b.load(b.gep(data, [const(I64, 4 * e * k.lanes)], source_etype=I8), typ=k.V)
            for e in range(count)]


def reported_fault(k, lane):
    """Fault at the lane the C side reported, if it reported one."""
    b = k.builder
    k.fault(SG_FAULT_MEMORY, lane=lane, address=b.load(k.field("fault_address"), typ=I64),
            detail=k.reason(REASON), condition=b.icmp_signed(">=", lane, const(I32, 0)))


def checked(k, addresses, active, count, esize, stride=None):
    """Host addresses (<lanes x i64>) of an access whose every active lane's `count`
    elements of `esize` bytes (`stride` apart, default esize) must lie in valid memory;
    faults otherwise, before anything moves."""
    b = k.builder
    stride = esize if stride is None else stride
    span = (count - 1) * stride + esize
    lo = k.call(f"llvm.vector.reduce.umin.v{k.lanes}i64", I64,
                [b.select(active, addresses, k.splat(const(I64, -1)))])
    top = k.call(f"llvm.vector.reduce.umax.v{k.lanes}i64", I64,
                 [b.select(active, addresses, k.splat(const(I64, 0)))])
    at = site(k)
    inside, delta = within(k, at, lo, b.add(top, const(I64, span)))
    fast_host = b.sub(addresses, k.splat(delta))
    fast = b.or_(inside, b.not_(k.any_lane(active)))
    return value_unless(k, fast, fast_host, ("check_lanes", "checked"),
                        lambda: _out_of_line(k, at, addresses, active, count, esize, stride, ACCESS_CHECK))


def check_scalar(k, address, count, size=4):
    """Host address of `count` elements of `size` bytes at the scalar `address` (lane 0 of the
    wave), checked."""
    b = k.builder
    at = site(k)
    inside, delta = within(k, at, address, b.add(address, const(I64, size * count)))
    fast_host = b.sub(address, delta)

    def slow_host():
        lane0 = ir.Constant(k.VB, [True] + [False] * (k.lanes - 1))
        hosts = _out_of_line(k, at, k.splat(address), lane0, count, size, size, ACCESS_CHECK)
        return b.extract_element(hosts, const(I32, 0))
    return value_unless(k, inside, fast_host, ("check_scalar", "checked_scalar"), slow_host)


def value_unless(k, skip, skipped, blocks, value_of):
    """`skipped` where `skip` holds, else `value_of()`, emitted in a block of its own (the
    first name of `blocks`; the second names the join): a slow path only where it is needed."""
    b = k.builder
    before = b.block
    then, done = (k.new_block(name) for name in blocks)
    b.cbranch(skip, done, then)
    b.position_at_end(then)
    value = value_of()
    end = b.block
    b.branch(done)
    b.position_at_end(done)
    phi = b.phi(skipped.type)
    phi.add_incoming(skipped, before)
    phi.add_incoming(value, end)
    return phi


def _dense(k, addresses, active, lane_stride, halves=None):
    """(i1, base i64, i1 every lane active): every active lane's address is base + lane *
    lane_stride, base taken from the first active lane. `halves` (lo, hi, offset): the
    addresses are the VGPR pair hi:lo plus `offset`, or, when `hi` is an i64 (a scalar base,
    saddr), hi + lo zero-extended + `offset`; either is tested in 32-bit lanes.

    One test for whole and partial waves alike, without a branch: the partial-wave test
    this replaced (a minimum over 64-bit lanes, on a path of its own) took 15% of the small
    kernels' code generation."""
    b = k.builder
    everyone = k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [active])
    bits = k.bits_of(active)
    # No lane active: lane 0 (the access moves nothing).
    first = b.and_(k.call(f"llvm.cttz.i{k.lanes}", k.MASK, [bits, const(I1, 0)]), ir.Constant(k.MASK, k.lanes - 1))
    first = b.trunc(first, I32) if k.lanes == 64 else first
    below = b.mul(b.zext(first, I64), const(I64, lane_stride))      # bytes below the first lane's
    if halves is not None and halves[1].type == I64:
        # saddr + lo is dense iff lo steps from the run's start, which lies (as an i64) where
        # no lane's lo wraps: then lane i's lo is start + i * lane_stride.
        lo, saddr, offset = halves
        start = b.sub(b.zext(b.extract_element(lo, first), I64), below)
        want = b.add(k.splat(b.trunc(start, I32)), k.lane_constant([i * lane_stride for i in range(k.lanes)]))
        same = b.icmp_unsigned("==", b.select(active, lo, want), want)
        room = b.icmp_unsigned("<=", start, const(I64, 0xFFFFFFFF - (k.lanes - 1) * lane_stride))
        dense = b.and_(k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [same]), room)
        return dense, b.add(b.add(saddr, start), const(I64, offset & 0xFFFFFFFFFFFFFFFF)), everyone
    if halves is not None:
        # hi:lo is dense iff hi is one value and lo steps from the run's start without a
        # carry into hi: then lane i's pair is start + i * lane_stride.
        lo, hi, offset = halves
        start = b.sub(_join(k, b.extract_element(lo, first), b.extract_element(hi, first)), below)
        start_lo, start_hi = _split(k, start)
        steps32 = k.lane_constant([i * lane_stride for i in range(k.lanes)])
        want_lo, want_hi = b.add(k.splat(start_lo), steps32), k.splat(start_hi)
        same = b.and_(b.icmp_unsigned("==", b.select(active, lo, want_lo), want_lo),
                      b.icmp_unsigned("==", b.select(active, hi, want_hi), want_hi))
        room = b.icmp_unsigned("<=", start_lo, const(I32, 0xFFFFFFFF - (k.lanes - 1) * lane_stride))
        dense = b.and_(k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [same]), room)
        return dense, b.add(start, const(I64, offset & 0xFFFFFFFFFFFFFFFF)), everyone
    steps = k.lane_constant([i * lane_stride for i in range(k.lanes)], I64)
    base = b.sub(b.extract_element(addresses, first), below)
    want = b.add(k.splat(base), steps)
    same = b.icmp_unsigned("==", b.select(active, addresses, want), want)
    return k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [same]), base, everyone


def _layout(k, count, esize, stride):
    """(lane stride, interleaved): elements `stride` apart either follow each other in one
    lane (stride == esize: one vector of lanes * count elements) or form rows (private
    memory: each element a vector of its own, `stride` bytes after the previous one)."""
    if stride == esize:
        return esize * count, True
    return esize, False


def access(k, addresses, active, count, esize, stride=None, values=None, check=True, halves=None,
           base=None):
    """Load (values None: returns a list of <lanes x i32>, zero-extended, 0 in inactive lanes)
    or store (`values`, a list of <lanes x i32>) `count` elements per active lane. Device
    addresses are checked (check=True) before anything moves; LDS addresses (check=False) are
    host addresses already. Inside the range the access hit last, lane-contiguous accesses move
    as masked vectors and others as gathers/scatters (in a large kernel, k.large, these go out
    of line too); anything else goes through sg_native_access, lane by lane. `halves`: see
    _dense. `base`: the translator knows lane t's address is `base` + t * the lane stride
    (vmem.Space.base): no test of the lanes at run time, and `addresses` (None) is made only
    where the range test fails, to go out of line."""
    b = k.builder
    stride = esize if stride is None else stride
    lane_stride, interleaved = _layout(k, count, esize, stride)
    known = base is not None
    if known:
        assert check, "a known base is a device address"
        device_base, dense = base, None          # None: dense without a test
    else:
        dense, base, everyone = _dense(k, addresses, active, lane_stride, halves)
    whole_wave = values is not None and check and bool(_units(count, esize, stride))
    if whole_wave:
        # AMD's masked stores (vpmaskmovd) write a dword at a time: another thread saw part
        # of a lone lane's 16-byte store. A store whose dwords must move together takes the
        # vector path only with every lane on, as plain stores (_vector_access).
        everyone = k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1, [active]) if known else everyone
        dense = everyone if known else b.and_(dense, everyone)
    quick = k.new_block("vector_access")
    scattered = k.new_block("gather_access")
    done = k.new_block("accessed")
    delta = None
    if check:
        at = site(k)
        span = lane_stride * k.lanes if interleaved else (count - 1) * stride + esize * k.lanes
        inside, delta = within(k, at, base, b.add(base, const(I64, span)))
        base = b.sub(base, delta)
        b.cbranch(inside if dense is None else b.and_(dense, inside), quick, scattered)
    else:
        b.cbranch(dense, quick, scattered)
    b.position_at_end(quick)
    if check and not known:     # a stream's next runs; scratch rows are no stream
        _prefetch_ahead(k, base, span, store=values is not None)
    fast_rows = _vector_access(k, base, active, count, esize, stride, interleaved, values, whole_wave)
    ends = [(fast_rows, b.block)]
    b.branch(done)
    b.position_at_end(scattered)
    if known:
        # Outside the range this site hit last (the first access, or one that faults): the
        # C side makes the lanes' addresses from lane 0's.
        assert lane_stride == esize, "a run's lanes are an element apart"
        addresses = device_base
    if check and (k.large or known):
        # A large kernel's scattered accesses go out of line: LLVM's code generation expands
        # an inline gather or scatter lane by lane, which took a third of an -O0 kernel's
        # compile time (gfx942 round_up -O0, 870 instructions: 24 -> 17 s).
        flags = ACCESS_CHECK | (ACCESS_LOAD if values is None else ACCESS_STORE)
        flags |= ACCESS_RUN if known else 0
        rows = _out_of_line(k, at, addresses, active, count, esize, stride, flags, values)
        ends.append((rows, b.block))
    elif check:
        lo = k.call(f"llvm.vector.reduce.umin.v{k.lanes}i64", I64,
                    [b.select(active, addresses, k.splat(const(I64, -1)))])
        top = k.call(f"llvm.vector.reduce.umax.v{k.lanes}i64", I64,
                     [b.select(active, addresses, k.splat(const(I64, 0)))])
        inside, delta = within(k, at, lo, b.add(top, const(I64, (count - 1) * stride + esize)))
        gather = k.new_block("gather_inside")
        slow = k.new_block("lane_access")
        b.cbranch(inside, gather, slow)
        b.position_at_end(gather)
        if values is None:
            # Every active lane at one address reads one value, as the hardware's single
            # request does: a wave polling a flag another thread sets must not see it set in
            # some lanes and clear in others (a gather reads lane groups at different times).
            one, many = k.new_block("one_address"), k.new_block("gather_lanes")
            b.cbranch(b.icmp_unsigned("==", lo, top), one, many)
            b.position_at_end(one)
            rows = _broadcast(k, b.sub(lo, delta), active, count, esize, stride)
            ends.append((rows, b.block))
            b.branch(done)
            b.position_at_end(many)
        rows = _moved(k, b.sub(addresses, k.splat(delta)), active, count, esize, stride, values)
        ends.append((rows, b.block))
        b.branch(done)
        b.position_at_end(slow)
        flags = ACCESS_CHECK | (ACCESS_LOAD if values is None else ACCESS_STORE)
        rows = _out_of_line(k, at, addresses, active, count, esize, stride, flags, values)
        ends.append((rows, b.block))
    else:                       # LDS: no check to make
        rows = _moved(k, addresses, active, count, esize, stride, values)
        ends.append((rows, b.block))
    return _joined(k, done, ends, count if values is None else 0)


def _joined(k, done, ends, count):
    """Branch to `done` and there take each of a load's `count` element rows from the path
    that ran: `ends` holds each path's (rows, last block)."""
    b = k.builder
    b.branch(done)
    b.position_at_end(done)
    out = []
    for e in range(count):
        phi = b.phi(k.V)
        for rows, block in ends:
            phi.add_incoming(rows[e], block)
        out.append(phi)
    return out


# Waves of a streaming kernel touch consecutive runs; the hardware prefetcher alone left
# the vector add 2^22 waiting on its first load a third of its time (prefetching 16 runs
# ahead made it about 10% faster).
PREFETCH_RUNS = 16
PREFETCH_LINES = 4


def _prefetch_ahead(k, base, span, store):
    for line in range(min(PREFETCH_LINES, max(1, span // 128))):
        ahead = k.builder.inttoptr(k.builder.add(base, const(I64, PREFETCH_RUNS * span + 128 * line)), PTR)
        k.call("llvm.prefetch.p0", ir.VoidType(), [ahead, const(I32, int(store)), const(I32, 3), const(I32, 1)])


def lds_access(k, offsets, active, count, esize, stride, values=None):
    """An LDS access at 32-bit byte offsets (already bounded): a masked vector where lanes are
    contiguous, else gathers/scatters off the group's LDS base (lower lanes store first)."""
    b = k.builder
    lds = b.load(b.gep(k.group, [const(I64, GROUP_LDS)], source_etype=I8), typ=PTR)
    lane_stride, interleaved = _layout(k, count, esize, stride)
    steps = ir.Constant(k.V, [i * lane_stride for i in range(k.lanes)])
    first = k.call(f"llvm.vector.reduce.umin.v{k.lanes}i32", I32,
                   [b.select(active, b.sub(offsets, steps), k.splat(const(I32, -1)))])
    want = b.add(k.splat(first), steps)
    dense = k.call(f"llvm.vector.reduce.and.v{k.lanes}i1", I1,
                   [b.icmp_unsigned("==", b.select(active, offsets, want), want)])
    quick = k.new_block("lds_vector")
    scattered = k.new_block("lds_gather")
    done = k.new_block("lds_done")
    b.cbranch(dense, quick, scattered)
    b.position_at_end(quick)
    # Signed: with lane 0 inactive, a run starting at offset 0 has its base below it.
    base = b.ptrtoint(b.gep(lds, [b.sext(first, I64)], source_etype=I8), I64)
    ends = [(_vector_access(k, base, active, count, esize, stride, interleaved, values), b.block)]
    b.branch(done)
    b.position_at_end(scattered)

    def pointers(e):
        at = offsets if e == 0 else b.add(offsets, k.splat(const(I32, e * stride)))
        ptrs = b.gep(lds, [at], source_etype=I8)
        ptrs.type = Vector(PTR, k.lanes)     # a GEP over lane offsets: lane pointers
        return ptrs
    ends.append((_lds_rows(k, pointers, active, count, esize, stride, values), b.block))
    return _joined(k, done, ends, count if values is None else 0)


def _vector_access(k, base, active, count, esize, stride, interleaved, values, whole_wave=False):
    """Masked vector loads or stores at `base`; `whole_wave` (every lane on): plain stores,
    which move each lane's aligned 8 or 16 bytes as one access, as the hardware does."""
    b = k.builder
    etype = ELEMENT[esize]
    if interleaved and count > 1:
        wide = Vector(etype, k.lanes * count)
        spread = ir.Constant(Vector(I32, k.lanes * count), [i // count for i in range(k.lanes * count)])
        mask = b.shuffle_vector(active, ir.Constant(k.VB, None), spread)
        if values is not None:
            narrow = _interleave(k, [_narrow(k, v, etype) for v in values])
            if whole_wave:
                b.store(narrow, b.inttoptr(base, PTR)).align = esize
            else:
                masked_store(k, base, mask, narrow, esize)
            return []
        whole = masked_load(k, base, mask, wide, esize)
        rows = [b.shuffle_vector(whole, ir.Constant(wide, None), ir.Constant(
            Vector(I32, k.lanes), [i * count + j for i in range(k.lanes)])) for j in range(count)]
    else:
        vtype = Vector(etype, k.lanes)
        rows = []
        for e in range(count):
            at = base if e == 0 else b.add(base, const(I64, e * stride))
            if values is not None:
                masked_store(k, at, active, _narrow(k, values[e], etype), esize)
            else:
                rows.append(masked_load(k, at, active, vtype, esize))
        if values is not None:
            return []
    return [b.zext(r, k.V) if esize < 4 else r for r in rows]


def _moved(k, hosts, active, count, esize, stride, values):
    """Gather (values None: returns the rows) or scatter (`values`) `count` elements `stride`
    apart at each active lane's host address (<lanes x i64>, checked already), through
    sg_native_move: in lane order (the highest lane wins), runs of dwords as single accesses
    (_units), and lanes at one address reading one value. Out of line because LLVM's x86 code
    generation without AVX-512 expands a gather or scatter lane by lane, ~5 instructions a
    lane: the gathers and scatters held a quarter of a small kernel's machine code and compile
    time, while the C loop takes about a tenth longer than that expansion (native_bench.py's
    gather part)."""
    b = k.builder
    buffer, data = k.scratch_buffers()
    b.store(hosts, buffer)
    bits = staged(k, data, values, active)
    fn = k.intrinsic("sg_native_move", I32, [PTR, I64, I32, I32, I32, I64, PTR, I32])
    b.call(fn, [buffer, bits, const(I32, k.lanes), const(I32, count), const(I32, esize),
                const(I64, stride), data, const(I32, ACCESS_LOAD if values is None else ACCESS_STORE)])
    return loaded_rows(k, data, count) if values is None else []


def _units(count, esize, stride, device=True):
    """{first element: bytes} of the runs of dwords that move as one access. The GPU's
    aligned 64- and 128-bit accesses are single-copy atomic, and code relies on it across
    workgroups: a wave polls a 64-bit flag another thread stores, and rocPRIM's look-back
    publishes a value with its flag in one 16-byte word (scan_by_key's tuple<int, bool>), so a
    lane must never see part of another thread's store (sg_native_move keeps the same units).
    LDS (device=False) belongs to one workgroup, whose waves one thread runs: its dwordx4
    gathers keep 8-byte elements."""
    if esize != 4 or stride != 4:
        return {}
    if count == 4 and device:
        return {0: 16}
    return {e: 8 for e in range(0, count - 1, 2)}


def _shape(k, value):
    """(the i64 type, the shift by 32) for an i32/i64 scalar or a lanes vector."""
    scalar = value.type in (I32, I64)
    return (I64, const(I64, 32)) if scalar else (k.V64, k.splat(const(I64, 32)))


def _split(k, wide):
    """(low, high) dwords of i64 or <lanes x i64> values."""
    b = k.builder
    narrow = I32 if wide.type == I64 else k.V
    return b.trunc(wide, narrow), b.trunc(b.lshr(wide, _shape(k, wide)[1]), narrow)


def _join(k, lo, hi):
    """The i64 (or <lanes x i64>) whose low dword is `lo` and high dword is `hi`: _split undone."""
    b = k.builder
    wide, shift = _shape(k, lo)
    return b.or_(b.zext(lo, wide), b.shl(b.zext(hi, wide), shift))


def _broadcast(k, host, active, count, esize, stride):
    """`count` elements `stride` apart, each loaded once at host address `host`, in every
    active lane (0 in the others)."""
    b = k.builder
    values = []
    units = _units(count, esize, stride)
    e = 0
    while e < count:
        width = units.get(e, esize)
        at = b.add(host, const(I64, e * stride))
        if width == 16:
            values.extend(_quad(k, at))
        elif width == 8:
            values.extend(_split(k, b.load(b.inttoptr(at, PTR), typ=I64)))
        else:
            value = b.load(b.inttoptr(at, PTR), typ=ELEMENT[esize])
            values.append(b.zext(value, I32) if esize < 4 else value)
        e += max(1, width // esize)
    return [b.select(active, k.splat(v), k.splat(const(I32, 0))) for v in values]


I128 = ir.IntType(128)


def _quad(k, host, value=None):
    """Load (value None: the four dwords) or store (`value`, an i128) the 16 bytes at host
    address `host` (i64): aligned, as one 16-byte access (an atomic i128 is a single 16-byte
    move on x86 with AVX), as the GPU moves them; not aligned, as the bytes come (the GPU
    promises nothing there either)."""
    b = k.builder
    ptr = b.inttoptr(host, PTR)
    aligned = b.icmp_unsigned("==", b.and_(host, const(I64, 15)), const(I64, 0))
    whole, loose, done = k.new_block("quad_aligned"), k.new_block("quad_loose"), k.new_block("quad_done")
    b.cbranch(aligned, whole, loose)
    ends = []
    b.position_at_end(whole)
    if value is None:
        ends.append((b.load_atomic(ptr, "monotonic", 16, typ=I128), b.block))
    else:
        # IRBuilder.store_atomic compares the pointer's pointee type, which opaque pointers
        # lack: the instruction is built directly.
        b._insert(ir.instructions.StoreAtomicInstr(b.block, value, ptr, "monotonic", 16))
    b.branch(done)
    b.position_at_end(loose)
    if value is None:
        got = b.load(ptr, typ=I128)
        got.align = 4
        ends.append((got, b.block))
    else:
        b.store(value, ptr).align = 4
    b.branch(done)
    b.position_at_end(done)
    if value is not None:
        return []
    quad = b.phi(I128)
    for got, block in ends:
        quad.add_incoming(got, block)
    return [b.trunc(b.lshr(quad, ir.Constant(I128, 32 * i)), I32) for i in range(4)]


def _lds_rows(k, pointers, active, count, esize, stride, values):
    """Gather (values None: returns the rows) or scatter (lower lanes first: the highest lane
    wins) `count` elements of LDS, element e at the lane pointers `pointers(e)`, inline: LDS
    gathers are the inner loops of tiled kernels, where sg_native_move's call made a 16x16
    LDS-tiled SGEMM twice as slow. LDS belongs to one workgroup, whose waves one thread runs:
    its dword pairs move as 8-byte elements (_units)."""
    b = k.builder
    units = _units(count, esize, stride, device=False)
    rows = []
    for e in range(count):
        if e - 1 in units:
            continue
        width = units.get(e, esize)
        pair = width == 8
        etype = ELEMENT[width]
        vtype = Vector(etype, k.lanes)
        ptrs = pointers(e)
        if values is None:
            fn = k.intrinsic(f"llvm.masked.gather.v{k.lanes}i{8 * width}.v{k.lanes}p0", vtype,
                             [Vector(PTR, k.lanes), I32, k.VB, vtype])
            row = b.call(fn, [ptrs, const(I32, 1), active, ir.Constant(vtype, None)])
            rows.extend(_split(k, row) if pair else [b.zext(row, k.V) if esize < 4 else row])
            continue
        value = _join(k, values[e], values[e + 1]) if pair else _narrow(k, values[e], etype)
        fn = k.intrinsic(f"llvm.masked.scatter.v{k.lanes}i{8 * width}.v{k.lanes}p0", ir.VoidType(),
                         [vtype, Vector(PTR, k.lanes), I32, k.VB])
        b.call(fn, [value, ptrs, const(I32, 1), active])
    return rows


def _narrow(k, value, etype):
    return value if etype == I32 else k.builder.trunc(value, Vector(etype, k.lanes))


def masked_load(k, base, mask, vtype, esize):
    fn = k.intrinsic(f"llvm.masked.load.v{vtype.count}i{8 * esize}.p0", vtype,
                     [PTR, I32, mask.type, vtype])
    return k.builder.call(fn, [k.builder.inttoptr(base, PTR), const(I32, 1), mask, ir.Constant(vtype, None)])


def masked_store(k, base, mask, values, esize):
    fn = k.intrinsic(f"llvm.masked.store.v{values.type.count}i{8 * esize}.p0", ir.VoidType(),
                     [values.type, PTR, I32, mask.type])
    k.builder.call(fn, [values, k.builder.inttoptr(base, PTR), const(I32, 1), mask])


def _interleave(k, values):
    """[a, b, ...] of <lanes x iN> -> <lanes*count x iN>: a0 b0 .. a1 b1 .."""
    b = k.builder
    count = len(values)
    lanes = k.lanes
    parts = list(values)
    while len(parts) > 1:                      # concatenate pairwise (padding odd counts)
        nxt = []
        for i in range(0, len(parts), 2):
            a = parts[i]
            n = a.type.count
            c = parts[i + 1] if i + 1 < len(parts) else ir.Constant(a.type, None)
            if c.type.count != n:
                c = b.shuffle_vector(c, ir.Constant(c.type, None), ir.Constant(
                    Vector(I32, n), [x if x < c.type.count else 0 for x in range(n)]))
            nxt.append(b.shuffle_vector(a, c, ir.Constant(Vector(I32, 2 * n), list(range(2 * n)))))
        parts = nxt
    concat = parts[0]
    order = [j * lanes + i for i in range(lanes) for j in range(count)]
    return b.shuffle_vector(concat, ir.Constant(concat.type, None),
                            ir.Constant(Vector(I32, lanes * count), order))


ATOMIC_RMW = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor",
              "swap": "xchg", "smin": "min", "smax": "max", "umin": "umin", "umax": "umax"}


def atomic_lanes(k, host, active, width, op, data, compare=None, new_value=None, exchange=False):
    """Apply an atomic at each active lane's host address in lane order; returns the old
    values (<lanes x iN>, 0 for inactive lanes). `op` is an atomicrmw name; or `exchange`
    (one cmpxchg of compare -> data); or `new_value(builder, old, data, compare) -> new`
    for a compare-exchange loop."""
    b = k.builder
    itype = ir.IntType(width)
    vtype = Vector(itype, k.lanes)
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


def _halves(b, x):
    """An i32 as the two f16 of global_atomic_pk_add_f16."""
    return b.bitcast(x, ir.VectorType(ir.HalfType(), 2))


def _bits(b, f, itype):
    return b.bitcast(f, itype)


def _sel(b, cond, x, y):
    return b.select(cond, x, y)


def _pk_faddbf16(b, old, data):
    """The interpreter's two bf16 adds (core/isa/interp/atomics.py): f32 sums, NaN addends
    quieted (old's first), rounded to nearest even."""
    k = Kit(b, None)
    result = ir.Constant(old.type, 0)
    for shift in (0, 16):
        x, y = (k.shl(k.and_(k.lshr(v, shift), 0xFFFF), 16) for v in (old, data))
        total = b.bitcast(b.fadd(b.bitcast(x, ir.FloatType()), b.bitcast(y, ir.FloatType())), x.type)
        total = k.select(is_nan(k, y, "f32"), quiet(k, y, "f32"), total)
        total = k.select(is_nan(k, x, "f32"), quiet(k, x, "f32"), total)
        result = k.or_(result, k.shl(bf16_nearest_even(k, total), shift))
    return result


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
    "pk_fadd16": lambda b, o, d, c: _bits(b, b.fadd(_halves(b, o), _halves(b, d)), o.type),
    "pk_faddbf16": lambda b, o, d, c: _pk_faddbf16(b, o, d),
    "mskor": lambda b, o, d, c: b.or_(b.and_(o, b.not_(d)), c),
    "csub": lambda b, o, d, c: _sel(b, b.icmp_unsigned(">=", o, d), b.sub(o, d), ir.Constant(o.type, 0)),
    "cond_sub": lambda b, o, d, c: _sel(b, b.icmp_unsigned(">=", o, d), b.sub(o, d), o),
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
