"""Instruction records -> assembly text exactly as `llvm-objdump-15 -d --mcpu=<target>` prints it.

Invariants:
- the text is a function of the record, its opcode-table row and its target's named values
  (hwreg names, sendmsg texts, buffer formats, s_waitcnt layout, DPP control names) only;
- operands print in the table's order (llvm's), modifiers in llvm's order after them, so
  tests can compare the decoder with llvm-objdump instruction by instruction.
"""
import re
import struct

from core.isa import mimg, targets
from core.isa.decoder import table_entry
from core.isa.instruction import INV_2PI, INV_2PI_TEXT

_F32_INLINE = {0x3F000000: "0.5", 0xBF000000: "-0.5", 0x3F800000: "1.0", 0xBF800000: "-1.0",
               0x40000000: "2.0", 0xC0000000: "-2.0", 0x40800000: "4.0", 0xC0800000: "-4.0",
               0x3E22F983: INV_2PI_TEXT[1]}
_F16_INLINE = {0x3800: "0.5", 0xB800: "-0.5", 0x3C00: "1.0", 0xBC00: "-1.0", 0x4000: "2.0",
               0xC000: "-2.0", 0x4400: "4.0", 0xC400: "-4.0", 0x3118: INV_2PI_TEXT[1]}
_F64_INLINE = {struct.unpack("<Q", struct.pack("<d", v))[0]: t for v, t in
               ((0.5, "0.5"), (-0.5, "-0.5"), (1.0, "1.0"), (-1.0, "-1.0"), (2.0, "2.0"),
                (-2.0, "-2.0"), (4.0, "4.0"), (-4.0, "-4.0"))}
_F64_INLINE[0x3FC45F306DC9C882] = INV_2PI_TEXT[2]
_F16_BITS = {float(t): b for b, t in _F16_INLINE.items() if t != INV_2PI_TEXT[1]}
_F16_BITS[INV_2PI] = 0x3118
_SDWA_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
_SDWA_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
_OMOD = ("", " mul:2", " mul:4", " div:2")


def literal_text(value, bits=32, integer=False):
    """A literal dword as llvm prints it: inline-looking values by value, others in hex
    (16-bit integer operands never print as floats)."""
    if bits == 16:
        value &= 0xFFFF
        signed = value - 0x10000 if value & 0x8000 else value
        if -16 <= signed <= 64:
            return str(signed)
        return f"0x{value:x}" if integer else _F16_INLINE.get(value, f"0x{value:x}")
    if bits == 64:
        signed = value - (1 << 64) if value >> 63 else value
        if -16 <= signed <= 64:
            return str(signed)
        return _F64_INLINE.get(value, f"0x{value:x}")
    value &= 0xFFFFFFFF
    signed = value - (1 << 32) if value >> 31 else value
    if -16 <= signed <= 64:
        return str(signed)
    return _F32_INLINE.get(value, f"0x{value:x}")


def _operand(op, half=False, half_int=False):
    if op.kind == "literal" and op.count == 2:
        # A 64-bit operand's 32-bit literal prints unsigned, never as a float.
        return str(op.value) if op.value <= 64 else f"0x{op.value:x}"
    if op.kind == "literal":
        return literal_text(op.value, 16 if half else 32, half_int)
    if half_int and op.kind == "inline_float":
        return "0x%x" % _F16_BITS[op.value]
    return op.text


def _with_mods(text, index, neg, abs_, op):
    """neg/abs around a source, as llvm's printOperandAndFPInputMods does."""
    neg = neg >> index & 1
    if abs_ >> index & 1:
        text = f"|{text}|"
    elif neg and op.kind in ("inline_int", "inline_float", "literal"):
        return f"neg({text})"
    return "-" + text if neg else text


_VOP3_FAMILIES = ("VOP3", "VOP3B", "VOP3P")


def _fp_mod_fields(inst, entry):
    """Sources that take neg/abs in this form of the opcode (probed from llvm per form; a
    gfx11 VOP3 with a DPP dword keeps VOP3's)."""
    if inst.form in ("dpp", "sdwa") and inst.encoding not in _VOP3_FAMILIES:
        return entry.mods.get(f"{inst.form}_neg", ())
    return _vop3_mods(inst, entry).get("neg", ())


