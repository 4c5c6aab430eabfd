"""The decoded instruction record the executor and the disassembler share.

Invariants:
- a record is immutable and hashable, so the executor can cache it per code address;
- `dst`/`src` hold the operands llvm prints, in its order (destinations first), fixed
  registers included: VOPC e32 has dst (vcc_lo,), v_cndmask_b32_e32 src (a, b, vcc_lo),
  v_add_co_ci_u32_e32 dst (d, vcc_lo) and src (a, b, vcc_lo), the same shapes as their
  VOP3 forms; `implicit_dst`/`implicit_src` only the registers llvm does not print
  (v_cmpx writes exec, s_cbranch_vccz reads vcc, s_cbranch_scc0 and s_cselect read scc,
  v_movrel* read m0), so `src + implicit_src` lists every register read exactly once;
- register operands carry the first register and the width in dwords, so a 64-bit
  source `s[4:5]` is Operand('sgpr', 4, 2) and the executor never re-derives widths;
- `text` is exactly what `llvm-objdump-15 -d --mcpu=<target>` prints for the instruction
  (mnemonic and operands, without the trailing comment);
- operands are target-neutral: register and special-register numbers are gfx10 operand
  field ids whatever the target (gfx11's m0 is Operand('special', 124) like gfx10's); gfx9's
  flat_scratch/xnack_mask are the specials 102-105; gfx90a's accumulation registers are
  Operand('agpr', n, width), in the same places a VGPR would be (MFMA's vdst/src2 with
  acc_cd, v_accvgpr_read's src0, a DS/FLAT/MUBUF data register with the acc bit);
- `target` names the processor whose tables decoded the record (its text and, for
  renamed opcodes, its mnemonic are that target's); a gfx11 VOPD dual-issue instruction is
  one record: `halves` holds the X and Y instructions as two VOP2-shaped records
  (encoding 'VOPD', form 'x' / 'y', each with its own dst/src), and the outer record's
  dst/src are X's then Y's. Both halves read their sources before either writes.

Memory operands, in `src` order (the data a store or atomic sends comes last):
- SMEM: dst (sdata,), src (sbase[, soffset]) — soffset only when not null; mods offset
  (signed 21-bit), glc, dlc;
- DS: dst (vdst,) when it returns, src (addr[, data0[, data1]]); mods offset (16-bit),
  offset0/offset1 (read2/write2 forms, in elements), gds;
- FLAT: src (v[addr:2], data); GLOBAL: (v[addr:2], data) when mods saddr_off, else
  (v_offset, s[saddr:2], data); SCRATCH: (v_addr, data), (s_addr, data) or (data,) when
  mods vaddr_off; atomics have dst (vdst,) only with glc; mods offset (signed 12-bit for
  global/scratch), glc, slc, dlc;
- MUBUF/MTBUF: src ([vaddr (2 dwords with both idxen and offen)], s[rsrc:4], soffset[,
  vdata]); loads and glc atomics have dst (vdata,); mods offset, offen, idxen, glc, slc,
  dlc, lds, tfe (MTBUF: format);
- MIMG: src (addresses..., s[srsrc:8][, s[ssamp:4]][, vdata]) — the addresses are one VGPR
  tuple, or with NSA one VGPR per address dword; stores and atomics send vdata last, loads,
  samples and glc atomics have dst (vdata,); mods dmask, dim (0-7: 1D, 2D, 3D, cube, 1D
  array, 2D array, 2D MSAA, 2D MSAA array), nsa (extra dwords), unorm, glc, slc, dlc, r128,
  tfe, lwe, a16, d16. Register widths are llvm's (core.isa.mimg): the true sizes for every
  well-formed encoding;
- VIMAGE/VSAMPLE (gfx12's images): as MIMG, the addresses one VGPR per address dword but the
  fourth operand, which holds the rest; mods as MIMG's (nsa 0, glc th's low bit) with th
  and scope.
"""
from collections.abc import Mapping
from dataclasses import dataclass, field

