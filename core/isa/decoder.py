"""gfx1030 machine code -> Instruction records.

Invariants:
- decoding is a pure function of the bytes, the address and the wave size; every family is
  told apart by its fixed high bits and every opcode is one dict lookup in the generated
  tables (core/isa/opcodes_gfx1030.py), so nothing here knows mnemonics by heart except
  the few operand roles the encoding leaves implicit (which SOPK/memory operand is read);
- bytes llvm would not decode raise DecodeError, never a half-built record;
- `size` always covers the literal / DPP / SDWA dword, so address + size is the next PC.
"""
import numpy as np

from core.isa import mimg
from core.isa.instruction import Instruction, Mods, NO_MODS, Operand, INV_2PI
from core.isa.opcodes_gfx1030 import TABLES


class DecodeError(ValueError):
    """The bytes at an address are not a gfx1030 instruction llvm knows."""


_INLINE_FLOATS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0,
                  247: -4.0, 248: INV_2PI}
_SPECIAL_CODES = frozenset((106, 107, 124, 126, 127, 235, 236, 237, 238, 239, 251, 252, 253,
                            254))
LITERAL, DPP8, DPP8_FI, SDWA, DPP16 = 255, 233, 234, 249, 250
NULL_CODE = 125


def _make_operand(code, width):
    if (code < 106 or 108 <= code <= 123) and width > 1:
        code &= ~1 if width == 2 else ~3    # scalar tuples are aligned; hardware drops low bits
    if code < 106:
        return Operand("sgpr", code, width)
    if 108 <= code <= 123:
        return Operand("ttmp", code - 108, width)
    if code == NULL_CODE:
        return Operand("null", NULL_CODE, width)
    if code in _SPECIAL_CODES:
        return Operand("special", code, width)
    if 128 <= code <= 192:
        return Operand("inline_int", code, width, code - 128)
    if 193 <= code <= 208:
        return Operand("inline_int", code, width, 192 - code)
    if code in _INLINE_FLOATS:
        return Operand("inline_float", code, width, _INLINE_FLOATS[code])
    if code >= 256:
        return Operand("vgpr", code - 256, width)
    raise DecodeError(f"operand code {code} is reserved")


_OPERANDS = {}


def source(code, width=1, literal=None):
    """The operand a 9-bit source field names (sgprs 0-105, vgprs at 256+), cached."""
    if code == LITERAL:
        if literal is None:
            raise DecodeError("literal operand without its dword")
        return Operand("literal", LITERAL, width, literal)
    key = code << 5 | width
    op = _OPERANDS.get(key)
    if op is None:
        op = _OPERANDS[key] = _make_operand(code, width)
    return op


def vgpr(number, width=1):
    return source(256 + number, width)


def _dword(mem, offset):
    if offset + 4 > len(mem):
        raise DecodeError("instruction runs past the end of the code")
    return int.from_bytes(bytes(mem[offset:offset + 4]), "little")


def _entry(family, op):
    entry = _TABLES.get(family, {}).get(op)
    if entry is None:
        raise DecodeError(f"{family} opcode {op} is not a gfx1030 instruction")
    return entry


class _Entry:
    """One opcode's table row, with the operand list pre-split by role."""
    __slots__ = ("name", "suffix", "ops", "half", "half_int", "forms", "imm", "implicit",
                 "vgpr_only", "mods")

    def __init__(self, family, row):
        self.name = row["name"]
        self.suffix = row["suffix"]
        self.ops = row["ops"]
        self.half = frozenset(row.get("half", ()))
        self.forms = frozenset(row.get("forms", ()))
        self.imm = row.get("imm")
        self.vgpr_only = row.get("vgpr_only", ())
        self.half_int = frozenset(row.get("half_int", ()))
        self.mods = row.get("mods", {})
        src, dst = _implicit(family, self.name)
        # wave64 -> (implicit sources, implicit destinations) as operands
        self.implicit = {w: (tuple(_fixed(t, w) for t in src), tuple(_fixed(t, w) for t in dst))
                         for w in (False, True)}