def _vop_name(inst, entry):
    if not entry.ops or inst.encoding == "VOPC" and inst.form in ("dpp", "dpp8"):
        return inst.mnemonic            # v_nop, gfx11 VOPC: llvm adds no suffix to DPP forms
    if inst.form in ("dpp", "dpp8") and inst.encoding in _VOP3_FAMILIES:
        return inst.mnemonic + "_e64_dpp"          # gfx11: a VOP3 with a DPP dword
    if inst.form in ("dpp", "dpp8"):
        return inst.mnemonic + "_dpp"
    if inst.form == "sdwa":
        return inst.mnemonic + "_sdwa"
    return f"{inst.mnemonic}_{entry.suffix}" if entry.suffix else inst.mnemonic


def _vop3_mods(inst, entry):
    """The modifiers llvm prints for this form (gfx11 VOP3 DPP forms have their own)."""
    if inst.form in ("dpp", "dpp8") and inst.encoding in _VOP3_FAMILIES:
        return entry.mods.get("dpp", entry.mods)
    return entry.mods


def _vop_operands(inst, entry, input_mods):
    dst, src = iter(inst.dst), iter(inst.src)
    texts, seen_src, nsrc = [], False, 0
    mods = inst.mods
    fp = _fp_mod_fields(inst, entry) if input_mods else ()
    neg, abs_ = mods.get("neg", 0), mods.get("abs", 0)
    if inst.mnemonic.startswith("v_fma_mix"):
        abs_ = mods.get("neg_hi", 0)        # v_fma_mix* keeps abs in the neg_hi bits
    elif inst.encoding == "VOP3P":
        fp = ()
    for field, *_ in entry.ops:
        if field.startswith("=") and not seen_src or field in ("vdst", "sdst"):
            texts.append(next(dst).text)
            continue
        seen_src = True
        op = next(src)
        if field in ("src0", "src1", "src2"):
            index = int(field[3])
            nsrc = max(nsrc, index + 1)
            text = _operand(op, field in entry.half, field in entry.half_int)
            if field in fp:
                text = _with_mods(text, index, neg, abs_, op)
            elif field in _vop3_mods(inst, entry).get("sext", ()) and neg >> index & 1:
                text = f"sext({text})"
            elif field in entry.mods.get(f"{inst.form}_sext", ()) and mods.get(f"src{index}_sext"):
                text = f"sext({text})"
            texts.append(text)
        elif field == "param":
            texts.append(_interp_param(op.value))
        elif field == "simm32":               # v_fmamk/v_fmaak: the constant prints in hex
            texts.append(f"0x{op.value:x}")
        else:
            texts.append(_operand(op))
    return texts, nsrc


def _bits(mask, n):
    return "[" + ",".join(str(mask >> i & 1) for i in range(n)) + "]"


def _dpp_ctrl(ctrl, target):
    for name, value in target.dpp_names:
        if ctrl == value:
            return name
    if ctrl <= 0xFF:
        return "quad_perm:[" + ",".join(str(ctrl >> (2 * i) & 3) for i in range(4)) + "]"
    rows = ((0x100, "row_shl"), (0x110, "row_shr"), (0x120, "row_ror")) + \
        tuple((base, name) for name, base in target.dpp_rows)
    for base, name in rows:
        if base < ctrl <= base + 0xF or (base >= 0x150 and base <= ctrl <= base + 0xF):
            return f"{name}:{ctrl - base}"
    return {0x140: "row_mirror", 0x141: "row_half_mirror"}.get(ctrl, f"0x{ctrl:x}")


