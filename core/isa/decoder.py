"""Machine code of any supported target (core/isa/targets.py) -> Instruction records.

Invariants:
- decoding is a pure function of the bytes, the address, the wave size and the target; the
  target's encoding generation tells families apart by their fixed bits and gives every
  field's bits (core/isa/encodings.py), its generated tables give every opcode's meaning in
  one dict lookup (core/isa/opcodes_<target>.py), so nothing here knows a bit position or
  mnemonics by heart except the few operand roles the encoding leaves implicit (which SOPK
  or memory operand is read);
- operands are target-neutral: register numbers are canonical gfx10 operand codes (gfx11's
  m0 and null, which it swapped, come out as gfx10's; gfx9's flat_scratch and xnack_mask are
  the specials at 102..105 where gfx10 has SGPRs), AGPRs are their own operand kind;
- bytes llvm would not decode raise DecodeError, never a half-built record;
- `size` always covers the literal / DPP / SDWA dword, so address + size is the next PC.
"""
import dataclasses

import numpy as np

from core.isa import mimg, targets
from core.isa.alu import mx
from core.isa.instruction import Instruction, Mods, NO_MODS, Operand, INV_2PI


class DecodeError(ValueError):
    """The bytes at an address are not an instruction llvm knows for the target."""


_INLINE_FLOATS = {240: 0.5, 241: -0.5, 242: 1.0, 243: -1.0, 244: 2.0, 245: -2.0, 246: 4.0,
                  247: -4.0, 248: INV_2PI}
_SPECIAL_CODES = frozenset((106, 107, 124, 126, 127, 235, 236, 237, 238, 239, 251, 252, 253,
                            254))
LITERAL, DPP8, DPP8_FI, SDWA, DPP16 = 255, 233, 234, 249, 250
NULL_CODE = 125
OFF_CODE = 0x7F             # GLOBAL/SCRATCH saddr "off" (gfx9, gfx10)


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
    """The operand a 9-bit source field names (canonical gfx10 codes: sgprs 0-105, vgprs at
    256+), cached."""
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


def agpr(number, width=1):
    return Operand("agpr", number, width)


def _dword(mem, offset):
    if offset + 4 > len(mem):
        raise DecodeError("instruction runs past the end of the code")
    return int.from_bytes(bytes(mem[offset:offset + 4]), "little")


class _Entry:
    """One opcode's table row, with the operand list pre-split by role."""
    __slots__ = ("name", "suffix", "ops", "half", "half_int", "forms", "imm", "implicit",
                 "vgpr_only", "mods", "acc", "agpr_fields", "t16")

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
        self.acc = row.get("acc", {})             # encoding bit -> fields it makes AGPRs
        self.t16 = row.get("t16", ())             # gfx11 true16: fields naming register halves
        self.agpr_fields = frozenset(f for f, file, *_ in self.ops if file == "a")
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
    if name in ("s_cbranch_vccz", "s_cbranch_vccnz", "v_dual_cndmask_b32"):
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


def _sext(value, bits):
    sign = 1 << (bits - 1)
    return (value & (sign - 1)) - (value & sign)


def _policy(fmt, bits, names):
    """The cache-policy fields of a memory instruction (0 where its generation has none:
    gfx12's th/scope replace glc/slc/dlc)."""
    return {name: fmt.get(bits, name) if fmt.has(name) else 0 for name in names}


def _bits(fmt, w, mem, offset):
    """The instruction's base dwords (one to three) as one little-endian int, for Format.get."""
    for i in range(1, fmt.dwords):
        w |= _dword(mem, offset + 4 * i) << 32 * i
    return w


class _Decoder:
    """A target's tables and register conventions, for the family functions below."""

    def __init__(self, target):
        self.target = target
        self.name = target.name
        self.enc = target.encoding
        self.rows = target.opcodes.TABLES          # family -> {opcode: table row}
        self._entries = {}                          # (family, opcode) -> _Entry

    def find(self, family, op):
        """The _Entry of opcode `op` of `family`, or None. Made on first use: making all of a
        target's ~1,400 at once took ~27 ms of a new process's first dispatch."""
        entry = self._entries.get((family, op))
        if entry is None:
            row = self.rows.get(family, {}).get(op)
            if row is None:
                return None
            entry = self._entries[(family, op)] = _Entry(family, row)
        return entry

    def entry(self, family, op):
        entry = self.find(family, op)
        if entry is None:
            raise DecodeError(f"{family} opcode {op} is not a {self.name} instruction")
        return entry

    def source(self, code, width=1, literal=None):
        """An operand from this target's code: translated to the canonical (gfx10) code."""
        t = self.target
        if code in (t.m0_code, t.null_code) and t.m0_code != 124:
            code = 124 if code == t.m0_code else NULL_CODE
        elif t.sgprs <= code < 106:
            return Operand("special", code & ~(width - 1) if width <= 2 else code, width)
        return source(code, width, literal)

    def is_null(self, code):
        return code == self.target.null_code


_DECODERS = {}


def _decoder(target):
    target = targets.get(target if target is not None else targets.DEFAULT)
    d = _DECODERS.get(target.name)
    if d is None:
        d = _DECODERS[target.name] = _Decoder(target)
    return d


# ---- scalar families -------------------------------------------------------------------

