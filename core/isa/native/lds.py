"""DS instructions in translated code: LDS reads, writes (one and two addresses), atomics,
ds_swizzle, ds_bpermute/ds_permute, ds_append/ds_consume (the interpreter's
core/isa/interp/lds.py, translated).

Holds these invariants:
- a lane's LDS address is its 32-bit VGPR plus the instruction offset(s), inside its own
  workgroup's LDS; out-of-range reads give 0 and out-of-range writes (and atomics) are dropped;
- cross-lane DS operations move data between lanes without touching LDS, and a lane reading
  an inactive lane gets 0.
"""
import llvmlite.ir as ir

from core.isa.handler_tables import fill
from core.isa.instruction import M0
from core.isa.native import memory as M
from core.isa.native import operands as O
from core.isa.native.families import HANDLERS, handles
from core.isa.native.ir_types import I32, I64, const
from core.isa.native.vmem import _u64, lds_hosts, lds_space, load_space, store_spaces
from core.isa.semantics.atomics import DS_TWO_DATA_OPS, ds_value_and_second
from core.isa.semantics.lds import ds_offsets, ds_parts, memory_operations, swizzle_plan


def _base(k, addr):
    return k.builder.zext(O.vector(k, addr), k.V64)


def _read(form, pair=False, st64=False):
    esize, count, signed, half = form

    def run(k, inst):
        b = k.builder
        vdst, addr, _ = ds_parts(inst, True)
        active = k.exec_mask()
        base = _base(k, addr)
        offsets = ds_offsets(inst, esize * count, pair, st64)
        values = []
        for off in offsets:
            space = lds_space(k, b.add(base, _u64(k, off)), active, count, esize)
            values += load_space(k, space, count, esize)
        if signed:
            sign = k.splat(const(I32, 1 << (8 * esize - 1)))
            values = [b.sub(b.xor(v, sign), sign) for v in values]
            if half:
                values = [b.and_(v, k.splat(const(I32, 0xFFFF))) for v in values]
        if half:
            O.write_vgpr(k, vdst.index, O.merge16(k, O.vgpr(k, vdst.index), values[0], half == "hi"))
            return
        for j, value in enumerate(values):
            O.write_vgpr(k, vdst.index + j, value)
    return run


def _write(form, pair=False, st64=False):
    esize, count, high = form

    def run(k, inst):
        b = k.builder
        _, addr, data = ds_parts(inst, False)
        active = k.exec_mask()
        base = _base(k, addr)
        targets = tuple(zip(ds_offsets(inst, esize * count, pair, st64), data))
        for off, source in targets:
            values = [O.vgpr(k, source.index + j) for j in range(count)]
            if high:
                values = [b.lshr(v, k.splat(const(I32, 16))) for v in values]
            store_spaces(k, [lds_space(k, b.add(base, _u64(k, off)), active, count, esize)],
                         count, esize, values)
    return run


def _atomic(op, wide, returns, new_first=False):
    words = 2 if wide else 1
    size = 8 if wide else 4
    two_data = op in DS_TWO_DATA_OPS

    def run(k, inst):
        b = k.builder
        vdst, addr, data = ds_parts(inst, returns)
        active = k.exec_mask()
        base = b.add(_base(k, addr), _u64(k, int(inst.mods.get("offset", 0))))
        space = lds_space(k, base, active, 1, size)
        lanes = space.lanes
        # LDS atomics address whole words (the interpreter indexes LDS by address // size).
        host = b.and_(lds_hosts(k, space), _u64(k, ~(size - 1)))
        first = O.vgprs(k, data[0].index, words)
        second = O.vgprs(k, data[1].index, words) if two_data else None
        value, compare = ds_value_and_second(op, new_first, first, second)
        old = M.atomic(k, host, lanes, 64 if wide else 32, op, value, compare)
        if returns:
            O.write_vgprs(k, vdst.index, old, words)
    return run


def _exchange2(wide, st64):
    words = 2 if wide else 1

    def run(k, inst):
        b = k.builder
        vdst, addr, data = ds_parts(inst, True)
        active = k.exec_mask()
        base = _base(k, addr)
        old = []
        for n, off in enumerate(ds_offsets(inst, 4 * words, True, st64)):
            space = lds_space(k, b.add(base, _u64(k, off)), active, words, 4)
            old += load_space(k, space, words, 4)
            store_spaces(k, [space], words, 4, [O.vgpr(k, data[n].index + j) for j in range(words)])
        for j, value in enumerate(old):
            O.write_vgpr(k, vdst.index + j, value)
    return run