def _format_vop(inst, entry):
    mods = inst.mods
    texts, nsrc = _vop_operands(inst, entry,
                                inst.form != "dpp8" or inst.encoding in _VOP3_FAMILIES)
    tail = ""
    if inst.encoding in ("VOP3", "VOP3B"):
        if mods.get("bitop3"):        # llvm prints up to 10 in decimal
            value = mods["bitop3"]
            tail += f" bitop3:{value}" if value <= 10 else f" bitop3:0x{value:x}"
        bits = _vop3_mods(inst, entry).get("op_sel", ())
        if bits:
            sel = [0 if b is None else mods["op_sel"] >> b & 1 for b in bits]
            if any(sel):
                tail += " op_sel:[" + ",".join(map(str, sel)) + "]"
        if mods.get("byte_sel"):
            tail += f" byte_sel:{mods['byte_sel']}"
        if mods.get("high"):
            tail += " high"
        if mods["clamp"] and entry.mods.get("clamp"):
            tail += " clamp"
        if entry.mods.get("omod"):
            tail += _OMOD[mods["omod"]]
    elif inst.encoding == "VOP3P" and entry.mods.get("mai"):
        if inst.mnemonic.startswith("v_mfma_scale_"):     # gfx950: the scales, then their bytes
            texts += [_operand(op) for op in inst.src[3:]]
            if mods["op_sel"] & 3:
                tail += " op_sel:" + _bits(mods["op_sel"] & 3, 3)
            tail += " op_sel_hi:" + _bits(mods["op_sel_hi"] & 3, 3)
        for name in ("cbsz", "abid", "blgp"):
            if mods.get(name):
                tail += f" {name}:{mods[name]}"
    elif inst.encoding == "VOP3P":
        mix = inst.mnemonic.startswith("v_fma_mix")
        dpp = inst.form in ("dpp", "dpp8")   # gfx11: llvm shows op_sel_hi when not 0 there
        default_hi = 0 if mix or dpp else (1 << nsrc) - 1
        # gfx11 v_wmma_f32_*: no op_sel fields to print
        printed = _vop3_mods(inst, entry)
        if mods["op_sel"] & ((1 << nsrc) - 1) and (mix or "op_sel" in printed):
            tail += " op_sel:" + _bits(mods["op_sel"], nsrc)
        if (mods["op_sel_hi"] & ((1 << nsrc) - 1)) != default_hi and \
                (mix or dpp or "op_sel_hi" in printed):
            tail += " op_sel_hi:" + _bits(mods["op_sel_hi"], nsrc)
        if mods.get("index_key"):
            tail += f" index_key:{mods['index_key']}"
        if not mix:
            if mods["neg"] & ((1 << nsrc) - 1):
                tail += " neg_lo:" + _bits(mods["neg"], nsrc)
            if mods["neg_hi"] & ((1 << nsrc) - 1):
                tail += " neg_hi:" + _bits(mods["neg_hi"], nsrc)
        if mods["clamp"]:
            tail += " clamp"
    if inst.form == "dpp":
        tail += (f" {_dpp_ctrl(mods['dpp_ctrl'], targets.get(inst.target))}"
                 f" row_mask:0x{mods['row_mask']:x} bank_mask:0x{mods['bank_mask']:x}")
        if mods["bound_ctrl"]:
            tail += " bound_ctrl:1"
        if mods["fi"]:
            tail += " fi:1"
    elif inst.form == "dpp8":
        tail += " dpp8:[" + ",".join(map(str, mods["dpp8"])) + "]"
        if mods["fi"]:
            tail += " fi:1"
    elif inst.form == "sdwa":
        if inst.encoding != "VOPC":
            if mods["clamp"] and entry.mods.get("sdwa_clamp"):
                tail += " clamp"
            if entry.mods.get("sdwa_omod"):
                tail += _OMOD[mods["omod"]]
            if not entry.mods.get("sdwa_no_dst_sel"):
                tail += (f" dst_sel:{_SDWA_SEL[mods['dst_sel']]}"
                         f" dst_unused:{_SDWA_UNUSED[mods['dst_unused']]}")
        tail += f" src0_sel:{_SDWA_SEL[mods['src0_sel']]}"
        if nsrc > 1:
            tail += f" src1_sel:{_SDWA_SEL[mods['src1_sel']]}"
    name = _vop_name(inst, entry)
    return f"{name} {', '.join(texts)}{tail}" if texts else name + tail