def _implicit(family, name):
    """Registers an opcode reads or writes that llvm does not print (names resolved per wave
    size by `_fixed`). Registers llvm prints (vcc_lo of VOPC e32) are ordinary operands."""
    src, dst = [], []
    if name.startswith("v_cmpx_"):
        dst.append("exec")
    if name in ("s_cbranch_vccz", "s_cbranch_vccnz"):
        src.append("vcc")
    if name in ("s_cbranch_execz", "s_cbranch_execnz"):
        src.append("exec")
    if name in ("s_cbranch_scc0", "s_cbranch_scc1", "s_cmovk_i32", "s_cmov_b32",
                "s_cmov_b64", "s_cselect_b32", "s_cselect_b64", "s_addc_u32", "s_subb_u32"):
        src.append("scc")
    if name.startswith(("v_movrel", "s_movrel", "v_swaprel")):
        src.append("m0")
    return tuple(src), tuple(dst)


def _fixed(text, wave64):
    """A fixed register llvm prints ('=vcc_lo|vcc') or an implicit one ('vcc', 'exec')."""
    name = text.lstrip("=")
    if "|" in name:
        name = name.split("|")[1 if wave64 else 0]
    if name in ("vcc", "exec"):
        return Operand("special", 106 if name == "vcc" else 126, 2 if wave64 else 1)
    if name == "vcc_lo":
        return Operand("special", 106, 1)
    if name == "exec_lo":
        return Operand("special", 126, 1)
    if name == "scc":
        return Operand("special", 253, 1)
    if name == "m0":
        return Operand("special", 124, 1)
    raise DecodeError(f"unexpected fixed operand {text}")


_TABLES = {family: {op: _Entry(family, row) for op, row in rows.items()}
           for family, rows in TABLES.items()}


def _implicit_ops(entry, wave64):
    return entry.implicit[wave64]


def _sext(value, bits):
    sign = 1 << (bits - 1)
    return (value & (sign - 1)) - (value & sign)


# ---- scalar families -------------------------------------------------------------------

def _scalar_fields(entry, fields, wave64, literal):
    """dst and src operands of SOP1/SOP2/SOPC from the printed operand list."""
    dst, src = [], []
    for field, _file, w32, w64 in entry.ops:
        width = w64 if wave64 else w32
        if field == "sdst":
            dst.append(source(fields["sdst"], width))
        else:
            src.append(source(fields[field], width, literal))
    return tuple(dst), tuple(src)


def _sop(encoding, op, fields, mem, offset, address, wave64):
    entry = _entry(encoding, op)
    literal, size = None, 4
    if LITERAL in (fields.get("src0"), fields.get("src1")):
        literal, size = _dword(mem, offset + 4), 8
    dst, src = _scalar_fields(entry, fields, wave64, literal)
    isrc, idst = _implicit_ops(entry, wave64)
    return Instruction(address, size, encoding, op, entry.name, "", dst, src, NO_MODS, idst,
                       isrc, wave64)


_SOPK_READS = ("s_cmpk_", "s_setreg_b32", "s_waitcnt_")
_SOPK_BOTH = ("s_addk_i32", "s_mulk_i32", "s_subvector_loop_begin", "s_subvector_loop_end")


