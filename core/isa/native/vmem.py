"""Vector memory in translated code: GLOBAL, FLAT, SCRATCH and MUBUF loads, stores and atomics
(the interpreter's core/isa/interp/vmem.py, translated; formatted buffer access and MTBUF
stay on the interpreter).

Holds three invariants:
- addresses follow the encodings exactly as the interpreter resolves them: GLOBAL vaddr(64)
  + offset or saddr(64) + vaddr(32) + offset; FLAT addresses in the shared/private apertures
  go to LDS/scratch; SCRATCH and swizzled V#s (the private segment buffer among them) reach
  the wave's interleaved scratch, linear V#s address base + index * stride + offset with
  bounds (loads outside read 0, stores are dropped);
- every element of every active lane is checked (core/isa/native/memory.py) before any
  element of the instruction is stored, for every space it touches;
- sub-dword loads zero- or sign-extend, d16 loads write one half and keep the other, d16_hi
  stores take the high half; atomics return the pre-op value (glc) in lane order.
"""
import llvmlite.ir as ir

from core.isa.apertures import PRIVATE_APERTURE_HI, SHARED_APERTURE_HI
from core.isa.interp.vmem import ATOMICS, LOADS, STORES, _family, _named
from core.isa.native import operands as O
from core.isa.native import memory as M
from core.isa.native.families import HANDLERS
from core.isa.native.layout import ENV, GROUP_LDS, SG_FAULT_MISALIGNED_ATOMIC
from core.isa.native.translate import I8, I32, I64, PTR, const


class Access:
    """Element addresses of one instruction in one space, checked: `elements` is a list of
    (host address <lanes x i64>, lanes <lanes x i1>); `dense`: element j is element 0 plus
    4 * j with the same lanes (a candidate for whole-vector moves)."""

    def __init__(self, elements, dense=False):
        self.elements = elements
        self.dense = dense


def _u64(k, value):
    return k.splat(const(I64, value & 0xFFFFFFFFFFFFFFFF))


def _global_base(k, inst, named):
    b = k.builder
    vaddr, saddr = named.get("addr"), named.get("saddr")
    if vaddr is None:                                   # *_addtid: saddr + 4 * lane
        base = b.add(k.splat(O.scalar(k, saddr, "b64")), b.mul(k.lane_ids(I64), _u64(k, 4)))
    elif saddr is None or saddr.kind in ("off", "null"):
        base = O.vector(k, vaddr, "b64")
    else:
        base = b.add(k.splat(O.scalar(k, saddr, "b64")), b.zext(O.vector(k, vaddr), k.V64))
    return b.add(base, _u64(k, int(inst.mods.get("offset", 0))))


def _linear(k, addresses, active, m, esize):
    """Checked global access of m elements of esize bytes from each lane's address."""
    host = M.check(k, addresses, active, m, esize)
    step = _u64(k, esize)
    elements = []
    at = host
    for _ in range(m):
        elements.append((at, active))
        at = k.builder.add(at, step)
    return Access(elements, dense=esize == 4)


def _private(k, offsets, active, m, esize, wave_base=None):
    """Checked scratch access: byte `off` of lane t lies at base + off // 4 * 4 * lanes +
    4 * t + off % 4 (the interleaved layout), per element."""
    b = k.builder
    if wave_base is None:
        wave_base = k.splat(b.load(k.field("scratch"), typ=I64))
    lane4 = b.mul(k.lane_ids(I64), _u64(k, 4))
    elements = []
    for j in range(m):
        off = b.add(offsets, _u64(k, j * esize))
        address = b.add(b.add(wave_base, b.mul(b.udiv(off, _u64(k, 4)), _u64(k, 4 * k.lanes))),
                        b.add(lane4, b.urem(off, _u64(k, 4))))
        elements.append((M.check(k, address, active, 1, esize), active))
    return Access(elements)


def _lds(k, offsets, active, m, esize, stride=None):
    """LDS access: in-range elements only (reads outside give 0, writes are dropped)."""
    b = k.builder
    lds = b.ptrtoint(b.load(b.gep(k.group, [const(I64, GROUP_LDS)], source_etype=I8), typ=PTR), I64)
    size = k.splat(b.load(b.gep(k.env, [const(I64, ENV["lds_bytes"])], source_etype=I8), typ=I64))
    off = b.and_(offsets, _u64(k, 0xFFFFFFFF))
    elements = []
    for j in range(m):
        at = b.add(off, _u64(k, j * (esize if stride is None else stride)))
        ok = b.icmp_unsigned("<=", b.add(at, _u64(k, esize)), size)
        elements.append((b.add(k.splat(lds), at), b.and_(active, ok)))
    return Access(elements)