def _waitcnt(simm, target):
    """Each counter below its maximum by name (all of them when none is)."""
    parts = []
    for name, fields in target.waitcnt:
        value, shift = 0, 0
        for low, width in fields:
            value |= (simm >> low & ((1 << width) - 1)) << shift
            shift += width
        top = (1 << shift) - 1
        parts.append((f"{name}({value})", value != top))
    shown = [t for t, keep in parts if keep]
    return " ".join(shown or [t for t, _ in parts])


# s_waitcnt_depctr fields (name, low bit, width) in the order llvm prints them.
_DEPCTR = (("depctr_hold_cnt", 7, 1), ("depctr_sa_sdst", 0, 1), ("depctr_va_vdst", 12, 4),
           ("depctr_va_sdst", 9, 3), ("depctr_va_ssrc", 8, 1), ("depctr_va_vcc", 1, 1),
           ("depctr_vm_vsrc", 2, 3))


def _depctr(simm):
    """Fields below their maximum by name (all when none is), hex when unknown bits are set."""
    if simm & 0x60:
        return f"0x{simm:x}"
    fields = [(name, simm >> low & ((1 << width) - 1), (1 << width) - 1)
              for name, low, width in _DEPCTR]
    shown = [f"{name}({v})" for name, v, top in fields if v != top]
    return " ".join(shown or [f"{name}({v})" for name, v, _ in fields])


def _sendmsg(simm, target):
    """A named message when bits 9:0 make one (llvm ignores the rest), else the numeric
    form when the value is exactly id | op << 4 | stream << 8, else the number."""
    named = target.opcodes.SENDMSG_TEXT
    if simm & 0x3FF in named:
        return named[simm & 0x3FF]
    id_mask = (1 << target.sendmsg_id_bits) - 1
    if id_mask > 0xF and not simm & ~id_mask:            # gfx11: an 8-bit id alone
        return f"sendmsg({simm}, 0, 0)"
    if id_mask == 0xF and not simm & ~0x37F:
        return f"sendmsg({simm & 0xF}, {simm >> 4 & 7}, {simm >> 8 & 3})"
    return str(simm)


def _hwreg(mods, target):
    reg, offset, size = mods["hwreg"]
    name = target.opcodes.HWREG_NAMES.get(reg, str(reg))
    if offset == 0 and size == 32:
        return f"hwreg({name})"
    return f"hwreg({name}, {offset}, {size})"


# s_delay_alu's instruction dependencies and skips (gfx11), by field value.
_DELAY_IDS = ("NO_DEP", "VALU_DEP_1", "VALU_DEP_2", "VALU_DEP_3", "VALU_DEP_4",
              "TRANS32_DEP_1", "TRANS32_DEP_2", "TRANS32_DEP_3", "FMA_ACCUM_CYCLE_1",
              "SALU_CYCLE_1", "SALU_CYCLE_2", "SALU_CYCLE_3")
_DELAY_SKIPS = ("SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4")


def _delay_alu(simm):
    """instid0 [3:0] | instskip [6:4] | instid1 [10:7], each shown when not zero."""
    id0, skip, id1 = simm & 0xF, simm >> 4 & 7, simm >> 7 & 0xF
    if id0 >= len(_DELAY_IDS) or id1 >= len(_DELAY_IDS) or skip >= len(_DELAY_SKIPS):
        return f"0x{simm:x}"
    parts = [f"instid0({_DELAY_IDS[id0]})" if id0 else "",
             f"instskip({_DELAY_SKIPS[skip]})" if skip else "",
             f"instid1({_DELAY_IDS[id1]})" if id1 else ""]
    return " | ".join(p for p in parts if p) or "0"


def _format_sopp(inst, entry):
    simm = inst.mods["simm16"]
    style = entry.imm
    target = targets.get(inst.target)
    if style == "none" or (style == "dec0" and simm == 0):
        return inst.mnemonic
    if style in ("dec", "dec0"):
        arg = str(simm)
    elif style == "imm":
        arg = str(simm) if simm <= 64 else f"0x{simm:x}"
    elif style == "hex":
        arg = f"0x{simm:x}"
    elif style == "waitcnt":
        arg = _waitcnt(simm, target)
    elif style in ("sendmsg", "sendmsghalt"):
        arg = _sendmsg(simm, target)
    elif style == "waitcnt_depctr":
        arg = _depctr(simm)
    elif style == "delay_alu":
        arg = _delay_alu(simm)
    elif style == "gpr_idx":
        arg = _gpr_idx(simm)
    else:
        arg = f"0x{simm:x}"
    return f"{inst.mnemonic} {arg}"


