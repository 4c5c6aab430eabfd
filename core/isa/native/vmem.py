"""Vector memory in translated code: GLOBAL, FLAT, SCRATCH and MUBUF loads, stores and atomics
(the interpreter's core/isa/interp/vmem.py, translated; formatted buffer access and MTBUF
stay on the interpreter).

Holds these invariants:
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
from core.isa.instruction import FLAT_SCRATCH_LO, Operand
from core.isa.native import operands as O
from core.isa.native import memory as M
from core.isa.native.families import HANDLERS
from core.isa.native import runner_layout as C
from core.isa.native.runner_layout import ENV, GROUP_LDS, SG_FAULT_MISALIGNED_ATOMIC
from core.isa.native.ir_types import I8, I32, I64, PTR, const
from core.isa.semantics.atomics import COMPARE_OPS
from core.isa.semantics.vmem import VMEM_OPS, Atomic, Load, Store, family as _family
from core.isa.semantics.vmem import named_operands as _named


class Space:
    """The lanes of one instruction that reach one space: element 0 addresses (device
    addresses when `checked`, host addresses of LDS otherwise), the lanes taking part, and
    how far apart a lane's elements lie (`stride`). `rows`: per element (addresses, lanes)
    when elements differ in their lanes (bounded buffers), else None. `base`: lane 0's
    address when the translator knows lane t's is `base` + 4 * t (scratch at a uniform
    offset); `addresses` is then None."""

    def __init__(self, addresses, lanes, stride, checked=True, rows=None, partial=None, lds=False,
                 halves=None, base=None):
        self.addresses = addresses  # LDS: byte offsets (<lanes x i32>) into the group's LDS
        self.halves = halves        # (lo, hi, offset) when addresses are a VGPR pair + offset
        self.base = base
        self.lanes = lanes
        self.stride = stride
        self.checked = checked
        self.rows = rows
        self.partial = partial      # LDS: lanes whose last elements fall outside LDS
        self.lds = lds


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


def _private(k, offsets, active, esize, wave_base=None):
    """Scratch: byte `off` of lane t lies at base + off // 4 * 4 * lanes + 4 * t + off % 4
    (the interleaved layout), so a lane's next dword is 4 * lanes bytes further."""
    b = k.builder
    if wave_base is None:
        wave_base = k.splat(flat_scratch(k))
    lane4 = b.mul(k.lane_ids(I64), _u64(k, 4))
    address = b.add(b.add(wave_base, b.mul(b.udiv(offsets, _u64(k, 4)), _u64(k, 4 * k.lanes))),
                    b.add(lane4, b.urem(offsets, _u64(k, 4))))
    return Space(address, active, 4 * k.lanes if esize == 4 else esize)


def _private_row(k, inst, saddr, active):
    """Scratch dwords at one offset in every lane (no VGPR address: -O0 spills, private
    arrays at fixed indices): lane t's dword is 4 * t bytes after lane 0's in the
    interleaved layout, so the access is a vector at a base known without testing the
    lanes' addresses at run time. That test, over 64-bit lanes, was most of the code an -O0
    kernel's spills made, and LLVM's -O0 code generation does not fold it away."""
    b = k.builder
    offset = const(I64, int(inst.mods.get("offset", 0)) & 0xFFFFFFFF)
    if saddr is not None and saddr.kind not in ("off", "null"):
        offset = b.and_(b.add(offset, b.zext(O.scalar(k, saddr), I64)), const(I64, 0xFFFFFFFF))
    row = b.add(b.mul(b.lshr(offset, const(I64, 2)), const(I64, 4 * k.lanes)), b.and_(offset, const(I64, 3)))
    return Space(None, active, 4 * k.lanes, base=b.add(flat_scratch(k), row))


def flat_scratch(k):
    """The wave's FLAT_SCRATCH (scratch base) as i64: gfx9 keeps it in the SGPR pair
    flat_scratch (operand codes 102:103), later targets in a register of their own."""
    if k.program.target.flat_scratch == "sgprs":
        return O.scalar(k, Operand("special", FLAT_SCRATCH_LO, 2), "b64")
    return k.builder.load(k.field("scratch"), typ=I64)


def lds_space(k, offsets, active, m, esize, stride=None):
    """LDS: reads outside it give 0 and writes are dropped, element by element. Offsets stay
    32-bit (LDS is at most 64 KiB), so its gathers take 16 lanes an instruction."""
    b = k.builder
    stride = esize if stride is None else stride
    off = b.trunc(offsets, k.V)
    last = b.and_(_fits(k, off, (m - 1) * stride + esize), active)
    partial = b.and_(active, b.and_(_fits(k, off, esize), b.not_(last))) if m > 1 else None
    return Space(off, last, stride, checked=False, partial=partial, lds=True)