def _scalar_fields(d, entry, fields, wave64, literal):
    """dst and src operands of SOP1/SOP2/SOPC from the printed operand list."""
    dst, src = [], []
    for field, _file, w32, w64 in entry.ops:
        width = w64 if wave64 else w32
        if field == "sdst":
            dst.append(d.source(fields["sdst"], width))
        elif field == "gpr_idx":        # gfx9 s_set_gpr_idx_on: src1 holds the index mode
            src.append(Operand("inline_int", 0, 1, fields["src1"]))
        elif field == "msg":            # gfx11 s_sendmsg_rtn: src0 holds the message
            src.append(Operand("inline_int", 0, 1, fields["src0"]))
        elif field == "simm32":         # gfx12 s_fmaak_f32/s_fmamk_f32: the dword after
            src.append(Operand("literal", LITERAL, 1, literal))
        else:
            src.append(d.source(fields[field], width, literal))
    return tuple(dst), tuple(src)


def _sop(d, fmt, w, mem, offset, address, wave64):
    encoding = fmt.family
    op = fmt.get(w, "op")
    entry = d.entry(encoding, op)
    fields = {name: fmt.get(w, name) for name in ("sdst", "src0", "src1") if fmt.has(name)}
    literal, size = None, 4
    if LITERAL in (fields.get("src0"), fields.get("src1")) or \
            any(f == "simm32" for f, *_ in entry.ops):
        literal, size = _dword(mem, offset + 4), 8
    dst, src = _scalar_fields(d, entry, fields, wave64, literal)
    isrc, idst = entry.implicit[wave64]
    return Instruction(address, size, encoding, op, entry.name, "", dst, src, NO_MODS, idst,
                       isrc, wave64)


_SOPK_READS = ("s_cmpk_", "s_setreg_b32", "s_waitcnt_")
_SOPK_BOTH = ("s_addk_i32", "s_mulk_i32", "s_subvector_loop_begin", "s_subvector_loop_end")


def _sopk(d, fmt, w, mem, offset, address, wave64):
    op = fmt.get(w, "op")
    entry = d.entry("SOPK", op)
    sdst, simm = fmt.get(w, "sdst"), fmt.get(w, "simm16")
    name, size = entry.name, 4
    mods = {"simm16": simm}
    dst, src = [], []
    for field, _file, w32, w64 in entry.ops:
        if field == "sdst":
            reg = d.source(sdst, w64 if wave64 else w32)
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
    elif entry.imm == "dec":         # s_call_b64, s_subvector_loop_*, s_cbranch_i_fork
        src.append(Operand("label", 0, 1, address + 4 + _sext(simm, 16) * 4))
    else:
        value = _sext(simm, 16) if name.endswith("_i32") else simm   # *_u32: zero-extended
        src.append(Operand("inline_int", 0, 1, value))
    return Instruction(address, size, "SOPK", op, name, "", tuple(dst), tuple(src), Mods(mods),
                       (), (), wave64)


def _sopp(d, fmt, w, mem, offset, address, wave64):
    op = fmt.get(w, "op")
    entry = d.entry("SOPP", op)
    simm = fmt.get(w, "simm16")
    src = ()
    if entry.imm == "dec" and "branch" in entry.name:
        src = (Operand("label", 0, 1, address + 4 + _sext(simm, 16) * 4),)
    elif entry.imm != "none" and not (entry.imm == "dec0" and simm == 0):
        src = (Operand("inline_int", 0, 1, simm),)
    isrc, idst = entry.implicit[wave64]
    return Instruction(address, 4, "SOPP", op, entry.name, "", (), src, Mods({"simm16": simm}),
                       idst, isrc, wave64)