def _format_sopk(inst, entry):
    simm = inst.mods["simm16"]
    texts = []
    regs = iter(inst.dst + inst.src)
    for field, *_ in entry.ops:
        if field == "sdst":
            texts.append(next(regs).text)
        elif field == "simm32":
            texts.append(literal_text(inst.src[-1].value))
        elif entry.imm == "hwreg":
            texts.append(_hwreg(inst.mods, targets.get(inst.target)))
        elif entry.imm == "hex":
            texts.append(f"0x{simm:x}")
        else:
            texts.append(str(simm))
    return f"{inst.mnemonic} {', '.join(texts)}"


def _gpr_idx(mode):
    """gfx9's VGPR index mode: the indexed operands by name up to 15, else hex."""
    if mode > 15:
        return f"0x{mode:x}"
    return "gpr_idx(" + ",".join(n for i, n in enumerate(("SRC0", "SRC1", "SRC2", "DST"))
                                 if mode >> i & 1) + ")"


def _format_scalar(inst, entry):
    texts = [_operand(op) for op in inst.dst + inst.src]
    if any(f == "gpr_idx" for f, *_ in entry.ops):
        texts[-1] = _gpr_idx(inst.src[-1].value)
    elif any(f == "msg" for f, *_ in entry.ops):
        texts[-1] = _sendmsg(inst.src[-1].value, targets.get(inst.target))
    return f"{inst.mnemonic} {', '.join(texts)}" if texts else inst.mnemonic


def _signed_hex(value):
    return f"-0x{-value:x}" if value < 0 else f"0x{value:x}"


def _format_smem(inst, entry):
    mods = inst.mods
    texts = [op.text for op in inst.dst]
    if entry.ops and entry.ops[0][0].startswith("="):       # s_atc_probe: sdata is a number
        sdata = mods["sdata"]
        texts.append(str(sdata) if sdata <= 64 else f"0x{sdata:x}")
    if not inst.src:
        return f"{inst.mnemonic} {', '.join(texts)}" if texts else inst.mnemonic
    texts.append(inst.src[0].text)
    if mods.get("imm") and len(inst.src) == 1:      # gfx9: a byte offset, 0 included
        texts.append(_signed_hex(mods["offset"]))
    elif mods.get("soe") and mods["imm"]:           # gfx9: an SGPR and the offset, 0 too
        texts.append(f"{inst.src[1].text} offset:{_signed_hex(mods['offset'])}")
    elif mods.get("soe"):
        texts.append(inst.src[1].text)
    elif targets.get(inst.target).temporal_hints:  # gfx12: an SGPR then the offset, or the offset
        texts.append(f"{inst.src[1].text} offset:{_signed_hex(mods['offset'])}"
                     if len(inst.src) > 1 else _signed_hex(mods["offset"]))
    elif len(inst.src) > 1 or not mods["offset"]:   # llvm shows soffset (even null) then
        texts.append(inst.src[1].text if len(inst.src) > 1 else "null")
        if mods["offset"]:
            texts[-1] += f" offset:{_signed_hex(mods['offset'])}"
    else:
        texts.append(_signed_hex(mods["offset"]))
    text = f"{inst.mnemonic} {', '.join(texts)}"
    if not inst.dst:
        return text
    if targets.get(inst.target).temporal_hints:
        return text + _temporal_hints(inst)
    return text + (" glc" if mods["glc"] else "") + (" dlc" if mods["dlc"] else "")


