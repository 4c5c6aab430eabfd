"""Instruction encodings per ISA generation: which bits tell a family apart, where its fields lie.

Holds these invariants:
- a Format is pure data (the fixed bits of its first dword, its base size in dwords, and
  each field as bit ranges of the little-endian value of its base dwords, as LLVM's
  `Inst{hi-lo}` numbers them); the decoder, the table generator
  (ci/gen/isa_tables.py) and the tests read and build instructions through it and nothing
  else knows a bit position;
- `Generation.identify(dword)` is the one family a first dword belongs to: formats are tried
  most specific first (more fixed bits), so SOPK's 1011 prefix wins over SOP2's 10;
- a field may be split (MTBUF's opcode: three bits in dword 0, one in dword 1); its parts
  are listed low bits first and `get`/`encode` join and split them.

GFX9 (gfx90a), GFX10 (gfx1030) and GFX11 (gfx1100) share the SOP and VOP1/VOP2/VOPC layouts
and differ in the rest: GFX9 puts VOP3 at 0x34 (0x35 is its VINTRP), VOP3P at 0x1a7 (MFMA
and v_accvgpr_* live there with accumulation-register bits), SMEM at 0x30 with imm/soe bits,
13-bit FLAT offsets and an `acc` bit in DS/FLAT/MUBUF naming AGPRs; GFX11 adds VOPD at 0x32,
moves FLAT's cache bits and adds `sve`, and reorders MUBUF's second dword; GFX12 (gfx1200,
gfx1201) keeps GFX11's ALU words and re-encodes memory in three dwords (GFX12 below).
"""


class Format:
    """One family's layout in one generation. `fields` maps a name to its parts, each
    (low bit, width) in the value of the base dwords (two, or gfx12 memory's three)."""

    def __init__(self, family, dwords, mask, value, **fields):
        self.family = family
        self.dwords = dwords
        self.mask = mask                # fixed bits of dword 0 ...
        self.value = value              # ... and their values
        self.fields = {name: (parts if isinstance(parts[0], tuple) else (parts,))
                       for name, parts in fields.items()}

    def get(self, bits, name):
        """Field `name` of an instruction whose base dwords are `bits` (an int)."""
        value, shift = 0, 0
        for low, width in self.fields[name]:
            value |= (bits >> low & ((1 << width) - 1)) << shift
            shift += width
        return value

    def has(self, name):
        return name in self.fields

    def encode(self, **values):
        """The format's dwords with its fixed bits and the given fields set (others zero)."""
        bits = self.value
        for name, value in values.items():
            for low, width in self.fields[name]:
                bits |= (value & ((1 << width) - 1)) << low
                value >>= width
        return [bits >> (32 * i) & 0xFFFFFFFF for i in range(self.dwords)]

    def __repr__(self):
        return f"Format({self.family})"


class Generation:
    """The formats of one ISA generation, by family name."""

    def __init__(self, name, *formats):
        self.name = name
        self.formats = {f.family: f for f in formats}
        self._order = sorted(formats, key=lambda f: -bin(f.mask).count("1"))

    def __getitem__(self, family):
        return self.formats[family]

    def __contains__(self, family):
        return family in self.formats

    def identify(self, dword):
        """The Format whose fixed bits dword 0 has, or None."""
        for fmt in self._order:
            if dword & fmt.mask == fmt.value:
                return fmt
        return None


# ---- shared layouts --------------------------------------------------------------------

def _scalar_formats():
    return (
        Format("SOP2", 1, 0xC0000000, 0x80000000, op=(23, 7), sdst=(16, 7), src1=(8, 8),
               src0=(0, 8)),
        Format("SOPK", 1, 0xF0000000, 0xB0000000, op=(23, 5), sdst=(16, 7), simm16=(0, 16)),
        Format("SOP1", 1, 0xFF800000, 0xBE800000, sdst=(16, 7), op=(8, 8), src0=(0, 8)),
        Format("SOPC", 1, 0xFF800000, 0xBF000000, op=(16, 7), src1=(8, 8), src0=(0, 8)),
        Format("SOPP", 1, 0xFF800000, 0xBF800000, op=(16, 7), simm16=(0, 16)),
    )