def _sopk(w, mem, offset, address, wave64):
    op = (w >> 23) & 0x1F
    entry = _entry("SOPK", op)
    sdst, simm = (w >> 16) & 0x7F, w & 0xFFFF
    name, size = entry.name, 4
    mods = {"simm16": simm}
    dst, src = [], []
    for field, _file, w32, w64 in entry.ops:
        if field == "sdst":
            reg = source(sdst, w64 if wave64 else w32)
            if name.startswith(_SOPK_READS):
                src.append(reg)
            elif name in _SOPK_BOTH:
                dst.append(reg)
                src.append(reg)
            else:
                dst.append(reg)
    if entry.imm == "hwreg":
        mods["hwreg"] = (simm & 0x3F, (simm >> 6) & 0x1F, ((simm >> 11) & 0x1F) + 1)
        if name == "s_setreg_imm32_b32":
            src.append(Operand("literal", LITERAL, 1, _dword(mem, offset + 4)))
            size = 8
    elif name in ("s_call_b64", "s_subvector_loop_begin", "s_subvector_loop_end"):
        src.append(Operand("label", 0, 1, address + 4 + _sext(simm, 16) * 4))
    else:
        value = _sext(simm, 16) if name.endswith("_i32") else simm   # *_u32: zero-extended
        src.append(Operand("inline_int", 0, 1, value))
    return Instruction(address, size, "SOPK", op, name, "", tuple(dst), tuple(src), Mods(mods),
                       (), (), wave64)


def _sopp(w, mem, offset, address, wave64):
    op = (w >> 16) & 0x7F
    entry = _entry("SOPP", op)
    simm = w & 0xFFFF
    src = ()
    if entry.imm == "dec" and "branch" in entry.name:
        src = (Operand("label", 0, 1, address + 4 + _sext(simm, 16) * 4),)
    elif entry.imm != "none" and not (entry.imm == "dec0" and simm == 0):
        src = (Operand("inline_int", 0, 1, simm),)
    isrc, idst = _implicit_ops(entry, wave64)
    return Instruction(address, 4, "SOPP", op, entry.name, "", (), src, Mods({"simm16": simm}),
                       idst, isrc, wave64)


def _smem(w, mem, offset, address, wave64):
    op = (w >> 18) & 0xFF
    entry = _entry("SMEM", op)
    w1 = _dword(mem, offset + 4)
    sdata, sbase = (w >> 6) & 0x7F, (w & 0x3F) * 2
    soffset = (w1 >> 25) & 0x7F
    mods = {"offset": _sext(w1 & 0x1FFFFF, 21), "glc": (w >> 16) & 1, "dlc": (w >> 14) & 1,
            "soffset": soffset, "sdata": sdata}
    dst, src = [], []
    for field, _file, w32, _w64 in entry.ops:
        if field == "sdata":
            dst.append(source(sdata, w32))
        elif field == "sbase":
            src.append(source(sbase, w32))
    if src and soffset != NULL_CODE:
        src.append(source(soffset, 1))
    return Instruction(address, 8, "SMEM", op, entry.name, "", tuple(dst), tuple(src),
                       Mods(mods), (), (), wave64)


# ---- vector ALU families ---------------------------------------------------------------

def _vop_operands(entry, fields, wave64, literal):
    """dst/src in printed order; fixed registers llvm prints (vcc) before the first source
    are written, after it read: they are ordinary operands, never also implicit ones."""
    for field in entry.vgpr_only:
        fields[field] = 256 | (fields[field] & 0xFF)
    dst, src = [], []
    seen_src = False
    for field, file, w32, w64 in entry.ops:
        width = w64 if wave64 else w32
        if field.startswith("="):
            (src if seen_src else dst).append(_fixed(field, wave64))
        elif field == "simm32":
            src.append(Operand("literal", LITERAL, 1, literal))
            seen_src = True
        elif field in ("vdst", "sdst"):
            dst.append(source(fields[field], width))
        elif field == "param":                 # v_interp_mov_f32_e64: p10, p20 or p0
            seen_src = True
            src.append(Operand("inline_int", 0, 1, fields["src1"]))
        elif field == "attr":
            seen_src = True
            src.append(Operand("attr", fields["src0"] & 0x3F, 1, (fields["src0"] >> 6) & 3))
        else:
            seen_src = True
            src.append(source(fields[field], width, literal))
    return tuple(dst), tuple(src)


def _dst_code(entry, raw):
    """The 8-bit vdst field as a source code: a VGPR, or an SGPR where llvm printed one
    (v_readfirstlane_b32, v_readlane_b32, VOPC compares in VOP3)."""
    file = next((f for name, f, *_ in entry.ops if name == "vdst"), "v")
    return raw if file == "s" else 256 + raw