def _swizzle(offset):
    """ds_swizzle_b32's offset in llvm's swizzle(...) syntax."""
    if offset & 0x8000 and offset & 0xFF00 != 0x8000:
        return str(offset)                  # no swizzle mode: llvm prints the number
    if offset & 0x8000:
        return "swizzle(QUAD_PERM," + ",".join(str(offset >> (2 * i) & 3) for i in range(4)) + ")"
    and_mask, or_mask, xor_mask = offset & 0x1F, offset >> 5 & 0x1F, offset >> 10 & 0x1F
    if and_mask == 0x1F and or_mask == 0 and bin(xor_mask).count("1") == 1:
        return f"swizzle(SWAP,{xor_mask})"
    if and_mask == 0x1F and or_mask == 0 and xor_mask and not (xor_mask + 1) & xor_mask:
        return f"swizzle(REVERSE,{xor_mask + 1})"
    group = 0x20 - and_mask
    if group > 1 and not group & (group - 1) and or_mask < group and xor_mask == 0:
        return f"swizzle(BROADCAST,{group},{or_mask})"
    # Each lane-id bit: the value a lane with that bit 0 / 1 reads, as llvm spells it.
    low = (0 | or_mask) ^ xor_mask
    high = (and_mask | or_mask) ^ xor_mask
    chars = []
    for bit in range(4, -1, -1):
        p0, p1 = low >> bit & 1, high >> bit & 1
        chars.append(str(p0) if p0 == p1 else ("p" if p0 == 0 else "i"))
    return 'swizzle(BITMASK_PERM,"' + "".join(chars) + '")'


# ds_read2_b32, ds_write2st64_b64, ... (gfx11: ds_load_2addr_b32, ds_store_2addr_stride64_b64)
_TWO_ADDRESS = re.compile(r"ds_[a-z]+2(st64)?_|ds_[a-z]+_2addr_")


def _format_ds(inst, entry):
    mods = inst.mods
    texts = [op.text for op in inst.dst + inst.src]
    text = f"{inst.mnemonic} {', '.join(texts)}" if texts else inst.mnemonic
    if _TWO_ADDRESS.match(inst.mnemonic):
        if mods["offset0"]:
            text += f" offset0:{mods['offset0']}"
        if mods["offset1"]:
            text += f" offset1:{mods['offset1']}"
    elif mods["offset"] and inst.mnemonic == "ds_swizzle_b32":
        text += f" offset:{_swizzle(mods['offset'])}"
    elif mods["offset"]:
        text += f" offset:{mods['offset']}"
    return text + (" gds" if mods["gds"] else "")


def _format_flat(inst, entry):
    mods = inst.mods
    if not entry.ops:                     # gfx12's global_inv, global_wb: the scope alone
        return inst.mnemonic + _temporal_hints(inst)
    addr_count = 0 if mods["vaddr_off"] else 2 if mods.get("vaddr_saddr") else \
        1 if inst.encoding in ("FLAT", "SCRATCH") or mods["saddr_off"] or mods["addtid"] else 2
    addr = inst.src[:addr_count]
    data = inst.src[addr_count:]
    texts = [op.text for op in inst.dst]
    if mods["vaddr_off"]:
        texts += ["off", *[op.text for op in data], "off"]
    elif mods["addtid"]:
        texts += [op.text for op in data] + ["off" if mods["saddr_off"] else addr[0].text]
    elif mods.get("vaddr_saddr"):         # gfx11 scratch: a VGPR offset and an SGPR base
        texts += [addr[0].text, *[op.text for op in data], addr[1].text]
    elif inst.encoding == "SCRATCH" and not mods["saddr_off"]:
        texts += ["off", *[op.text for op in data], addr[0].text]
    else:
        texts += [addr[0].text, *[op.text for op in data]]
        if inst.encoding == "GLOBAL":
            texts.append("off" if mods["saddr_off"] else addr[1].text)
        elif inst.encoding == "SCRATCH":
            texts.append("off")
    text = f"{inst.mnemonic} {', '.join(texts)}"
    if mods["offset"]:
        text += f" offset:{mods['offset']}"
    return text + _cache_policy(inst, ("glc", "slc", "dlc", "scc"))