# Scalar operand field ids (gfx10) that name special registers, as llvm spells them.
SPECIAL_NAMES = {
    102: "flat_scratch_lo", 103: "flat_scratch_hi", 104: "xnack_mask_lo",  # gfx9 only
    105: "xnack_mask_hi",
    106: "vcc_lo", 107: "vcc_hi", 124: "m0", 125: "null", 126: "exec_lo", 127: "exec_hi",
    235: "src_shared_base", 236: "src_shared_limit", 237: "src_private_base",
    238: "src_private_limit", 239: "src_pops_exiting_wave_id",
    251: "src_vccz", 252: "src_execz", 253: "src_scc", 254: "src_lds_direct",
}
# 64-bit views of register pairs that llvm names as one register.
SPECIAL_PAIR_NAMES = {102: "flat_scratch", 104: "xnack_mask", 106: "vcc", 126: "exec"}

FLAT_SCRATCH_LO = 102      # gfx9: the SGPR pair 102:103 is FLAT_SCRATCH
VCC_LO = 106
EXEC_LO = 126
M0 = 124
NULL = 125
SCC = 253
TTMP = 108          # ttmp0's operand field id (gfx10's numbering, as the engine keeps SGPRs)

# 1/(2*pi) as the inline constant 248 denotes it, printed the way llvm prints it per width.
INV_2PI_TEXT = {1: "0.15915494", 2: "0.15915494309189532"}
INV_2PI = 0.15915494309189532


@dataclass(frozen=True, slots=True)
class Operand:
    """One operand: kind in ('sgpr','vgpr','agpr','ttmp','special','inline_int',
    'inline_float','literal','label','off','null','attr'); index is the first register number (the field id
    for 'special', e.g. 106 for vcc_lo; the attribute of an 'attr'); count its width in
    dwords; value the constant (inline, literal as the raw 32-bit pattern), the branch
    target address of a 'label', or the channel (0-3 for x-w) of an 'attr'."""
    kind: str
    index: int = 0
    count: int = 1
    value: int | float | None = None

    @property
    def text(self) -> str:
        kind = self.kind
        if kind in ("sgpr", "vgpr", "agpr", "ttmp"):
            prefix = {"sgpr": "s", "vgpr": "v", "agpr": "a", "ttmp": "ttmp"}[kind]
            if self.count == 1:
                return f"{prefix}{self.index}"
            return f"{prefix}[{self.index}:{self.index + self.count - 1}]"
        if kind == "special":
            if self.count >= 2 and self.index in SPECIAL_PAIR_NAMES:
                return SPECIAL_PAIR_NAMES[self.index]
            return SPECIAL_NAMES[self.index]
        if kind == "inline_int":
            return str(self.value)
        if kind == "inline_float":
            if self.value == INV_2PI:
                return INV_2PI_TEXT[2 if self.count == 2 else 1]
            return repr(float(self.value))
        if kind == "literal":
            return f"0x{self.value:x}"
        if kind == "label":
            return f"0x{self.value:x}"
        if kind == "attr":
            return f"attr{self.index}.{'xyzw'[self.value]}"
        if kind == "off":
            return "off"
        if kind == "null":
            return "null"
        raise ValueError(f"unknown operand kind {kind!r}")


class Mods(Mapping):
    """A frozen, hashable mapping of instruction modifiers (offset, glc, neg, dpp_ctrl, ...)."""
    __slots__ = ("_items", "_hash")

    def __init__(self, items=()):
        self._items = dict(items)
        self._hash = None

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(tuple(sorted(self._items.items(), key=lambda kv: kv[0])))
        return self._hash

    def __repr__(self):
        return f"Mods({self._items!r})"


NO_MODS = Mods()


@dataclass(frozen=True, slots=True)
class Instruction:
    """One decoded instruction. `encoding` is the family ('SOP1', 'VOP3', 'VOP3B', 'GLOBAL',
    'VOPD', ...); `mnemonic` the base llvm name without _e32/_e64/_dpp/_sdwa, `form` that
    suffix ('e32', 'e64', 'dpp', 'dpp8', 'sdwa' or '' for families without one; a gfx11 VOP3
    with a DPP dword has form 'dpp'/'dpp8'); `size` counts the literal dword too."""
    address: int
    size: int
    encoding: str
    opcode: int
    mnemonic: str
    form: str
    dst: tuple = ()
    src: tuple = ()
    mods: Mods = field(default=NO_MODS)
    implicit_dst: tuple = ()
    implicit_src: tuple = ()
    wave64: bool = False
    target: str = "gfx1030"
    halves: tuple = ()

    @property
    def next_address(self) -> int:
        return self.address + self.size