def _vop_short(encoding, op, w, fields, mem, offset, address, wave64):
    """VOP1/VOP2/VOPC: e32, or DPP16/DPP8/SDWA when src0 names those extensions."""
    entry = _entry(encoding, op)
    src0 = fields["src0"]
    size, literal, form, mods = 4, None, "e32", NO_MODS
    if src0 in (DPP16, DPP8, DPP8_FI, SDWA) and not entry.vgpr_only and entry.forms:
        ext = _dword(mem, offset + 4)
        size = 8
        fields["src0"] = 256 + (ext & 0xFF)
        if src0 == DPP16:
            form = "dpp"
            neg = (ext >> 20) & 1 | (ext >> 21) & 2
            mods = Mods({"dpp_ctrl": (ext >> 8) & 0x1FF, "fi": (ext >> 18) & 1,
                         "bound_ctrl": (ext >> 19) & 1, "neg": neg,
                         "abs": (ext >> 21) & 1 | (ext >> 22) & 2,
                         # integer sources read the neg bits as sign extension
                         "src0_sext": neg & 1, "src1_sext": neg >> 1,
                         "bank_mask": (ext >> 24) & 0xF, "row_mask": (ext >> 28) & 0xF})
        elif src0 in (DPP8, DPP8_FI):
            form = "dpp8"
            mods = Mods({"dpp8": tuple((ext >> (8 + 3 * i)) & 7 for i in range(8)),
                         "fi": int(src0 == DPP8_FI)})
        else:
            form = "sdwa"
            if ext >> 23 & 1:                 # S0: src0 names a scalar register
                fields["src0"] = ext & 0xFF
            if "src1" in fields and ext >> 31 & 1:
                fields["src1"] -= 256
            m = {"src0_sel": (ext >> 16) & 7, "src0_sext": (ext >> 19) & 1,
                 "src1_sel": (ext >> 24) & 7, "src1_sext": (ext >> 27) & 1,
                 "neg": (ext >> 20) & 1 | (ext >> 27) & 2, "abs": (ext >> 21) & 1 | (ext >> 28) & 2}
            if encoding == "VOPC":
                m["sdst"] = (ext >> 8) & 0x7F if ext >> 15 & 1 else None
            else:
                m.update(dst_sel=(ext >> 8) & 7, dst_unused=(ext >> 11) & 3,
                         clamp=(ext >> 13) & 1, omod=(ext >> 14) & 3)
            if 7 in (m["src0_sel"], m["src1_sel"], m.get("dst_sel")) or m.get("dst_unused") == 3:
                raise DecodeError(f"{entry.name}_sdwa: reserved select or dst_unused value")
            mods = Mods(m)
        if form not in entry.forms:
            raise DecodeError(f"{entry.name} has no {form} form")
    elif src0 == LITERAL or any(f == "simm32" for f, *_ in entry.ops):
        literal, size = _dword(mem, offset + 4), 8
    if "vdst" in fields:
        fields["vdst"] = _dst_code(entry, fields["vdst"])
    dst, src = _vop_operands(entry, fields, wave64, literal)
    if form == "sdwa" and encoding == "VOPC" and mods["sdst"] is not None:
        dst = (source(mods["sdst"], 2 if wave64 else 1),)
    isrc, idst = _implicit_ops(entry, wave64)
    return Instruction(address, size, encoding, op, entry.name, form, dst, src, mods, idst,
                       isrc, wave64)


def _vop1(w, mem, offset, address, wave64):
    fields = {"vdst": (w >> 17) & 0xFF, "src0": w & 0x1FF}
    return _vop_short("VOP1", (w >> 9) & 0xFF, w, fields, mem, offset, address, wave64)