def _format_buffer(inst, entry):
    mods = inst.mods
    if not inst.src:
        # The cache-control instructions (buffer_wbl2, buffer_inv): gfx940+ names which
        # caches by sc0/sc1; earlier llvm prints none of their bits.
        if not targets.get(inst.target).cache_policy_names:
            return inst.mnemonic
        return inst.mnemonic + _cache_policy(inst, ("glc", "scc"))
    n_addr = 3 if (mods["offen"] or mods["idxen"]) else 2
    addr = inst.src[:n_addr]
    data = inst.src[n_addr:]
    vdata = (data or inst.dst or (None,))[0]
    texts = [vdata.text] if vdata is not None else []
    if n_addr == 2:
        texts.append("off")
    texts += [_operand(op) for op in addr]
    text = f"{inst.mnemonic} {', '.join(texts)}"
    if inst.encoding == "MTBUF" and mods["format"] != 1:      # 1 is llvm's default format
        formats = targets.get(inst.target).opcodes.BUFFER_FORMATS
        text += f" format:{formats.get(mods['format'], mods['format'])}"
    for flag in ("idxen", "offen"):
        if mods[flag]:
            text += f" {flag}"
    if mods["offset"]:
        text += f" offset:{mods['offset']}"
    flags = ("glc", "slc", "dlc", "scc", "lds") if "atomic" in inst.mnemonic else \
        ("glc", "slc", "dlc", "scc", "lds", "tfe")
    return text + _cache_policy(inst, flags)


def _cache_policy(inst, flags):
    """The set flags of a memory instruction, named as the target's llvm names them (gfx940+:
    glc, slc and scc are the cache-policy bits sc0, nt and sc1; gfx12 has th and scope)."""
    target = targets.get(inst.target)
    if target.temporal_hints:
        return _temporal_hints(inst)
    names = target.cache_policy_names
    return "".join(f" {names.get(flag, flag)}" for flag in flags if inst.mods.get(flag))