def _vop_short_formats():
    return (
        Format("VOP1", 1, 0xFE000000, 0x7E000000, vdst=(17, 8), op=(9, 8), src0=(0, 9)),
        Format("VOP2", 1, 0x80000000, 0x00000000, op=(25, 6), vdst=(17, 8), src1=(9, 8),
               src0=(0, 9)),
        Format("VOPC", 1, 0xFE000000, 0x7C000000, op=(17, 8), src1=(9, 8), src0=(0, 9)),
    )


_SOURCES = dict(src0=(32, 9), src1=(41, 9), src2=(50, 9))


def _vop3(value):
    return Format("VOP3", 2, 0xFC000000, value, op=(16, 10), clamp=(15, 1), op_sel=(11, 4),
                  abs=(8, 3), sdst=(8, 7), vdst=(0, 8), omod=(59, 2), neg=(61, 3), **_SOURCES)


def _vop3p(mask, value, **more):
    return Format("VOP3P", 2, mask, value, op=(16, 7), clamp=(15, 1), op_sel_hi2=(14, 1),
                  op_sel=(11, 3), neg_hi=(8, 3), vdst=(0, 8), op_sel_hi=(59, 2), neg=(61, 3),
                  **_SOURCES, **more)


def _ds(op, **more):
    return Format("DS", 2, 0xFC000000, 0xD8000000, op=op, offset1=(8, 8), offset0=(0, 8),
                  offset=(0, 16), addr=(32, 8), data0=(40, 8), data1=(48, 8), vdst=(56, 8),
                  **more)


_FLAT_REGS = dict(addr=(32, 8), data=(40, 8), saddr=(48, 7), vdst=(56, 8))
_BUFFER_REGS = dict(vaddr=(32, 8), vdata=(40, 8), srsrc=(48, 5), soffset=(56, 8))
_EXPORT = dict(en=(0, 4), target=(4, 6), compr=(10, 1), done=(11, 1), vm=(12, 1),
               vsrc0=(32, 8), vsrc1=(40, 8), vsrc2=(48, 8), vsrc3=(56, 8))
_VINTRP = dict(vdst=(18, 8), op=(16, 2), attr=(10, 6), chan=(8, 2), vsrc=(0, 8))


GFX9 = Generation(
    "gfx9", *_scalar_formats(), *_vop_short_formats(),
    Format("SMEM", 2, 0xFC000000, 0xC0000000, op=(18, 8), imm=(17, 1), glc=(16, 1), nv=(15, 1),
           soe=(14, 1), sdata=(6, 7), sbase=(0, 6), offset=(32, 21), soffset=(57, 7)),
    _vop3(0xD0000000),
    # MFMA reuses VOP3P's bits: acc_cd (vdst/src2 are AGPRs), abid, cbsz, acc (src0/src1
    # AGPRs) and blgp overlay clamp, op_sel, neg_hi, op_sel_hi and neg.
    _vop3p(0xFF800000, 0xD3800000, acc_cd=(15, 1), abid=(11, 4), cbsz=(8, 3), acc=(59, 2),
           blgp=(61, 3)),
    _ds((17, 8), gds=(16, 1), acc=(25, 1)),
    Format("FLAT", 2, 0xFC000000, 0xDC000000, op=(18, 7), scc=(25, 1), slc=(17, 1), glc=(16, 1),
           seg=(14, 2), lds=(13, 1), offset=(0, 13), acc=(55, 1), **_FLAT_REGS),
    Format("MUBUF", 2, 0xFC000000, 0xE0000000, op=(18, 7), slc=(17, 1), lds=(16, 1),
           scc=(15, 1), glc=(14, 1), idxen=(13, 1), offen=(12, 1), offset=(0, 12), acc=(55, 1),
           **_BUFFER_REGS),
    # format: dfmt in its low four bits, nfmt in the high three.
    Format("MTBUF", 2, 0xFC000000, 0xE8000000, op=(15, 4), scc=(53, 1), format=(19, 7),
           glc=(14, 1),
           idxen=(13, 1), offen=(12, 1), offset=(0, 12), slc=(54, 1), acc=(55, 1),
           **_BUFFER_REGS),
    Format("VINTRP", 1, 0xFC000000, 0xD4000000, **_VINTRP),
    Format("EXP", 2, 0xFC000000, 0xC4000000, **_EXPORT),
)