def _fits(k, off, span):
    """Lanes whose `span` bytes from byte offset `off` lie inside the group's LDS."""
    b = k.builder
    size = b.load(b.gep(k.env, [const(I64, ENV["lds_bytes"])], source_etype=I8), typ=I64)
    room = b.select(b.icmp_unsigned(">=", size, const(I64, span)),
                    b.trunc(b.sub(size, const(I64, span)), I32), const(I32, 0))
    some = b.icmp_unsigned(">=", size, const(I64, span))
    return b.and_(b.icmp_unsigned("<=", off, k.splat(room)), k.splat(some))


def lds_hosts(k, space):
    """Host addresses (<lanes x i64>) of an LDS space's first elements (for atomics)."""
    b = k.builder
    base = b.ptrtoint(b.load(b.gep(k.group, [const(I64, GROUP_LDS)], source_etype=I8), typ=PTR), I64)
    return b.add(k.splat(base), b.zext(space.addresses, k.V64))


def resolve(k, inst, family, named, m, esize, active):
    """The Spaces of one instruction (GLOBAL, FLAT, SCRATCH, MUBUF addressing)."""
    b = k.builder
    if family == "GLOBAL":
        vaddr, saddr = named.get("addr"), named.get("saddr")
        halves = None
        if vaddr is not None and (saddr is None or saddr.kind in ("off", "null")):
            halves = (O.vgpr(k, vaddr.index), O.vgpr(k, vaddr.index + 1),
                      int(inst.mods.get("offset", 0)))
        elif vaddr is not None:
            halves = (O.vector(k, vaddr), O.scalar(k, saddr, "b64"), int(inst.mods.get("offset", 0)))
        return [Space(_global_base(k, inst, named), active, esize, halves=halves)]
    if family == "FLAT":
        address = _global_base(k, inst, {"addr": named["addr"]})
        hi = b.trunc(b.lshr(address, _u64(k, 32)), k.V)
        shared = b.and_(active, b.icmp_unsigned("==", hi, k.splat(const(I32, SHARED_APERTURE_HI))))
        private = b.and_(active, b.icmp_unsigned("==", hi, k.splat(const(I32, PRIVATE_APERTURE_HI))))
        rest = b.and_(active, b.not_(b.or_(shared, private)))
        low = b.and_(address, _u64(k, 0xFFFFFFFF))
        return [Space(address, rest, esize), lds_space(k, low, shared, m, esize),
                _private(k, low, private, esize)]
    if family == "SCRATCH":
        uniform = named.get("addr") is None or named["addr"].kind != "vgpr"
        if uniform and esize == 4:
            return [_private_row(k, inst, named.get("saddr"), active)]
        offset = _u64(k, int(inst.mods.get("offset", 0)) & 0xFFFFFFFF)
        if named.get("addr") is not None and named["addr"].kind == "vgpr":
            offset = b.add(offset, b.zext(O.vector(k, named["addr"]), k.V64))
        saddr = named.get("saddr")
        if saddr is not None and saddr.kind not in ("off", "null"):
            offset = b.add(offset, k.splat(b.zext(O.scalar(k, saddr), I64)))
        return [_private(k, b.and_(offset, _u64(k, 0xFFFFFFFF)), active, esize)]
    raise ValueError(f"{family} is not a resolved family")