def _smem(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    entry = d.entry("SMEM", op)
    sdata, sbase = fmt.get(bits, "sdata"), fmt.get(bits, "sbase") * 2
    raw_offset = fmt.get(bits, "offset")
    mods = {"offset": _sext(raw_offset, fmt.fields["offset"][0][1]), "sdata": sdata,
            **_policy(fmt, bits, ("glc", "dlc", "th", "scope"))}
    if fmt.has("imm"):
        # gfx9: imm says the offset field is a byte offset (else it names an SGPR), soe
        # adds an SGPR from the soffset field (and llvm then prints the offset, 0 too).
        imm, soe = fmt.get(bits, "imm"), fmt.get(bits, "soe")
        soffset = fmt.get(bits, "soffset") if soe else None if imm else raw_offset & 0x7F
        mods.update(imm=imm, soe=soe, offset=mods["offset"] if imm else 0)
    else:
        soffset = fmt.get(bits, "soffset")
        soffset = None if d.is_null(soffset) else soffset
    mods["soffset"] = soffset
    dst, src = [], []
    for field, _file, w32, _w64 in entry.ops:
        if field == "sdata":
            dst.append(d.source(sdata, w32))
        elif field == "sbase":
            src.append(d.source(sbase, w32))
    if src and soffset is not None:
        src.append(d.source(soffset, 1))
    return Instruction(address, 4 * fmt.dwords, "SMEM", op, entry.name, "", tuple(dst), tuple(src),
                       Mods(mods), (), (), wave64)


# ---- vector ALU families ---------------------------------------------------------------

def _vop_operands(d, entry, fields, wave64, literal, agprs=frozenset()):
    """dst/src in printed order; fixed registers llvm prints (vcc) before the first source
    are written, after it read: they are ordinary operands, never also implicit ones.
    `agprs`: fields that name accumulation registers (gfx90a) besides the table's own."""
    for field in entry.vgpr_only:
        fields[field] = 256 | (fields[field] & 0xFF)
    agprs = agprs | entry.agpr_fields
    dst, src = [], []
    seen_src = False
    for field, file, w32, w64 in entry.ops:
        width = w64 if wave64 else w32
        if field.startswith("="):
            (src if seen_src else dst).append(_fixed(field, wave64))
        elif field == "simm32":
            src.append(Operand("literal", LITERAL, 1, literal))
            seen_src = True
        elif field in agprs and fields[field] >= 256:
            (dst if field == "vdst" else src).append(agpr(fields[field] - 256, width))
            seen_src = seen_src or field != "vdst"
        elif field in ("vdst", "sdst"):
            dst.append(d.source(fields[field], width))
        elif field == "param":                 # v_interp_mov_f32_e64: p10, p20 or p0
            seen_src = True
            src.append(Operand("inline_int", 0, 1, fields["src1"]))
        elif field == "attr":
            seen_src = True
            src.append(Operand("attr", fields["src0"] & 0x3F, 1, (fields["src0"] >> 6) & 3))
        else:
            seen_src = True
            src.append(d.source(fields[field], width, literal))
    return tuple(dst), tuple(src)


def _dst_code(entry, raw):
    """The 8-bit vdst field as a source code: a VGPR, or an SGPR where llvm printed one
    (v_readfirstlane_b32, v_readlane_b32, VOPC compares in VOP3)."""
    file = next((f for name, f, *_ in entry.ops if name == "vdst"), "v")
    return raw if file == "s" else 256 + raw


def _dpp_mods(d, ext):
    neg = (ext >> 20) & 1 | (ext >> 21) & 2
    return {"dpp_ctrl": (ext >> 8) & 0x1FF, "fi": (ext >> 18) & d.target.dpp_fi,
            "bound_ctrl": (ext >> 19) & 1, "neg": neg,
            "abs": (ext >> 21) & 1 | (ext >> 22) & 2,
            # integer sources read the neg bits as sign extension
            "src0_sext": neg & 1, "src1_sext": neg >> 1,
            "bank_mask": (ext >> 24) & 0xF, "row_mask": (ext >> 28) & 0xF}


def _dpp8_mods(ext, src0):
    return {"dpp8": tuple((ext >> (8 + 3 * i)) & 7 for i in range(8)),
            "fi": int(src0 == DPP8_FI)}


# The op_sel bit that picks a field's high half, as VOP3 spells it (bit 3: the destination).
_OP_SEL_BIT = {"src0": 1, "src1": 2, "vdst": 8}


def _true16_halves(entry, fields):
    """gfx11 true16: in a field naming a 16-bit VGPR operand of a VOP1/VOP2/VOPC (or its DPP
    form) the code's bit 7 picks the high half of the VGPR its low 7 bits name. Rewrites
    such fields to the whole VGPR and returns the op_sel bits that pick the high halves,
    the way VOP3 encodes the same choice."""
    op_sel = 0
    for field in entry.t16:
        code = fields[field]
        if code >= 256 and code & 0x80:
            fields[field] = code & ~0x80
            op_sel |= _OP_SEL_BIT[field]
    return op_sel


def _vop_short(d, encoding, op, fields, mem, offset, address, wave64):
    """VOP1/VOP2/VOPC: e32, or DPP16/DPP8/SDWA when src0 names those extensions."""
    entry = d.entry(encoding, op)
    src0 = fields["src0"]
    size, literal, form, mods = 4, None, "e32", NO_MODS
    if src0 in (DPP16, DPP8, DPP8_FI, SDWA) and not entry.vgpr_only and entry.forms:
        ext = _dword(mem, offset + 4)
        size = 8
        fields["src0"] = 256 + (ext & 0xFF)
        if src0 == DPP16:
            form = "dpp"
            mods = Mods(_dpp_mods(d, ext))
        elif src0 in (DPP8, DPP8_FI):
            form = "dpp8"
            mods = Mods(_dpp8_mods(ext, src0))
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
    op_sel = _true16_halves(entry, fields)
    if op_sel:
        mods = Mods({**mods, "op_sel": op_sel})
    dst, src = _vop_operands(d, entry, fields, wave64, literal)
    if form == "sdwa" and encoding == "VOPC" and mods["sdst"] is not None:
        dst = (d.source(mods["sdst"], 2 if wave64 else 1),)
    isrc, idst = entry.implicit[wave64]
    return Instruction(address, size, encoding, op, entry.name, form, dst, src, mods, idst,
                       isrc, wave64)


def _vop1(d, fmt, w, mem, offset, address, wave64):
    fields = {"vdst": fmt.get(w, "vdst"), "src0": fmt.get(w, "src0")}
    return _vop_short(d, "VOP1", fmt.get(w, "op"), fields, mem, offset, address, wave64)


def _vop2(d, fmt, w, mem, offset, address, wave64):
    fields = {"vdst": fmt.get(w, "vdst"), "src0": fmt.get(w, "src0"),
              "src1": 256 + fmt.get(w, "src1")}
    return _vop_short(d, "VOP2", fmt.get(w, "op"), fields, mem, offset, address, wave64)


def _vopc(d, fmt, w, mem, offset, address, wave64):
    fields = {"src0": fmt.get(w, "src0"), "src1": 256 + fmt.get(w, "src1")}
    return _vop_short(d, "VOPC", fmt.get(w, "op"), fields, mem, offset, address, wave64)


def _vop3_extension(d, entry, fields, mem, offset):
    """gfx11's DPP dword after a VOP3's two (src0 250: DPP16, 233/234: DPP8): (form, mods,
    size), src0 rewritten to the VGPR the DPP dword names; ("e64", {}, 8) otherwise."""
    src0 = fields["src0"]
    if src0 == DPP16 and "dpp" in entry.forms or src0 in (DPP8, DPP8_FI) and "dpp8" in entry.forms:
        ext = _dword(mem, offset + 8)
        fields["src0"] = 256 + (ext & 0xFF)
        for field in entry.mods.get("dpp", {}).get("vgpr_only", ()):
            fields[field] = 256 | fields[field] & 0xFF
        if src0 == DPP16:
            mods = _dpp_mods(d, ext)
            return "dpp", {k: mods[k] for k in ("dpp_ctrl", "fi", "bound_ctrl", "bank_mask",
                                                "row_mask")}, 12
        return "dpp8", _dpp8_mods(ext, src0), 12
    return "e64", {}, 8


def _vop3(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    fields = {name: fmt.get(bits, name) for name in ("src0", "src1", "src2")}
    b = d.find("VOP3B", op)
    entry = b if b is not None else d.entry("VOP3", op)
    form, extra, size = _vop3_extension(d, entry, fields, mem, offset)
    literal = None
    if LITERAL in fields.values() and d.target.vop3_literal:
        literal, size = _dword(mem, offset + size), size + 4
    mods = {"clamp": fmt.get(bits, "clamp"), "omod": fmt.get(bits, "omod"),
            "neg": fmt.get(bits, "neg"), **extra}
    bitop3 = entry.mods.get("bitop3")
    if bitop3:
        # gfx950 v_bitop3_*: the truth table's bits 2:0 are the neg field, 5:3 abs, 7:6 omod
        # (llvm-mc-21's encodings); the sources take no modifiers. The operation reads the
        # table as a constant after its three sources.
        mods["bitop3"] = mods["neg"] | fmt.get(bits, "abs") << 3 | mods["omod"] << 6
        mods["neg"] = mods["omod"] = 0
    if b is not None:
        encoding = "VOP3B"
        fields["sdst"] = fmt.get(bits, "sdst")
        mods["abs"], mods["op_sel"] = 0, 0
    else:
        encoding = "VOP3"
        mods["abs"], mods["op_sel"] = 0 if bitop3 else fmt.get(bits, "abs"), fmt.get(bits, "op_sel")
        _op_sel_selector(entry, mods, "byte_sel")
    fields["vdst"] = _dst_code(entry, fmt.get(bits, "vdst"))
    if any(f == "attr" for f, *_ in entry.ops):
        mods["high"] = fields["src0"] >> 8 & 1      # v_interp_*_e64: the attribute's high half
    dst, src = _vop_operands(d, entry, fields, wave64, literal)
    isrc, idst = entry.implicit[wave64]
    if bitop3:
        isrc += (Operand("literal", value=mods["bitop3"]),)
    return Instruction(address, size, encoding, op, entry.name, form, dst, src, Mods(mods),
                       idst, isrc, wave64)


def _op_sel_selector(entry, mods, name):
    """gfx12's op_sel bits that name something else, per the opcode's table: a byte of a
    register (the 8-bit conversions' byte_sel) or a set of sparse-matrix indices (SWMMAC's
    index_key). They then select no halves."""
    worth = entry.mods.get(name)
    if worth:
        mods[name] = sum(w for b, w in enumerate(worth) if mods["op_sel"] >> b & 1)
        mods["op_sel"] &= ~sum(1 << b for b, w in enumerate(worth) if w)


def _acc_fields(fmt, bits, entry):
    """Fields the set acc bits of an instruction make AGPRs (gfx90a; 'acc.1': bit 1 of acc)."""
    found = set()
    for key, fields in entry.acc.items():
        name, _, index = key.partition(".")
        if fmt.get(bits, name) >> int(index or 0) & 1:
            found.update(fields)
    return frozenset(found)


def _vop3p(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    entry = d.entry("VOP3P", op)
    fields = {"src0": fmt.get(bits, "src0"), "src1": fmt.get(bits, "src1"),
              "src2": fmt.get(bits, "src2"), "vdst": 256 + fmt.get(bits, "vdst")}
    form, extra, size = _vop3_extension(d, entry, fields, mem, offset)
    literal = None
    if LITERAL in fields.values() and d.target.vop3_literal:
        literal, size = _dword(mem, offset + size), size + 4
    if entry.mods.get("mai"):
        mods = {"cbsz": fmt.get(bits, "cbsz"), "abid": fmt.get(bits, "abid"),
                "blgp": fmt.get(bits, "blgp")}
    else:
        mods = {"neg_hi": fmt.get(bits, "neg_hi"), "op_sel": fmt.get(bits, "op_sel"),
                "op_sel_hi": fmt.get(bits, "op_sel_hi") | fmt.get(bits, "op_sel_hi2") << 2,
                "clamp": fmt.get(bits, "clamp"), "neg": fmt.get(bits, "neg"), **extra}
        _op_sel_selector(entry, mods, "index_key")
    dst, src = _vop_operands(d, entry, fields, wave64, literal, _acc_fields(fmt, bits, entry))
    if entry.mods.get("mai") and src[2].kind in ("sgpr", "ttmp", "special", "null") and \
            src[2].count > 16:
        # MFMA's C matrix is never scalar; llvm prints such an encoding's src2 as one SGPR
        # when no SGPR tuple is that wide.
        src = src[:2] + (d.source(fields["src2"], 1),)
    if entry.mods.get("mai") and entry.name.endswith("_f8f6f4"):
        # A's and B's widths follow the formats CBSZ and BLGP name (an 8-register operand
        # holds 32 8-bit elements, 6 registers 32 6-bit ones, 4 registers 32 4-bit ones).
        src = tuple(_sized(operand, mx.registers(mods[name]))
                    for operand, name in zip(src[:2], ("cbsz", "blgp"))) + src[2:]
    inst = Instruction(address, size, "VOP3P", op, entry.name, form if form != "e64" else "",
                       dst, src, Mods(mods), (), (), wave64)
    if entry.name == SCALE_PREFIX:
        return _scaled_mfma(d, inst, mem, offset + size, wave64) or inst
    return inst


def _sized(operand, count):
    if count is None or operand.kind not in ("vgpr", "agpr"):
        return operand
    return dataclasses.replace(operand, count=count)


# gfx950's scaled MFMA is two VOP3P words: v_mfma_ld_scale_b32 (the scale sources, which byte
# of each op_sel and op_sel_hi pick) then an f8f6f4 MFMA, whose ABID bit 0 says it takes them.
# llvm reads the pair as one instruction, v_mfma_scale_*, and so does SoftGPU: the MFMA's
# operands, then the two scales. A prefix without such an MFMA after it stands alone.
SCALE_PREFIX = "v_mfma_ld_scale_b32"


def _scaled_mfma(d, prefix, mem, next_offset, wave64):
    if next_offset + 8 > len(mem):
        return None
    word = _dword(mem, next_offset)
    fmt = d.enc.identify(word)
    if fmt is None or fmt.family != "VOP3P":
        return None
    # Only an f8f6f4 MFMA is decoded on (never another prefix: a run of them stays flat).
    entry = d.find("VOP3P", fmt.get(_bits(fmt, word, mem, next_offset), "op"))
    if entry is None or not entry.name.endswith("_f8f6f4"):
        return None
    mfma = _vop3p(d, fmt, word, mem, next_offset, prefix.address + 8, wave64)
    if not mfma.mods["abid"] & 1:
        return None
    mods = {"cbsz": mfma.mods["cbsz"], "blgp": mfma.mods["blgp"],
            "op_sel": prefix.mods["op_sel"], "op_sel_hi": prefix.mods["op_sel_hi"]}
    return Instruction(prefix.address, prefix.size + mfma.size, "VOP3P", mfma.opcode,
                       mfma.mnemonic.replace("v_mfma_", "v_mfma_scale_", 1), "", mfma.dst,
                       mfma.src + prefix.src, Mods(mods), (), (), wave64)


def _vopd(d, fmt, w, mem, offset, address, wave64):
    """gfx11 dual issue: one record whose `halves` are the X and Y instructions, each as a
    VOP2-shaped record (encoding 'VOPD', form 'x'/'y'); dst/src list X's operands then Y's."""
    bits = _bits(fmt, w, mem, offset)
    entries = (d.entry("VOPDX", fmt.get(bits, "opx")), d.entry("VOPDY", fmt.get(bits, "opy")))
    vdstx = fmt.get(bits, "vdstx")
    raw = ({"vdst": 256 + vdstx, "src0": fmt.get(bits, "src0x"), "src1": 256 + fmt.get(bits, "src1x")},
           {"vdst": 256 + (fmt.get(bits, "vdsty") << 1 | (vdstx & 1) ^ 1),
            "src0": fmt.get(bits, "src0y"), "src1": 256 + fmt.get(bits, "src1y")})
    size, literal = 8, None
    if any(f["src0"] == LITERAL for f in raw) or \
            any(f == "simm32" for e in entries for f, *_ in e.ops):
        literal, size = _dword(mem, offset + 8), 12
    halves = []
    for which, entry, fields in zip(("x", "y"), entries, raw):
        dst, src = _vop_operands(d, entry, dict(fields), wave64, literal)
        isrc, idst = entry.implicit[wave64]
        halves.append(Instruction(address, size, "VOPD", fmt.get(bits, f"op{which}"),
                                  entry.name, which, dst, src, NO_MODS, idst, isrc, wave64,
                                  d.name))
    x, y = halves
    return Instruction(address, size, "VOPD", x.opcode << 5 | y.opcode, x.mnemonic, "",
                       x.dst + y.dst, x.src + y.src, NO_MODS, x.implicit_dst + y.implicit_dst,
                       x.implicit_src + y.implicit_src, wave64, d.name, tuple(halves))


# ---- memory families -------------------------------------------------------------------

def _register(agprs, field, number, width):
    return agpr(number, width) if field in agprs else vgpr(number, width)


def _ds(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    entry = d.entry("DS", op)
    agprs = _acc_fields(fmt, bits, entry)
    dst, src = [], []
    for field, _file, w32, _w64 in entry.ops:
        reg = _register(agprs, field, fmt.get(bits, field), w32)
        (dst if field == "vdst" else src).append(reg)
    mods = {"offset0": fmt.get(bits, "offset0"), "offset1": fmt.get(bits, "offset1"),
            "gds": fmt.get(bits, "gds"), "offset": fmt.get(bits, "offset")}
    return Instruction(address, 8, "DS", op, entry.name, "", tuple(dst), tuple(src),
                       Mods(mods), (), (), wave64)


_SEGMENTS = ("FLAT", "SCRATCH", "GLOBAL")


def _flat(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    seg = fmt.get(bits, "seg")
    if seg == 3:
        raise DecodeError("FLAT segment 3 is reserved")
    encoding = _SEGMENTS[seg]
    op = fmt.get(bits, "op")
    entry = d.entry(encoding, op)
    if not entry.ops:                   # gfx12's global_inv, global_wb, global_wbinv
        return _cache_control(fmt, bits, encoding, op, entry, address, wave64)
    addr, data, saddr, vdst = (fmt.get(bits, f) for f in ("addr", "data", "saddr", "vdst"))
    glc = fmt.get(bits, "glc")
    width = fmt.fields["offset"][0][1]
    raw = fmt.get(bits, "offset")
    generation = d.target.generation
    # saddr "off": 0x7f (gfx9), null or 0x7f (gfx10), null (gfx11). SCRATCH without vaddr:
    # saddr 0x7f (gfx10) or the sve bit clear (gfx11); gfx11 SCRATCH may take both (sve).
    both = False
    if generation in ("gfx11", "gfx12"):
        saddr_off = d.is_null(saddr)
        vaddr_off = encoding == "SCRATCH" and saddr_off and not fmt.get(bits, "sve")
        both = encoding == "SCRATCH" and not saddr_off and fmt.get(bits, "sve")
    elif generation == "gfx10":
        saddr_off = saddr in (OFF_CODE, NULL_CODE)
        vaddr_off = saddr == OFF_CODE
    else:
        saddr_off = saddr == OFF_CODE or encoding == "FLAT"
        vaddr_off = False
        if encoding == "SCRATCH" and d.target.scratch_sve:
            # gfx940+: bit 13 (gfx90a's lds; its LDS loads are opcodes of their own there) is
            # SVE, as gfx11's: a VGPR offset is there, alone or beside the SGPR base.
            sve = fmt.get(bits, "lds")
            vaddr_off = saddr_off and not sve
            both = not saddr_off and sve
    # FLAT's offset is unsigned before gfx12, whose three-dword words sign all offsets.
    signed = encoding != "FLAT" or fmt.dwords == 3
    mods = {"offset": _sext(raw, width) if signed else raw,
            **_policy(fmt, bits, ("glc", "slc", "dlc", "th", "scope")),
            "lds": fmt.get(bits, "lds") if fmt.has("lds") and not d.target.scratch_sve else 0,
            "seg": seg,
            "scc": fmt.get(bits, "scc") if fmt.has("scc") else 0,
            "saddr_off": int(saddr_off), "vaddr_off": int(vaddr_off),
            "addtid": int("_addtid" in entry.name)}
    agprs = _acc_fields(fmt, bits, entry)
    dst, src = [], []
    data_width = 1
    for field, _file, w32, _w64 in entry.ops:
        if field == "vdst":
            dst.append(_register(agprs, field, vdst, w32))
        elif field == "data":
            data_width = w32
            src.append(_register(agprs, field, data, w32))
    if "atomic" in entry.name and glc and not dst:
        dst.append(_register(agprs, "data", vdst,
                             data_width // 2 if "cmpswap" in entry.name else data_width))
    _check_saddr(d, encoding, entry, saddr)
    addr_ops = []
    if mods["vaddr_off"]:               # scratch with neither vaddr nor saddr: offset only
        pass
    elif mods["addtid"]:                  # *_addtid: the lane id is the address, saddr the base
        addr_ops.append(d.source(saddr, 2))
    elif encoding == "FLAT":
        addr_ops.append(vgpr(addr, 2))
    elif encoding == "GLOBAL":
        if saddr_off:
            addr_ops.append(vgpr(addr, 2))
        else:
            addr_ops += [vgpr(addr, 1), d.source(saddr, 2)]
    elif both:                          # gfx11: a VGPR offset plus an SGPR base
        addr_ops += [vgpr(addr, 1), d.source(saddr, 1)]
        mods["vaddr_saddr"] = 1
    elif saddr_off:
        addr_ops.append(vgpr(addr, 1))
    else:
        addr_ops.append(d.source(saddr, 1))
    return Instruction(address, 4 * fmt.dwords, encoding, op, entry.name, "", tuple(dst),
                       tuple(addr_ops) + tuple(src), Mods(mods), (), (), wave64)


def _check_saddr(d, encoding, entry, saddr):
    generation = d.target.generation
    if generation == "gfx10":
        bad = saddr == OFF_CODE and encoding != "SCRATCH" or \
            encoding == "FLAT" and saddr != NULL_CODE
    elif generation in ("gfx11", "gfx12"):
        bad = encoding == "FLAT" and not d.is_null(saddr)
    else:
        bad = encoding == "FLAT" and saddr not in (0, OFF_CODE)
    if bad:
        raise DecodeError(f"{entry.name}: saddr {saddr} is not allowed")


def _buffer_common(d, fmt, bits, encoding, op, entry, address, wave64, extra, literal=None):
    if not entry.ops:                   # buffer_gl0_inv, buffer_wbl2, buffer_inv...
        return _cache_control(fmt, bits, encoding, op, entry, address, wave64)
    vaddr, vdata = fmt.get(bits, "vaddr"), fmt.get(bits, "vdata")
    offen, idxen, glc = fmt.get(bits, "offen"), fmt.get(bits, "idxen"), fmt.get(bits, "glc")
    optional = _policy(fmt, bits, ("dlc", "slc", "tfe", "lds", "scc", "th", "scope"))
    raw = fmt.get(bits, "offset")       # gfx12's (three dwords) is signed, earlier unsigned
    mods = {"offset": _sext(raw, 24) if fmt.dwords == 3 else raw, "offen": offen,
            "idxen": idxen, "glc": glc, **optional, **extra}
    width = next((w32 for f, _fl, w32, _ in entry.ops if f == "vdata"), 1)
    name = entry.name
    addr_ops = []
    if offen or idxen:
        addr_ops.append(vgpr(vaddr, offen + idxen))
    addr_ops += [d.source(fmt.get(bits, "srsrc") * 4, 4), d.source(fmt.get(bits, "soffset"), 1, literal)]
    data = _register(_acc_fields(fmt, bits, entry), "vdata", vdata, width)
    if "store" in name:
        dst, src = (), (data,)
    elif "atomic" in name:
        src = (data,)
        dst = (dataclasses.replace(data, count=width // 2 if "cmpswap" in name else width),) \
            if glc else ()
    elif any(f == "vdata" for f, *_ in entry.ops):
        dst, src = (data,), ()
    else:
        dst, src = (), ()
    if encoding != "MUBUF":
        mods["lds"] = 0
    return Instruction(address, 4 * fmt.dwords + (literal is not None) * 4, encoding, op, name,
                       "", dst, tuple(addr_ops) + src, Mods(mods), (), (), wave64)


def _cache_control(fmt, bits, encoding, op, entry, address, wave64):
    """An instruction without operands that acts on caches (buffer_wbl2, buffer_inv, gfx12's
    global_inv/global_wb): its cache-policy bits say which (gfx940+'s sc0/sc1, gfx12's scope)."""
    policy = _policy(fmt, bits, ("glc", "scc", "scope"))
    return Instruction(address, 4 * fmt.dwords, encoding, op, entry.name, "", (), (),
                       Mods(policy), (), (), wave64)


def _mubuf(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    entry = d.entry("MUBUF", op)
    return _buffer_common(d, fmt, bits, "MUBUF", op, entry, address, wave64, {},
                          _soffset_literal(fmt, bits, mem, offset))


def _soffset_literal(fmt, bits, mem, offset):
    """soffset 255 names a literal dword after the instruction."""
    return _dword(mem, offset + 8) if fmt.get(bits, "soffset") == LITERAL else None


def _mtbuf(d, fmt, w, mem, offset, address, wave64):
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    entry = d.entry("MTBUF", op)
    return _buffer_common(d, fmt, bits, "MTBUF", op, entry, address, wave64,
                          {"format": fmt.get(bits, "format")},
                          _soffset_literal(fmt, bits, mem, offset))


# Image modifier fields every generation has (gfx10 and gfx11 place them differently).
_MIMG_MODS = ("dmask", "dim", "dlc", "unorm", "glc", "r128", "tfe", "lwe", "slc", "a16", "d16")


def _mimg(d, fmt, w, mem, offset, address, wave64):
    """Image instructions: operand widths follow the opcode, DIM, A16, DMASK, D16 and TFE/LWE
    (core.isa.mimg); NSA encodings list one VGPR per address word in the extra dwords (the
    format's nsa field counts them: 0-3 on gfx10, 0-1 on gfx11)."""
    bits = _bits(fmt, w, mem, offset)
    op = fmt.get(bits, "op")
    entry = d.entry("MIMG", op)
    nsa = fmt.get(bits, "nsa")
    extra = [_dword(mem, offset + 8 + 4 * i) for i in range(nsa)]
    mods = {name: fmt.get(bits, name) for name in _MIMG_MODS}
    mods["nsa"] = nsa
    if nsa and mimg.nsa_default(entry.name, nsa) is None:
        raise DecodeError(f"{entry.name} has no NSA form of {nsa} extra dwords")
    vaddr, vdata = fmt.get(bits, "vaddr"), fmt.get(bits, "vdata")
    data_dwords, address_dwords = mimg.printed_widths(
        entry.name, vdata, vaddr, nsa, mods["dim"], mods["a16"], mods["dmask"], mods["d16"],
        mods["tfe"], d.name)
    if nsa:
        registers = [vaddr] + [word >> (8 * i) & 0xFF for word in extra for i in range(4)]
        addr = tuple(vgpr(r) for r in registers[:address_dwords])
    else:
        addr = (vgpr(vaddr, address_dwords),)
    dst, src = _image_operands(d, fmt, bits, entry, addr, vgpr(vdata, data_dwords), mods)
    return Instruction(address, 8 + 4 * nsa, "MIMG", op, entry.name, "", dst, src,
                       Mods(mods), (), (), wave64)


def _image_operands(d, fmt, bits, entry, addr, data, mods):
    """(dst, src) of an image instruction: the addresses, T# and S# (the sampling opcodes),
    then data for stores and atomics; loads, samples and returning atomics write data."""
    resources = (d.source(fmt.get(bits, "srsrc") * 4, 8),)
    if any(field == "ssamp" for field, *_ in entry.ops):
        resources += (d.source(fmt.get(bits, "ssamp") * 4, 4),)
    kind = mimg.op_of(entry.name).kind
    if kind == "store":
        return (), addr + resources + (data,)
    if kind == "atomic":
        return ((data,) if mods["glc"] else ()), addr + resources + (data,)
    return (data,), addr + resources


def _vimage(d, fmt, w, mem, offset, address, wave64):
    """gfx12's image words (VIMAGE, VSAMPLE): the MIMG instruction the engine runs, its
    mods named as gfx10's (glc: th's low bit, an atomic's return) with th and scope beside.
    Up to four address VGPRs are named one by one; with more address dwords the last field
    starts a contiguous run holding the rest (llvm prints it v[7:9])."""
    bits = _bits(fmt, w, mem, offset)
    family = fmt.family
    op = fmt.get(bits, "op")
    entry = d.entry(family, op)
    mods = {name: fmt.get(bits, name) if fmt.has(name) else 0 for name in _MIMG_MODS}
    mods.update(th=fmt.get(bits, "th"), scope=fmt.get(bits, "scope"), nsa=0)
    words = mimg.address_dwords(entry.name, mods["dim"], mods["a16"])
    fields = [fmt.get(bits, f"vaddr{i}") for i in range(min(words, 4))]
    addr = tuple(vgpr(r) for r in fields[:3]) + \
        ((vgpr(fields[3], words - 3),) if words > 3 else ())
    # llvm counts TFE's status dword, not LWE's (which only VSAMPLE has).
    data = vgpr(fmt.get(bits, "vdata"), mimg.data_dwords(
        entry.name, mods["dmask"], mods["d16"], mods["tfe"], d.name))
    dst, src = _image_operands(d, fmt, bits, entry, addr, data, mods)
    return Instruction(address, 12, family, op, entry.name, "", dst, src, Mods(mods), (), (),
                       wave64)


def _vintrp(d, fmt, w, mem, offset, address, wave64):
    """Graphics parameter interpolation (no compute kernel has it): decoded for its text."""
    op = (w >> 16) & 3
    entry = d.entry("VINTRP", op)
    vsrc = w & 0xFF
    mods = {"attr": (w >> 10) & 0x3F, "chan": (w >> 8) & 3, "vsrc": vsrc}
    src = () if op == 2 else (vgpr(vsrc),)        # v_interp_mov_f32 names a parameter
    return Instruction(address, 4, "VINTRP", op, entry.name, "e32", (vgpr((w >> 18) & 0xFF),),
                       src, Mods(mods), (), (), wave64)


def _exp(d, fmt, w, mem, offset, address, wave64):
    """Graphics export (no compute kernel has it): decoded for its text."""
    entry = d.entry("EXP", 0)
    w1 = _dword(mem, offset + 4)
    mods = {"en": w & 0xF, "target": (w >> 4) & 0x3F, "compr": (w >> 10) & 1,
            "done": (w >> 11) & 1, "vm": (w >> 12) & 1}
    src = tuple(vgpr((w1 >> (8 * i)) & 0xFF) for i in range(4))
    return Instruction(address, 8, "EXP", 0, entry.name, "", (), src, Mods(mods), (), (),
                       wave64)


_FAMILIES = {"SOP1": _sop, "SOP2": _sop, "SOPC": _sop, "SOPK": _sopk, "SOPP": _sopp,
             "SMEM": _smem, "VOP1": _vop1, "VOP2": _vop2, "VOPC": _vopc, "VOP3": _vop3,
             "VOP3P": _vop3p, "VOPD": _vopd, "DS": _ds, "FLAT": _flat, "MUBUF": _mubuf,
             "MTBUF": _mtbuf, "MIMG": _mimg, "VIMAGE": _vimage, "VSAMPLE": _vimage,
             "VINTRP": _vintrp, "EXP": _exp}


def decode(memory, offset, address=None, wave64=False, target=None):
    """Decode the instruction at memory[offset] (bytes or a numpy uint8 view); `address` is
    its device address (labels resolve against it), by default `offset`; `target` an
    IsaTarget or processor name (default gfx1030)."""
    if address is None:
        address = offset
    d = _decoder(target)
    w = _dword(memory, offset)
    fmt = d.enc.identify(w)
    if fmt is None or fmt.family not in d.rows and fmt.family != "VOPD":
        raise DecodeError(f"0x{w:08x}: no {d.name} encoding family")
    inst = _FAMILIES[fmt.family](d, fmt, w, memory, offset, address, wave64)
    return inst if inst.target == d.name else dataclasses.replace(inst, target=d.name)


def decode_all(code, base_address=0, wave64=False, target=None):
    """Decode a whole code range in order, as llvm-objdump walks it: zero dwords (the
    padding between functions, no instruction on any target) are skipped."""
    mem = np.frombuffer(bytes(code), np.uint8) if not isinstance(code, np.ndarray) else code
    out, offset = [], 0
    while offset + 4 <= len(mem):
        if not mem[offset:offset + 4].any():
            offset += 4
            continue
        inst = decode(mem, offset, base_address + offset, wave64, target)
        out.append(inst)
        offset += inst.size
    return out


_MISSING = object()


def table_entry(encoding, opcode, default=_MISSING, target=None):
    """The opcode-table row of a decoded instruction (name, llvm suffix, operand order)."""
    d = _decoder(target)
    entry = d.find(encoding, opcode)
    if entry is None:
        entry = default
    if entry is _MISSING:
        raise DecodeError(f"{encoding} opcode {opcode} is not a {d.name} instruction")
    return entry