GFX10 = Generation(
    "gfx10", *_scalar_formats(), *_vop_short_formats(),
    Format("SMEM", 2, 0xFC000000, 0xF4000000, op=(18, 8), glc=(16, 1), dlc=(14, 1),
           sdata=(6, 7), sbase=(0, 6), offset=(32, 21), soffset=(57, 7)),
    _vop3(0xD4000000),
    _vop3p(0xFF000000, 0xCC000000),
    _ds((18, 8), gds=(17, 1)),
    Format("FLAT", 2, 0xFC000000, 0xDC000000, op=(18, 7), slc=(17, 1), glc=(16, 1), seg=(14, 2),
           lds=(13, 1), dlc=(12, 1), offset=(0, 12), **_FLAT_REGS),
    Format("MUBUF", 2, 0xFC000000, 0xE0000000, op=((18, 7), (25, 1)), lds=(16, 1), dlc=(15, 1),
           glc=(14, 1), idxen=(13, 1), offen=(12, 1), offset=(0, 12), slc=(54, 1),
           tfe=(55, 1), **_BUFFER_REGS),
    Format("MTBUF", 2, 0xFC000000, 0xE8000000, op=((16, 3), (53, 1)), format=(19, 7),
           dlc=(15, 1), glc=(14, 1), idxen=(13, 1), offen=(12, 1), offset=(0, 12),
           slc=(54, 1), tfe=(55, 1), **_BUFFER_REGS),
    # nsa: how many more dwords name address VGPRs (0-3).
    Format("MIMG", 2, 0xFC000000, 0xF0000000, op=((18, 7), (0, 1)), nsa=(1, 2), dim=(3, 3),
           dlc=(7, 1), dmask=(8, 4), unorm=(12, 1), glc=(13, 1), r128=(15, 1), tfe=(16, 1),
           lwe=(17, 1), slc=(25, 1), vaddr=(32, 8), vdata=(40, 8), srsrc=(48, 5),
           ssamp=(53, 5), a16=(62, 1), d16=(63, 1)),
    Format("VINTRP", 1, 0xFC000000, 0xC8000000, **_VINTRP),
    Format("EXP", 2, 0xFC000000, 0xF8000000, **_EXPORT),
)

GFX11 = Generation(
    "gfx11", *_scalar_formats(), *_vop_short_formats(),
    Format("SMEM", 2, 0xFC000000, 0xF4000000, op=(18, 8), glc=(14, 1), dlc=(13, 1),
           sdata=(6, 7), sbase=(0, 6), offset=(32, 21), soffset=(57, 7)),
    _vop3(0xD4000000),
    _vop3p(0xFF000000, 0xCC000000),
    # Dual issue: two VOP2-like halves; vdsty's low bit is the complement of vdstx's.
    Format("VOPD", 2, 0xFC000000, 0xC8000000, src0x=(0, 9), src1x=(9, 8), opy=(17, 5),
           opx=(22, 4), src0y=(32, 9), src1y=(41, 8), vdsty=(49, 7), vdstx=(56, 8)),
    _ds((18, 8), gds=(17, 1)),
    Format("FLAT", 2, 0xFC000000, 0xDC000000, op=(18, 7), seg=(16, 2), slc=(15, 1), glc=(14, 1),
           dlc=(13, 1), offset=(0, 13), sve=(55, 1), **_FLAT_REGS),
    Format("MUBUF", 2, 0xFC000000, 0xE0000000, op=(18, 8), glc=(14, 1), dlc=(13, 1),
           slc=(12, 1), offset=(0, 12), tfe=(53, 1), offen=(54, 1), idxen=(55, 1),
           **_BUFFER_REGS),
    Format("MTBUF", 2, 0xFC000000, 0xE8000000, op=(15, 4), format=(19, 7), glc=(14, 1),
           dlc=(13, 1), slc=(12, 1), offset=(0, 12), tfe=(53, 1), offen=(54, 1), idxen=(55, 1),
           **_BUFFER_REGS),
    # nsa is one bit: set, one more dword names up to four more address VGPRs.
    Format("MIMG", 2, 0xFC000000, 0xF0000000, op=(18, 8), nsa=(0, 1), dim=(2, 3), unorm=(7, 1),
           dmask=(8, 4), slc=(12, 1), dlc=(13, 1), glc=(14, 1), r128=(15, 1), a16=(16, 1),
           d16=(17, 1), vaddr=(32, 8), vdata=(40, 8), srsrc=(48, 5), tfe=(53, 1), lwe=(54, 1),
           ssamp=(58, 5)),
)