def buffer_access(k, inst, named, m, esize, active, values=None, hosts=False):
    """A MUBUF access: loads (values None) return rows, stores write `values`; hosts=True only
    checks and returns (host addresses, lanes in bounds) for an atomic. The private segment
    buffer with a uniform offset (-O0 spills and private arrays) moves inline as masked rows;
    every other V# goes out of line (sg_native_buffer), with the interpreter's rules."""
    b = k.builder
    slot = O.slot_of(k, named["srsrc"])
    words = [b.load(k.sgpr_slot(slot + i)) for i in range(4)]
    soffset = O.scalar(k, named["soffset"])
    offset = int(inst.mods.get("offset", 0)) & 0xFFFFFFFF     # gfx12's may be negative
    offen, idxen = int(bool(inst.mods.get("offen"))), int(bool(inst.mods.get("idxen")))
    uniform = not offen and not idxen and esize == 4 and not hosts
    done = k.new_block("buffer_done")
    fast_rows, fast_end = [], None
    site = M.site(k)
    if uniform:
        w = [b.zext(x, I64) for x in words]
        private = b.and_(b.and_(b.icmp_unsigned("==", b.lshr(w[1], const(I64, 31)), const(I64, 1)),
                                b.icmp_unsigned("==", b.and_(b.lshr(w[1], const(I64, 16)), const(I64, 0x3FFF)),
                                                const(I64, 0))),
                         b.icmp_unsigned("==", b.and_(b.lshr(w[3], const(I64, 21)), const(I64, 7)),
                                         const(I64, 4 | (3 if k.lanes == 64 else 2))))
        base = b.or_(w[0], b.shl(b.and_(w[1], const(I64, 0xFFFF)), const(I64, 32)))
        row = b.add(b.add(base, b.zext(soffset, I64)),
                    const(I64, offset // 4 * 4 * k.lanes + offset % 4))
        inside, delta = M.within(k, site, row, b.add(row, const(I64, 4 * k.lanes * m)))
        quick = k.new_block("private_rows")
        slow = k.new_block("buffer_slow")
        b.cbranch(b.and_(private, inside), quick, slow)
        b.position_at_end(quick)
        host = b.sub(row, delta)
        for e in range(m):
            at = b.add(host, const(I64, 4 * k.lanes * e))
            if values is None:
                fast_rows.append(M.masked_load(k, at, active, k.V, 4))
            else:
                M.masked_store(k, at, active, values[e], 4)
        fast_end = b.block
        b.branch(done)
        b.position_at_end(slow)
    rsrc, lanes_buffer = k.buffer_scratch()
    for i, word in enumerate(words):
        b.store(word, b.gep(rsrc, [const(I64, 4 * i)], source_etype=I8))
    vaddr = named.get("vaddr")
    vindex = voffset = ir.Constant(PTR, None)
    if idxen or offen:
        b.store(O.vgpr(k, vaddr.index), lanes_buffer)
        if idxen and offen:
            second = b.gep(lanes_buffer, [const(I64, 4 * k.lanes)], source_etype=I8)
            b.store(O.vgpr(k, vaddr.index + 1), second)
            vindex, voffset = lanes_buffer, second
        elif idxen:
            vindex = lanes_buffer
        else:
            voffset = lanes_buffer
    addresses, data = k.scratch_buffers()
    bits = M.staged(k, data, values, active)
    flags = C.ACCESS_CHECK | (0 if hosts else C.ACCESS_LOAD if values is None else C.ACCESS_STORE)
    fn = k.intrinsic("sg_native_buffer", I32, [PTR, PTR, PTR, PTR, I32, I32, I32, I32, PTR, PTR,
                                                I64, I32, I32, I32, PTR, PTR, I32])
    lane = b.call(fn, [k.env, k.wave, site, rsrc, soffset, const(I32, offset), const(I32, offen),
                       const(I32, idxen), vindex, voffset, bits, const(I32, k.lanes), const(I32, m),
                       const(I32, esize), addresses if hosts else ir.Constant(PTR, None), data,
                       const(I32, flags)])
    M.reported_fault(k, lane)
    if hosts:
        host = b.load(addresses, typ=k.V64)
        b.branch(done)
        b.position_at_end(done)
        return host, b.and_(active, b.icmp_unsigned("!=", host, _u64(k, 0)))
    slow_rows = M.loaded_rows(k, data, m) if values is None else []
    slow_end = b.block
    b.branch(done)
    b.position_at_end(done)
    if values is not None:
        return []
    if not uniform:
        return slow_rows
    out = []
    for q, s_ in zip(fast_rows, slow_rows):
        phi = b.phi(k.V)
        phi.add_incoming(q, fast_end)
        phi.add_incoming(s_, slow_end)
        out.append(phi)
    return out


def load_space(k, space, m, esize):
    """The rows (list of <lanes x i32>) one space gives, 0 outside its lanes."""
    b = k.builder
    if space.rows is not None:
        return [M.access(k, at, lanes, 1, esize, check=space.checked)[0] for at, lanes in space.rows]
    if not space.lds:
        return M.access(k, space.addresses, space.lanes, m, esize, space.stride, check=space.checked,
                        halves=space.halves, base=space.base)
    rows = M.lds_access(k, space.addresses, space.lanes, m, esize, space.stride)
    if space.partial is not None:
        for e in range(m):
            at = b.add(space.addresses, k.splat(const(I32, e * space.stride)))
            lanes = b.and_(space.partial, _fits(k, at, esize))
            got = M.lds_access(k, at, lanes, 1, esize, esize)[0]
            rows[e] = b.select(lanes, got, rows[e])
    return rows


def lane_rows(space, m):
    """(lanes of element e) for each element, for merging loads of several spaces."""
    if space.rows is not None:
        return [lanes for _, lanes in space.rows]
    return [space.lanes] * m


def store_spaces(k, spaces, m, esize, values):
    """Store `values` (rows) through every space; every checked space is checked before any
    space stores (a fault writes nothing)."""
    b = k.builder
    if len(spaces) > 1:
        hosts = [M.checked(k, s.addresses, s.lanes, m, esize, s.stride) if s.checked else s.addresses
                 for s in spaces]
        spaces = [Space(h, s.lanes, s.stride, False, s.rows, s.partial, s.lds) for h, s in zip(hosts, spaces)]
    for space in spaces:
        if space.rows is not None:
            for (at, lanes), value in zip(space.rows, values):
                M.access(k, at, lanes, 1, esize, values=[value], check=space.checked)
            continue
        if not space.lds:
            M.access(k, space.addresses, space.lanes, m, esize, space.stride, values=values,
                     check=space.checked, halves=space.halves, base=space.base)
            continue
        M.lds_access(k, space.addresses, space.lanes, m, esize, space.stride, values)
        if space.partial is not None:
            for e in range(m):
                at = b.add(space.addresses, k.splat(const(I32, e * space.stride)))
                lanes = b.and_(space.partial, _fits(k, at, esize))
                M.lds_access(k, at, lanes, 1, esize, esize, [values[e]])


def _start(k, inst):
    """A memory instruction's family, its operands by role, and the lanes it acts for (EXEC)."""
    family = _family(inst)
    return family, _named(family, inst), k.exec_mask()


def _load(form):
    esize, count, signed, half = form

    def run(k, inst):
        b = k.builder
        family, named, active = _start(k, inst)
        if family == "MUBUF":
            results = buffer_access(k, inst, named, count, esize, active)
        else:
            results = [None] * count            # undefined until a space gives the lanes
            for space in resolve(k, inst, family, named, count, esize, active):
                rows = load_space(k, space, count, esize)
                results = [row if r is None else b.select(lanes, row, r)
                           for lanes, row, r in zip(lane_rows(space, count), rows, results)]
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
        family, named, active = _start(k, inst)
        data = named["data"]
        values = [O.vgpr(k, data.index + j) for j in range(count)]
        if high:
            values = [b.lshr(v, k.splat(const(I32, 16))) for v in values]
        if family == "MUBUF":
            buffer_access(k, inst, named, count, esize, active, values)
        else:
            store_spaces(k, resolve(k, inst, family, named, count, esize, active), count, esize, values)
    return run


def _atomic(record):
    op, wide = record
    words = 2 if wide else 1
    size = 8 if wide else 4
    compare = op in COMPARE_OPS

    def run(k, inst):
        b = k.builder
        family, named, active = _start(k, inst)
        data = named["data"]
        value = O.vgprs(k, data.index, words)
        cmp = O.vgprs(k, data.index + words, words) if compare else None
        if family == "MUBUF":
            targets = [buffer_access(k, inst, named, 1, size, active, hosts=True)]
        else:                                   # every lane is checked before any applies
            targets = [(lds_hosts(k, sp) if sp.lds else M.checked(k, sp.addresses, sp.lanes, 1, size),
                        sp.lanes) for sp in resolve(k, inst, family, named, 1, size, active)]
        for host, lanes in targets:
            misaligned = b.and_(lanes, b.icmp_unsigned("!=", b.urem(host, _u64(k, size)), _u64(k, 0)))
            _fault_first(k, misaligned, host)
        vtype = k.V64 if wide else k.V
        old = ir.Constant(vtype, None)
        for host, lanes in targets:
            got = M.atomic(k, host, lanes, 64 if wide else 32, op, value, cmp)
            old = b.select(lanes, got, old)
        vdst = named["vdst"]
        if vdst is not None and inst.mods.get("glc"):
            O.write_vgprs(k, vdst.index, old, words)
    return run


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
    emitters = {Load: _load, Store: _store, Atomic: _atomic}
    for mnemonic, record in VMEM_OPS.items():
        HANDLERS[mnemonic] = emitters[type(record)](record)


_register()