fill(HANDLERS, memory_operations(),
     {"read": _read, "write": _write, "exchange2": _exchange2, "atomic": _atomic})


# ---- cross-lane DS ------------------------------------------------------------------------
def gather_lanes(k, values, source, inactive_too=False):
    """values read from lanes `source` (<lanes x i32>, runtime); inactive sources give 0, or
    with `inactive_too` their values."""
    b = k.builder
    exec_mask = k.exec_mask()
    out = ir.Constant(k.V, None)
    for lane in range(k.lanes):
        src = b.extract_element(source, const(I32, lane))
        got = b.extract_element(values, src)
        if not inactive_too:
            got = b.select(b.extract_element(exec_mask, src), got, const(I32, 0))
        out = b.insert_element(out, got, const(I32, lane))
    return out


def _constant_gather(k, values, source):
    b = k.builder
    got = b.shuffle_vector(values, ir.Constant(k.V, None), ir.Constant(k.V, [int(s) for s in source]))
    alive = b.shuffle_vector(k.exec_mask(), ir.Constant(k.VB, None), ir.Constant(k.V, [int(s) for s in source]))
    return b.select(alive, got, ir.Constant(k.V, None))


@handles("ds_swizzle_b32")
def _swizzle(k, inst):
    vdst, addr, _ = ds_parts(inst, True)
    source = swizzle_plan(int(inst.mods.get("offset", 0)), k.lanes)
    O.write_vgpr(k, vdst.index, _constant_gather(k, O.vector(k, addr), source))


def _lane_index(k, addr, offset):
    b = k.builder
    byte = b.add(b.zext(O.vector(k, addr), k.V64), _u64(k, offset))
    return b.trunc(b.urem(b.udiv(byte, _u64(k, 4)), _u64(k, k.lanes)), k.V)


def _bpermute(inactive_too):
    def run(k, inst):
        vdst, addr, data = ds_parts(inst, True)
        source = _lane_index(k, addr, int(inst.mods.get("offset", 0)))
        O.write_vgpr(k, vdst.index, gather_lanes(k, O.vector(k, data[0]), source, inactive_too))
    return run


handles("ds_bpermute_b32")(_bpermute(False))
handles("ds_bpermute_fi_b32")(_bpermute(True))


@handles("ds_permute_b32")
def _permute(k, inst):
    b = k.builder
    vdst, addr, data = ds_parts(inst, True)
    target = _lane_index(k, addr, int(inst.mods.get("offset", 0)))
    values = O.vector(k, data[0])
    exec_mask = k.exec_mask()
    out = ir.Constant(k.V, None)
    for lane in range(k.lanes):                          # the highest lane wins a conflict
        to = b.extract_element(target, const(I32, lane))
        put = b.insert_element(out, b.extract_element(values, const(I32, lane)), to)
        out = b.select(b.extract_element(exec_mask, const(I32, lane)), put, out)
    O.write_vgpr(k, vdst.index, out)


def _append(k, inst, op):
    b = k.builder
    vdst = inst.dst[0]
    count = b.trunc(k.popcount(k.exec_bits()), I32)
    offset = b.add(b.and_(b.zext(b.load(k.sgpr_slot(M0)), I64), const(I64, 0xFFFF)),
                   const(I64, int(inst.mods.get("offset", 0))))
    lane0 = ir.Constant(k.VB, [True] + [False] * (k.lanes - 1))
    space = lds_space(k, k.splat(offset), lane0, 1, 4)
    lanes = space.lanes
    host = b.and_(lds_hosts(k, space), _u64(k, ~3))
    old = M.atomic(k, host, lanes, 32, op, k.splat(count))
    O.write_vgpr(k, vdst.index, k.splat(b.extract_element(old, const(I32, 0))))


@handles("ds_append")
def _ds_append(k, inst):
    _append(k, inst, "add")


@handles("ds_consume")
def _ds_consume(k, inst):
    _append(k, inst, "sub")