# GFX12 (RDNA4) keeps gfx11's ALU and DS words and re-encodes memory: SMEM with a 24-bit signed
# offset, FLAT/GLOBAL/SCRATCH (VFLAT/VGLOBAL/VSCRATCH, seg in bits 25:24) and MUBUF/MTBUF
# (VBUFFER, bit 21 tells them apart) in three dwords with the offset, 24-bit and signed, in the
# third. The cache policy is a temporal hint `th` and a `scope` in place of glc/slc/dlc; an
# atomic returns its old value when th's low bit is set, which these formats also name `glc`
# so that one rule reads it on every generation. srsrc is the SGPR number over four (its low
# two bits, 42:41, are zero in every word llvm makes).
_GFX12_POLICY = dict(scope=(50, 2), th=(52, 3), glc=(52, 1))
_GFX12_BUFFER = dict(soffset=(0, 7), tfe=(22, 1), vdata=(32, 8), srsrc=(43, 5), offen=(62, 1),
                     idxen=(63, 1), vaddr=(64, 8), offset=(72, 24), **_GFX12_POLICY)

# Images split in two: VIMAGE (loads, stores, atomics, queries) and VSAMPLE (the sampler's
# opcodes, gfx12's msaa_load among them), three dwords each. There is no NSA bit: up to four
# address VGPRs are named one by one in the third dword (VIMAGE's fifth in bits 63:56, for
# BVH only), and where an instruction has more address dwords the last field names the first
# of a contiguous run holding the rest. ssamp, as srsrc, is the SGPR number over four.
_GFX12_IMAGE = dict(dim=(0, 3), r128=(4, 1), d16=(5, 1), a16=(6, 1), op=(14, 8), dmask=(22, 4),
                    vdata=(32, 8), srsrc=(43, 7), vaddr0=(64, 8), vaddr1=(72, 8),
                    vaddr2=(80, 8), vaddr3=(88, 8), **_GFX12_POLICY)

GFX12 = Generation(
    "gfx12", *_scalar_formats(), *_vop_short_formats(),
    Format("SMEM", 2, 0xFC000000, 0xF4000000, op=(13, 6), scope=(21, 2), th=(23, 3),
           sdata=(6, 7), sbase=(0, 6), offset=(32, 24), soffset=(57, 7)),
    _vop3(0xD4000000),
    _vop3p(0xFF000000, 0xCC000000),
    Format("VOPD", 2, 0xFC000000, 0xC8000000, src0x=(0, 9), src1x=(9, 8), opy=(17, 5),
           opx=(22, 4), src0y=(32, 9), src1y=(41, 8), vdsty=(49, 7), vdstx=(56, 8)),
    _ds((18, 8), gds=(17, 1)),
    Format("FLAT", 3, 0xFC000000, 0xEC000000, saddr=(0, 7), op=(14, 8), seg=(24, 2),
           vdst=(32, 8), sve=(49, 1), data=(55, 8), addr=(64, 8), offset=(72, 24),
           **_GFX12_POLICY),
    Format("MUBUF", 3, 0xFC200000, 0xC4000000, op=(14, 7), **_GFX12_BUFFER),
    Format("MTBUF", 3, 0xFC200000, 0xC4200000, op=(14, 4), format=(55, 7), **_GFX12_BUFFER),
    Format("VIMAGE", 3, 0xFC000000, 0xD0000000, tfe=(55, 1), vaddr4=(56, 8), **_GFX12_IMAGE),
    Format("VSAMPLE", 3, 0xFC000000, 0xE4000000, tfe=(3, 1), unorm=(13, 1), lwe=(40, 1),
           ssamp=(57, 7), **_GFX12_IMAGE),
)

GENERATIONS = {g.name: g for g in (GFX9, GFX10, GFX11, GFX12)}