_SCOPES = ("", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS")
# th of loads and stores by value (3 depends on the scope: _temporal_hints); 7 is reserved
# for loads. Atomics' th is bits: RETURN 1, NT 2, CASCADE 4.
_LOAD_HINTS = {1: "NT", 2: "HT", 4: "NT_RT", 5: "RT_NT", 6: "NT_HT"}
_STORE_HINTS = {**_LOAD_HINTS, 7: "NT_WB"}


def _temporal_hints(inst):
    """gfx12's ' th:... scope:...' as llvm prints them (each only when not zero)."""
    th, scope = inst.mods.get("th", 0), inst.mods.get("scope", 0)
    text = ""
    if th:
        name = inst.mnemonic
        if "atomic" in name:
            if th & 4:
                hint = ("CASCADE_NT" if th & 2 else "CASCADE_RT") if scope >= 2 else None
            elif th & 2:
                hint = "NT_RETURN" if th & 1 else "NT"
            else:
                hint = "RETURN"
            text = f" th:TH_ATOMIC_{hint}" if hint else f" th:TH_ATOMIC_0x{th:x}"
        else:
            store = "store" in name
            if th == 3:
                hint = "BYPASS" if scope == 3 else "WB" if store else "LU"
            else:
                hint = (_STORE_HINTS if store else _LOAD_HINTS).get(th)
            text = f" th:TH_{'STORE' if store else 'LOAD'}_{hint}" if hint else f" th:0x{th:x}"
    return text + (f" scope:{_SCOPES[scope]}" if scope else "")


_MIMG_FLAGS = ("unorm", "glc", "slc", "dlc", "r128", "a16", "tfe", "lwe", "d16")


def _format_mimg(inst, entry):
    mods = inst.mods
    resources = 2 if any(field == "ssamp" for field, *_ in entry.ops) else 1
    kind = mimg.op_of(inst.mnemonic).kind
    data = inst.src[-1] if kind in ("store", "atomic") else inst.dst[0]
    addresses = inst.src[:len(inst.src) - resources - (kind in ("store", "atomic"))]
    addr = (f"[{', '.join(op.text for op in addresses)}]" if mods["nsa"]
            else addresses[0].text)
    texts = [data.text, addr] + [op.text for op in inst.src[len(addresses):len(addresses) + resources]]
    text = f"{inst.mnemonic} {', '.join(texts)}"
    if mods["dmask"]:
        text += f" dmask:0x{mods['dmask']:x}"
    text += f" dim:{mimg.DIMS[mods['dim']].name}"
    return text + "".join(f" {flag}" for flag in _MIMG_FLAGS if mods[flag])


# gfx12's image flags, in llvm's order around the cache policy.
_VIMAGE_FLAGS = (("unorm",), ("r128", "a16", "tfe", "lwe", "d16"))


def _format_vimage(inst, entry):
    """gfx12's VIMAGE/VSAMPLE: the address VGPRs listed ([v4, v5, v[6:8]]) when more than
    one operand names them, th/scope in place of glc/slc/dlc."""
    mods = inst.mods
    resources = 2 if any(field == "ssamp" for field, *_ in entry.ops) else 1
    kind = mimg.op_of(entry.name).kind
    data = inst.src[-1] if kind in ("store", "atomic") else inst.dst[0]
    addresses = inst.src[:len(inst.src) - resources - (kind in ("store", "atomic"))]
    addr = addresses[0].text if len(addresses) == 1 else \
        f"[{', '.join(op.text for op in addresses)}]"
    texts = [data.text, addr] + [op.text for op in inst.src[len(addresses):len(addresses) + resources]]
    text = f"{entry.name} {', '.join(texts)}"
    if mods["dmask"]:
        text += f" dmask:0x{mods['dmask']:x}"
    text += f" dim:{mimg.DIMS[mods['dim']].name}"
    before, after = _VIMAGE_FLAGS
    text += "".join(f" {flag}" for flag in before if mods[flag])
    return text + _temporal_hints(inst) + "".join(f" {flag}" for flag in after if mods[flag])


def _interp_param(value):
    return {0: "p10", 1: "p20", 2: "p0"}.get(value, f"invalid_param_{value}")


def _format_vintrp(inst, entry):
    mods = inst.mods
    attr = f"attr{mods['attr']}.{'xyzw'[mods['chan']]}"
    if inst.opcode == 2:
        return f"{inst.mnemonic}_e32 {inst.dst[0].text}, {_interp_param(mods['vsrc'])}, {attr}"
    return f"{inst.mnemonic}_e32 {inst.dst[0].text}, {inst.src[0].text}, {attr}"


def _export_target(target):
    if target < 8:
        return f"mrt{target}"
    if 12 <= target <= 16:
        return f"pos{target - 12}"
    if 32 <= target < 64:
        return f"param{target - 32}"
    return {8: "mrtz", 9: "null", 20: "prim"}.get(target, f"invalid_target_{target}")


def _format_exp(inst, entry):
    mods = inst.mods
    # Compressed exports send two packed sources: slots 0-1 show vsrc0, slots 2-3 vsrc1.
    regs = [inst.src[i // 2] for i in range(4)] if mods["compr"] else list(inst.src)
    texts = [r.text if mods["en"] >> i & 1 else "off" for i, r in enumerate(regs)]
    text = f"exp {_export_target(mods['target'])} {', '.join(texts)}"
    return text + "".join(f" {flag}" for flag in ("done", "compr", "vm") if mods[flag])


_FORMATS = {"VINTRP": _format_vintrp, "EXP": _format_exp, "SOPP": _format_sopp, "SOPK": _format_sopk, "SOP1": _format_scalar,
            "SOP2": _format_scalar, "SOPC": _format_scalar, "SMEM": _format_smem,
            "DS": _format_ds, "FLAT": _format_flat, "GLOBAL": _format_flat,
            "SCRATCH": _format_flat, "MUBUF": _format_buffer, "MTBUF": _format_buffer,
            "MIMG": _format_mimg, "VIMAGE": _format_vimage, "VSAMPLE": _format_vimage}


def format_instruction(inst):
    """llvm-objdump's text for one decoded instruction."""
    if inst.halves:                     # gfx11 VOPD: "X :: Y"
        return " :: ".join(format_instruction(half) for half in inst.halves)
    family = "VOPD" + inst.form.upper() if inst.encoding == "VOPD" else inst.encoding
    entry = table_entry(family, inst.opcode, target=inst.target)
    return _FORMATS.get(inst.encoding, _format_vop)(inst, entry)