def _vop2(w, mem, offset, address, wave64):
    fields = {"vdst": (w >> 17) & 0xFF, "src0": w & 0x1FF, "src1": 256 + ((w >> 9) & 0xFF)}
    return _vop_short("VOP2", (w >> 25) & 0x3F, w, fields, mem, offset, address, wave64)


def _vopc(w, mem, offset, address, wave64):
    fields = {"src0": w & 0x1FF, "src1": 256 + ((w >> 9) & 0xFF)}
    return _vop_short("VOPC", (w >> 17) & 0xFF, w, fields, mem, offset, address, wave64)


def _vop3(w, mem, offset, address, wave64):
    op = (w >> 16) & 0x3FF
    w1 = _dword(mem, offset + 4)
    fields = {"src0": w1 & 0x1FF, "src1": (w1 >> 9) & 0x1FF, "src2": (w1 >> 18) & 0x1FF}
    size, literal = 8, None
    if LITERAL in fields.values():
        literal, size = _dword(mem, offset + 8), 12
    b = _TABLES["VOP3B"].get(op)
    mods = {"clamp": (w >> 15) & 1, "omod": (w1 >> 27) & 3, "neg": (w1 >> 29) & 7}
    if b is not None:
        entry, encoding = b, "VOP3B"
        fields["sdst"] = (w >> 8) & 0x7F
        mods["abs"], mods["op_sel"] = 0, 0
    else:
        entry, encoding = _entry("VOP3", op), "VOP3"
        mods["abs"], mods["op_sel"] = (w >> 8) & 7, (w >> 11) & 0xF
    fields["vdst"] = _dst_code(entry, w & 0xFF)
    if any(f == "attr" for f, *_ in entry.ops):
        mods["high"] = fields["src0"] >> 8 & 1      # v_interp_*_e64: the attribute's high half
    dst, src = _vop_operands(entry, fields, wave64, literal)
    isrc, idst = _implicit_ops(entry, wave64)
    return Instruction(address, size, encoding, op, entry.name, "e64", dst, src, Mods(mods),
                       idst, isrc, wave64)


def _vop3p(w, mem, offset, address, wave64):
    op = (w >> 16) & 0x7F
    entry = _entry("VOP3P", op)
    w1 = _dword(mem, offset + 4)
    fields = {"src0": w1 & 0x1FF, "src1": (w1 >> 9) & 0x1FF, "src2": (w1 >> 18) & 0x1FF,
              "vdst": 256 + (w & 0xFF)}
    size, literal = 8, None
    if LITERAL in fields.values():
        literal, size = _dword(mem, offset + 8), 12
    mods = {"neg_hi": (w >> 8) & 7, "op_sel": (w >> 11) & 7,
            "op_sel_hi": (w1 >> 27) & 3 | ((w >> 14) & 1) << 2, "clamp": (w >> 15) & 1,
            "neg": (w1 >> 29) & 7}
    dst, src = _vop_operands(entry, fields, wave64, literal)
    return Instruction(address, size, "VOP3P", op, entry.name, "", dst, src, Mods(mods), (), (),
                       wave64)


# ---- memory families -------------------------------------------------------------------

def _ds(w, mem, offset, address, wave64):
    op = (w >> 18) & 0xFF
    entry = _entry("DS", op)
    w1 = _dword(mem, offset + 4)
    regs = {"addr": w1 & 0xFF, "data0": (w1 >> 8) & 0xFF, "data1": (w1 >> 16) & 0xFF,
            "vdst": (w1 >> 24) & 0xFF}
    dst, src = [], []
    for field, _file, w32, _w64 in entry.ops:
        (dst if field == "vdst" else src).append(vgpr(regs[field], w32))
    mods = {"offset0": w & 0xFF, "offset1": (w >> 8) & 0xFF, "gds": (w >> 17) & 1,
            "offset": w & 0xFFFF}
    return Instruction(address, 8, "DS", op, entry.name, "", tuple(dst), tuple(src),
                       Mods(mods), (), (), wave64)


_SEGMENTS = ("FLAT", "SCRATCH", "GLOBAL")