def resolve(k, inst, family, named, m, esize, active):
    """The checked Accesses of one instruction (one per space it touches)."""
    b = k.builder
    if family == "GLOBAL":
        return [_linear(k, _global_base(k, inst, named), active, m, esize)]
    if family == "FLAT":
        address = _global_base(k, inst, {"addr": named["addr"]})
        hi = b.trunc(b.lshr(address, _u64(k, 32)), k.V)
        shared = b.and_(active, b.icmp_unsigned("==", hi, k.splat(const(I32, SHARED_APERTURE_HI))))
        private = b.and_(active, b.icmp_unsigned("==", hi, k.splat(const(I32, PRIVATE_APERTURE_HI))))
        rest = b.and_(active, b.not_(b.or_(shared, private)))
        low = b.and_(address, _u64(k, 0xFFFFFFFF))
        return [_linear(k, address, rest, m, esize), _lds(k, low, shared, m, esize),
                _private(k, low, private, m, esize)]
    if family == "SCRATCH":
        offset = _u64(k, int(inst.mods.get("offset", 0)) & 0xFFFFFFFF)
        if named.get("addr") is not None and named["addr"].kind == "vgpr":
            offset = b.add(offset, b.zext(O.vector(k, named["addr"]), k.V64))
        saddr = named.get("saddr")
        if saddr is not None and saddr.kind not in ("off", "null"):
            offset = b.add(offset, k.splat(b.zext(O.scalar(k, saddr), I64)))
        return [_private(k, b.and_(offset, _u64(k, 0xFFFFFFFF)), active, m, esize)]
    return [_buffer(k, inst, named, m, esize, active)]


def _buffer(k, inst, named, m, esize, active):
    b = k.builder
    slot = O.slot_of(k, named["srsrc"])
    words = [b.zext(b.load(k.sgpr_slot(slot + i)), I64) for i in range(4)]
    base = b.or_(words[0], b.shl(b.and_(words[1], const(I64, 0xFFFF)), const(I64, 32)))
    stride = b.and_(b.lshr(words[1], const(I64, 16)), const(I64, 0x3FFF))
    swizzle = b.trunc(b.lshr(words[1], const(I64, 31)), ir.IntType(1))
    records = words[2]
    index_stride = b.shl(const(I64, 8), b.and_(b.lshr(words[3], const(I64, 21)), const(I64, 3)))
    add_tid = b.and_(b.lshr(words[3], const(I64, 23)), const(I64, 1))
    soffset = b.zext(O.scalar(k, named["soffset"]), I64)
    vaddr = named.get("vaddr")
    offset = _u64(k, int(inst.mods.get("offset", 0)))
    index = _u64(k, 0)
    if inst.mods.get("idxen") and inst.mods.get("offen"):
        index = b.zext(O.vector(k, vaddr), k.V64)
        offset = b.add(offset, b.zext(O.vgpr(k, vaddr.index + 1), k.V64))
    elif inst.mods.get("idxen"):
        index = b.zext(O.vector(k, vaddr), k.V64)
    elif inst.mods.get("offen"):
        offset = b.add(offset, b.zext(O.vector(k, vaddr), k.V64))
    index = b.add(index, b.mul(k.splat(add_tid), k.lane_ids(I64)))
    start = k.splat(b.add(base, soffset))
    stride_v, records_v, istride = k.splat(stride), k.splat(records), k.splat(index_stride)
    four = _u64(k, 4)
    elements = []
    for j in range(m):
        off = b.add(offset, _u64(k, j * esize))
        swizzled = b.add(start, b.add(
            b.mul(b.add(b.mul(b.udiv(index, istride), stride_v), b.mul(b.udiv(off, four), four)), istride),
            b.add(b.mul(b.urem(index, istride), four), b.urem(off, four))))
        linear = b.add(start, b.add(b.mul(index, stride_v), off))
        bounded = b.select(b.icmp_unsigned("==", stride_v, _u64(k, 0)),
                           b.icmp_unsigned("<=", b.add(off, _u64(k, esize)), records_v),
                           b.and_(b.icmp_unsigned("<", index, records_v), b.icmp_unsigned("<", off, stride_v)))
        lanes = b.select(swizzle, active, b.and_(active, bounded))
        address = b.select(swizzle, swizzled, linear)
        elements.append((address, lanes))
    return Access([(M.check(k, address, lanes, 1, esize), lanes) for address, lanes in elements])