def _flat(w, mem, offset, address, wave64):
    seg = (w >> 14) & 3
    if seg == 3:
        raise DecodeError("FLAT segment 3 is reserved")
    encoding = _SEGMENTS[seg]
    op = (w >> 18) & 0x7F
    entry = _entry(encoding, op)
    w1 = _dword(mem, offset + 4)
    addr, data, saddr, vdst = w1 & 0xFF, (w1 >> 8) & 0xFF, (w1 >> 16) & 0x7F, (w1 >> 24) & 0xFF
    glc = (w >> 16) & 1
    raw = w & 0xFFF
    mods = {"offset": raw if encoding == "FLAT" else _sext(raw, 12), "glc": glc,
            "slc": (w >> 17) & 1, "dlc": (w >> 12) & 1, "lds": (w >> 13) & 1, "seg": seg,
            "saddr_off": int(saddr in (NULL_CODE, 0x7F)), "vaddr_off": int(saddr == 0x7F),
            "addtid": int(entry.name.endswith("_addtid"))}
    dst, src = [], []
    data_width = 1
    for field, _file, w32, _w64 in entry.ops:
        if field == "vdst":
            dst.append(vgpr(vdst, w32))
        elif field == "data":
            data_width = w32
            src.append(vgpr(data, w32))
    if "atomic" in entry.name and glc and not dst:
        dst.append(vgpr(vdst, data_width // 2 if "cmpswap" in entry.name else data_width))
    if saddr == 0x7F and encoding != "SCRATCH" or encoding == "FLAT" and saddr != NULL_CODE:
        raise DecodeError(f"{entry.name}: saddr {saddr} is not allowed")
    addr_ops = []
    if mods["vaddr_off"]:               # scratch with neither vaddr nor saddr: offset only
        pass
    elif mods["addtid"]:                  # *_addtid: the lane id is the address, saddr the base
        addr_ops.append(source(saddr, 2))
    elif encoding == "FLAT":
        addr_ops.append(vgpr(addr, 2))
    elif encoding == "GLOBAL":
        if mods["saddr_off"]:
            addr_ops.append(vgpr(addr, 2))
        else:
            addr_ops += [vgpr(addr, 1), source(saddr, 2)]
    else:
        if mods["saddr_off"]:
            addr_ops.append(vgpr(addr, 1))
        else:
            addr_ops.append(source(saddr, 1))
    return Instruction(address, 8, encoding, op, entry.name, "", tuple(dst),
                       tuple(addr_ops) + tuple(src), Mods(mods), (), (), wave64)


def _buffer_common(encoding, op, entry, w, w1, address, wave64, extra, literal=None):
    if not entry.ops:                   # buffer_gl0_inv, buffer_gl1_inv
        return Instruction(address, 8, encoding, op, entry.name, "", (), (), NO_MODS, (), (),
                           wave64)
    vaddr, vdata = w1 & 0xFF, (w1 >> 8) & 0xFF
    offen, idxen, glc = (w >> 12) & 1, (w >> 13) & 1, (w >> 14) & 1
    mods = {"offset": w & 0xFFF, "offen": offen, "idxen": idxen, "glc": glc,
            "dlc": (w >> 15) & 1, "slc": (w1 >> 22) & 1, "tfe": (w1 >> 23) & 1, **extra}
    width = next((w32 for f, _fl, w32, _ in entry.ops if f == "vdata"), 1)
    name = entry.name
    addr_ops = []
    if offen or idxen:
        addr_ops.append(vgpr(vaddr, offen + idxen))
    addr_ops += [source(((w1 >> 16) & 0x1F) * 4, 4), source(w1 >> 24, 1, literal)]
    data = vgpr(vdata, width)
    if "store" in name:
        dst, src = (), (data,)
    elif "atomic" in name:
        src = (data,)
        dst = (vgpr(vdata, width // 2 if "cmpswap" in name else width),) if glc else ()
    elif any(f == "vdata" for f, *_ in entry.ops):
        dst, src = (data,), ()
    else:
        dst, src = (), ()
    mods["lds"] = (w >> 16) & 1 if encoding == "MUBUF" else 0
    return Instruction(address, 8 if literal is None else 12, encoding, op, name, "", dst,
                       tuple(addr_ops) + src, Mods(mods), (), (), wave64)


def _mubuf(w, mem, offset, address, wave64):
    op = (w >> 18) & 0xFF
    entry = _entry("MUBUF", op)
    w1 = _dword(mem, offset + 4)
    return _buffer_common("MUBUF", op, entry, w, w1, address, wave64, {},
                          _soffset_literal(w1, mem, offset))


def _soffset_literal(w1, mem, offset):
    """soffset 255 names a literal dword after the instruction."""
    return _dword(mem, offset + 8) if w1 >> 24 == LITERAL else None


def _mtbuf(w, mem, offset, address, wave64):
    w1 = _dword(mem, offset + 4)
    op = (w >> 16) & 7 | ((w1 >> 21) & 1) << 3
    entry = _entry("MTBUF", op)
    return _buffer_common("MTBUF", op, entry, w, w1, address, wave64,
                          {"format": (w >> 19) & 0x7F}, _soffset_literal(w1, mem, offset))


def _mimg(w, mem, offset, address, wave64):
    """Image instructions: operand widths follow the opcode, DIM, A16, DMASK, D16 and TFE/LWE
    (core.isa.mimg); NSA encodings list one VGPR per address word in the extra dwords."""
    op = (w >> 18) & 0x7F | (w & 1) << 7
    entry = _entry("MIMG", op)
    nsa = (w >> 1) & 3
    w1 = _dword(mem, offset + 4)
    extra = [_dword(mem, offset + 8 + 4 * i) for i in range(nsa)]
    mods = {"dmask": (w >> 8) & 0xF, "dim": (w >> 3) & 7, "nsa": nsa, "dlc": (w >> 7) & 1,
            "unorm": (w >> 12) & 1, "glc": (w >> 13) & 1, "r128": (w >> 15) & 1,
            "tfe": (w >> 16) & 1, "lwe": (w >> 17) & 1, "slc": (w >> 25) & 1,
            "a16": (w1 >> 30) & 1, "d16": (w1 >> 31) & 1}
    if nsa and mimg.nsa_default(entry.name, nsa) is None:
        raise DecodeError(f"{entry.name} has no NSA form of {nsa} extra dwords")
    vaddr, vdata = w1 & 0xFF, (w1 >> 8) & 0xFF
    data_dwords, address_dwords = mimg.printed_widths(
        entry.name, vdata, vaddr, nsa, mods["dim"], mods["a16"], mods["dmask"], mods["d16"],
        mods["tfe"])
    if nsa:
        registers = [vaddr] + [word >> (8 * i) & 0xFF for word in extra for i in range(4)]
        addr = tuple(vgpr(r) for r in registers[:address_dwords])
    else:
        addr = (vgpr(vaddr, address_dwords),)
    resources = (source(((w1 >> 16) & 0x1F) * 4, 8),)
    if any(field == "ssamp" for field, *_ in entry.ops):
        resources += (source(((w1 >> 21) & 0x1F) * 4, 4),)
    data = vgpr(vdata, data_dwords)
    kind = mimg.op_of(entry.name).kind
    if kind == "store":
        dst, src = (), addr + resources + (data,)
    elif kind == "atomic":
        dst, src = ((data,) if mods["glc"] else ()), addr + resources + (data,)
    else:
        dst, src = (data,), addr + resources
    return Instruction(address, 8 + 4 * nsa, "MIMG", op, entry.name, "", dst, src,
                       Mods(mods), (), (), wave64)


def _vintrp(w, mem, offset, address, wave64):
    """Graphics parameter interpolation (no compute kernel has it): decoded for its text."""
    op = (w >> 16) & 3
    entry = _entry("VINTRP", op)
    vsrc = w & 0xFF
    mods = {"attr": (w >> 10) & 0x3F, "chan": (w >> 8) & 3, "vsrc": vsrc}
    src = () if op == 2 else (vgpr(vsrc),)        # v_interp_mov_f32 names a parameter
    return Instruction(address, 4, "VINTRP", op, entry.name, "e32", (vgpr((w >> 18) & 0xFF),),
                       src, Mods(mods), (), (), wave64)


def _exp(w, mem, offset, address, wave64):
    """Graphics export (no compute kernel has it): decoded for its text."""
    entry = _entry("EXP", 0)
    w1 = _dword(mem, offset + 4)
    mods = {"en": w & 0xF, "target": (w >> 4) & 0x3F, "compr": (w >> 10) & 1,
            "done": (w >> 11) & 1, "vm": (w >> 12) & 1}
    src = tuple(vgpr((w1 >> (8 * i)) & 0xFF) for i in range(4))
    return Instruction(address, 8, "EXP", 0, entry.name, "", (), src, Mods(mods), (), (),
                       wave64)


_MAJOR = {0x35: _vop3, 0x33: _vop3p, 0x3D: _smem, 0x36: _ds, 0x37: _flat, 0x38: _mubuf,
          0x3A: _mtbuf, 0x3C: _mimg, 0x32: _vintrp, 0x3E: _exp}


def decode(memory, offset, address=None, wave64=False):
    """Decode the instruction at memory[offset] (bytes or a numpy uint8 view); `address` is
    its device address (labels resolve against it), by default `offset`."""
    if address is None:
        address = offset
    w = _dword(memory, offset)
    if not w >> 31:
        top7 = w >> 25
        if top7 == 0x3F:
            return _vop1(w, memory, offset, address, wave64)
        if top7 == 0x3E:
            return _vopc(w, memory, offset, address, wave64)
        return _vop2(w, memory, offset, address, wave64)
    if w >> 30 == 2:
        top9 = w >> 23
        if top9 == 0x17D:
            op = (w >> 8) & 0xFF
            return _sop("SOP1", op, {"sdst": (w >> 16) & 0x7F, "src0": w & 0xFF}, memory,
                        offset, address, wave64)
        if top9 == 0x17E:
            return _sop("SOPC", (w >> 16) & 0x7F, {"src0": w & 0xFF, "src1": (w >> 8) & 0xFF},
                        memory, offset, address, wave64)
        if top9 == 0x17F:
            return _sopp(w, memory, offset, address, wave64)
        if w >> 28 == 0xB:
            return _sopk(w, memory, offset, address, wave64)
        return _sop("SOP2", (w >> 23) & 0x7F, {"sdst": (w >> 16) & 0x7F, "src0": w & 0xFF,
                                               "src1": (w >> 8) & 0xFF},
                    memory, offset, address, wave64)
    family = _MAJOR.get(w >> 26)
    if family is None:
        raise DecodeError(f"0x{w:08x}: no gfx1030 encoding family")
    return family(w, memory, offset, address, wave64)


def decode_all(code, base_address=0, wave64=False):
    """Decode a whole code range in order, as llvm-objdump walks it: zero dwords (the
    padding between functions, no gfx1030 instruction) are skipped."""
    mem = np.frombuffer(bytes(code), np.uint8) if not isinstance(code, np.ndarray) else code
    out, offset = [], 0
    while offset + 4 <= len(mem):
        if not mem[offset:offset + 4].any():
            offset += 4
            continue
        inst = decode(mem, offset, base_address + offset, wave64)
        out.append(inst)
        offset += inst.size
    return out


_MISSING = object()


def table_entry(encoding, opcode, default=_MISSING):
    """The opcode-table row of a decoded instruction (name, llvm suffix, operand order)."""
    entry = _TABLES.get(encoding, {}).get(opcode, default)
    if entry is _MISSING:
        raise DecodeError(f"{encoding} opcode {opcode} is not a gfx1030 instruction")
    return entry