def _load(form):
    esize, count, signed, half = form

    def run(k, inst):
        b = k.builder
        family = _family(inst)
        named = _named(family, inst)
        active = k.exec_mask()
        results = [ir.Constant(k.V, None)] * count
        for access in resolve(k, inst, family, named, count, esize, active):
            if access.dense:
                host, lanes = access.elements[0]
                values = M.load_dwords(k, host, lanes, count)
            else:
                values = [M.gather(k, host, lanes, esize) for host, lanes in access.elements]
            results = [b.select(access.elements[j][1], values[j], results[j]) for j in range(count)]
        if signed:
            sign = k.splat(const(I32, 1 << (8 * esize - 1)))
            results = [b.sub(b.xor(r, sign), sign) for r in results]
            if half:
                results = [b.and_(r, k.splat(const(I32, 0xFFFF))) for r in results]
        vdst = named["vdst"]
        if half:
            O.write_vgpr(k, vdst.index, O.merge16(k, O.vgpr(k, vdst.index), results[0], half == "hi"))
            return
        for j in range(count):
            O.write_vgpr(k, vdst.index + j, results[j])
    return run


def _store(form):
    esize, count, high = form

    def run(k, inst):
        b = k.builder
        family = _family(inst)
        named = _named(family, inst)
        active = k.exec_mask()
        data = named["data"]
        values = [O.vgpr(k, data.index + j) for j in range(count)]
        if high:
            values = [b.lshr(v, k.splat(const(I32, 16))) for v in values]
        accesses = resolve(k, inst, family, named, count, esize, active)
        for access in accesses:
            if access.dense:
                host, lanes = access.elements[0]
                M.store_dwords(k, host, lanes, values)
            else:
                for (host, lanes), value in zip(access.elements, values):
                    M.scatter(k, host, lanes, esize, value)
    return run


def _atomic(op, wide):
    words = 2 if wide else 1
    size = 8 if wide else 4
    compare = op in ("cmpswap", "fcmpswap")

    def run(k, inst):
        b = k.builder
        family = _family(inst)
        named = _named(family, inst)
        active = k.exec_mask()
        data = named["data"]
        value = _wide(k, data.index, words)
        cmp = _wide(k, data.index + words, words) if compare else None
        accesses = resolve(k, inst, family, named, 1, size, active)
        for access in accesses:              # every lane is checked before any applies
            host, lanes = access.elements[0]
            misaligned = b.and_(lanes, b.icmp_unsigned("!=", b.urem(host, _u64(k, size)), _u64(k, 0)))
            _fault_first(k, misaligned, host)
        vtype = k.V64 if wide else k.V
        old = ir.Constant(vtype, None)
        for access in accesses:
            host, lanes = access.elements[0]
            got = M.atomic(k, host, lanes, 64 if wide else 32, op, value, cmp)
            old = b.select(lanes, got, old)
        vdst = named["vdst"]
        if vdst is not None and inst.mods.get("glc"):
            if wide:
                O.write_vgpr(k, vdst.index, b.trunc(old, k.V))
                O.write_vgpr(k, vdst.index + 1, b.trunc(b.lshr(old, _u64(k, 32)), k.V))
            else:
                O.write_vgpr(k, vdst.index, old)
    return run


def _wide(k, reg, words):
    b = k.builder
    lo = O.vgpr(k, reg)
    if words == 1:
        return lo
    return b.or_(b.zext(lo, k.V64), b.shl(b.zext(O.vgpr(k, reg + 1), k.V64), _u64(k, 32)))


def _fault_first(k, bad, host):
    """Fault as a misaligned atomic at the first lane of `bad`. The reported address is the
    device address: host addresses equal device ones except for locked host memory."""
    b = k.builder
    bits = b.bitcast(bad, k.MASK)
    lane = k.call(f"llvm.cttz.i{k.lanes}", k.MASK, [bits, ir.Constant(ir.IntType(1), 0)])
    lane32 = b.trunc(lane, I32) if k.lanes == 64 else lane
    address = b.extract_element(host, lane32)
    k.fault(SG_FAULT_MISALIGNED_ATOMIC, lane=lane32, address=address,
            detail=k.reason("misaligned atomic"), condition=k.any_lane(bad))


def _register():
    for prefix in ("global", "flat", "scratch", "buffer"):
        for suffix, form in LOADS.items():
            HANDLERS[f"{prefix}_load_{suffix}"] = _load(form)
        for suffix, form in STORES.items():
            HANDLERS[f"{prefix}_store_{suffix}"] = _store(form)
        if prefix == "global":
            HANDLERS["global_load_dword_addtid"] = _load(LOADS["dword"])
            HANDLERS["global_store_dword_addtid"] = _store(STORES["dword"])
        if prefix == "scratch":
            continue
        for suffix, op in ATOMICS.items():
            HANDLERS[f"{prefix}_atomic_{suffix}"] = _atomic(op, False)
            HANDLERS[f"{prefix}_atomic_{suffix}_x2"] = _atomic(op, True)


_register()
