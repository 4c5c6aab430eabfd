"""Generate core/isa/opcodes_<target>.py: each target's opcode tables, learned from llvm.

For every encoding family and every value of its opcode field we build one probe
instruction whose register fields hold distinct marker registers, assemble the probes
with `llvm-mc -filetype=obj` (as raw `.long` words) and disassemble them with
`llvm-objdump -d --mcpu=<target>` of the target's llvm (15 here; 21 in the ROCm 6.4 root for
the targets llvm-15 lacks). What llvm prints tells us, per opcode: the mnemonic,
which fields are operands and in which order, each operand's width in dwords (in wave32
and wave64), the fixed registers llvm prints (vcc_lo in VOPC e32 ...), whether a source
is 16-bit (a literal prints truncated), and whether DPP/SDWA forms exist.

Probes are built through the target generation's encoding formats (core/isa/encodings.py,
where bit positions are spelled out once). A target is a row of TARGETS: its llvm name, its
encoding generation, the wave sizes it runs.

Deterministic: the probes are a fixed list and llvm's output depends only on them.
Run: python3 ci/gen/isa_tables.py [target [output]]     (no target: every target)
"""
import os
import pprint
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from core.isa.encodings import GFX9, GFX10, GFX11, GFX12  # noqa: E402


@dataclass(frozen=True)
class Llvm:
    """Which llvm-mc/llvm-objdump answer the probes: Debian's on this machine, or a newer one
    inside the ROCm 6.4 root (ci/rocm64_root.sh), reached through the script with the probe
    files in the root's own /var/tmp."""
    version: int
    in_root: bool = False

    def command(self, tool, *args):
        argv = [f"{tool}-{self.version}", *args]
        return ["bash", os.path.join(ROOT, "ci", "rocm64_root.sh"), "run", *argv] \
            if self.in_root else argv

    def scratch(self):
        """(a temporary folder on this machine, how the tools see that folder)."""
        if not self.in_root:
            folder = tempfile.TemporaryDirectory()
            return folder, folder.name
        base = os.path.join(os.environ.get("ROCM64_ROOT", "/var/lib/softgpu/rocm64"), "var", "tmp")
        folder = tempfile.TemporaryDirectory(dir=base)
        return folder, "/var/tmp/" + os.path.basename(folder.name)


LLVM15 = Llvm(15)
# gfx11's true16 instructions (16-bit operands in either half of a VGPR, `v1.h`): llvm-15
# decodes none of them; clang-21 emits them for gfx1100.
LLVM21 = Llvm(21, in_root=True)


@dataclass(frozen=True)
class Target:
    """What the probes of one target need: llvm's processor name, the encoding generation,
    the wave sizes it runs (llvm prints lane masks per wave size), the code of the null
    SGPR, and the saddr code a FLAT probe leaves its unused saddr field at."""
    mcpu: str
    encoding: object
    waves: tuple
    null: int
    flat_saddr: int
    llvm: Llvm = LLVM15
    true16: bool = False        # gfx11+: learn the true16 forms from LLVM21 as well
    # llvm-objdump features of every probe: gfx12's true16 forms decode with +real-true16
    # (llvm-21 decodes gfx12's 16-bit words as fake16 by default, where gfx11's are true16)
    mattr: str = ""


TARGETS = {
    "gfx90a": Target("gfx90a", GFX9, (64,), null=None, flat_saddr=0),
    # gfx940+ (CDNA3) exist only in newer llvm: llvm-21 of the ROCm 6.4 root.
    "gfx942": Target("gfx942", GFX9, (64,), null=None, flat_saddr=0, llvm=LLVM21),
    "gfx950": Target("gfx950", GFX9, (64,), null=None, flat_saddr=0, llvm=LLVM21),
    "gfx1030": Target("gfx1030", GFX10, (32, 64), null=125, flat_saddr=125),
    "gfx1100": Target("gfx1100", GFX11, (32, 64), null=124, flat_saddr=124, true16=True),
    # RDNA4: llvm-21 of the ROCm 6.4 root; its true16 forms (Triton's LLVM emits them) with
    # +real-true16 (true16()).
    "gfx1200": Target("gfx1200", GFX12, (32, 64), null=124, flat_saddr=124, llvm=LLVM21, true16=True),
    "gfx1201": Target("gfx1201", GFX12, (32, 64), null=124, flat_saddr=124, llvm=LLVM21, true16=True),
}


def output_path(target):
    return os.path.join(ROOT, "core", "isa", f"opcodes_{target}.py")


SLOT_DWORDS = 8          # probes are at most 5 dwords (MIMG NSA); the rest is s_nop padding
S_NOP = 0xBF800000
LITERAL = 0x12345678     # a literal that is no inline constant, so llvm prints it in hex

# Marker registers: a field's register number tells which field llvm printed.
DST, SRC0, SRC1, SRC2, SDST = 12, 20, 30, 40, 50
V = 256                  # 9-bit source fields name v0 at 256


def disassemble(t, probes, mattr=None):
    """Map probe index -> (text, size in bytes); probes llvm rejects are absent. A probe that
    crashes llvm-objdump (llvm-21 dies on a few gfx942 encodings) counts as rejected: a
    crashing batch is split in halves until the crashing probes stand alone."""
    out = _objdump(t, probes, mattr)
    if out is None:
        if len(probes) == 1:
            return {}
        mid = len(probes) // 2
        low, high = disassemble(t, probes[:mid], mattr), disassemble(t, probes[mid:], mattr)
        return {**low, **{i + mid: row for i, row in high.items()}}
    rows = []
    for line in out.splitlines():
        m = re.match(r"^\t(.*?)\s*// ([0-9A-F]{12}):", line)
        if m:
            # llvm-21 flags a register the operand's class does not take (a VGPR marker in
            # an SGPR field) in a comment that llvm-15 never printed: the register stays.
            rows.append((int(m.group(2), 16), re.sub(r"/\*Invalid register[^*]*\*/", "", m.group(1))))
    result = {}
    for i, (addr, text) in enumerate(rows):
        slot, rem = divmod(addr, SLOT_DWORDS * 4)
        if rem or text.startswith(".long"):
            continue
        size = rows[i + 1][0] - addr if i + 1 < len(rows) else 4
        result[slot] = (text, size)
    return result


def _objdump(t, probes, mattr):
    """llvm-objdump's listing of the probes assembled as raw words, or None if it crashed."""
    folder, seen_as = t.llvm.scratch()
    with folder as tmp:
        with open(os.path.join(tmp, "p.s"), "w") as f:
            f.write(".text\n")
            for words in probes:
                words = list(words) + [S_NOP] * (SLOT_DWORDS - len(words))
                f.write("".join(f".long 0x{w:08x}\n" for w in words))
        src, obj = f"{seen_as}/p.s", f"{seen_as}/p.o"
        subprocess.run(t.llvm.command("llvm-mc", "-arch=amdgcn", f"-mcpu={t.mcpu}",
                                      "-filetype=obj", src, "-o", obj), check=True)
        args = ["-d", f"--mcpu={t.mcpu}", obj]
        features = ",".join(f for f in (mattr if len(t.waves) > 1 else None, t.mattr) if f)
        if features:
            args.insert(2, f"--mattr={features}")
        done = subprocess.run(t.llvm.command("llvm-objdump", *args), capture_output=True,
                              text=True)
    if done.returncode == 0:
        return done.stdout
    if done.returncode in (-11, 139, -6, 134):      # SIGSEGV / SIGABRT, direct or via chroot
        return None
    raise subprocess.CalledProcessError(done.returncode, args, done.stdout, done.stderr)


_NESTING = {"(": 1, "[": 1, ")": -1, "]": -1}   # hwreg(a, b), op_sel:[0,1] hold commas


def split_operands(text):
    """'v_x v1, s[2:3], off offset:4 glc' -> ('v_x', ['v1', 's[2:3]', 'off'], 'offset:4 glc')."""
    mnemonic, _, rest = text.partition(" ")
    ops, depth, cur = [], 0, ""
    for ch in rest:
        depth += _NESTING.get(ch, 0)
        if ch == "," and depth == 0:
            ops.append(cur.strip())
            cur = ""
        else:
            cur += ch
    tail = ""
    if cur.strip():
        last = cur.strip()
        # Modifiers follow the last operand after a space (never inside brackets).
        head, depth, i = "", 0, 0
        for i, ch in enumerate(last):
            depth += _NESTING.get(ch, 0)
            if ch == " " and depth == 0:
                break
            head += ch
        else:
            i = len(last)
        ops.append(head)
        tail = last[i:].strip()
    return mnemonic, ops, tail


# llvm-21 prints gfx11's true16 operands as register halves: v12.l, v12.h.
REG = re.compile(r"^(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])(?:\.[lh])?$")


def parse_reg(token):
    m = REG.match(token)
    if not m:
        return None
    if m.group(2) is not None:
        return m.group(1), int(m.group(2)), 1
    return m.group(1), int(m.group(3)), int(m.group(4)) - int(m.group(3)) + 1


def signature(ops, markers):
    """Map printed operands to fields: markers maps (regfile, number) -> field name."""
    sig = []
    for tok in ops:
        if tok == "gds":
            continue                            # a modifier alone: ds_gws_sema_v gds
        # gfx12 images list their address VGPRs ([v20, v0]: the rest of the probe's address
        # fields): the field is the first one's, one register wide.
        reg = parse_reg(tok[1:].split(",")[0].strip() if tok.startswith("[") else tok)
        if reg and tok.startswith("["):
            reg = reg[:2] + (1,)
        if reg and (reg[0], reg[1]) in markers:
            sig.append((markers[(reg[0], reg[1])], reg[0], reg[2]))
        elif re.fullmatch(r"p10|p20|p0|invalid_param_\d+", tok):
            sig.append(("param", "", 1))        # v_interp_mov_f32: src1 names p10/p20/p0
        elif tok == f"attr{SRC0}.x":
            sig.append(("attr", "", 1))         # v_interp_*: src0 holds attribute and channel
        elif tok in ("0xbf800000", "-1.0"):
            sig.append(("simm32", "", 1))    # v_fmamk/s_setreg_imm32: the probe's next dword
        elif tok == f"0x{SRC1:x}":
            sig.append(("gpr_idx", "", 1))      # gfx9 s_set_gpr_idx_on: src1 holds a mode
        elif tok == f"sendmsg({SRC0}, 0, 0)":
            sig.append(("msg", "", 1))          # gfx11 s_sendmsg_rtn: src0 holds a message
        else:
            sig.append(("=" + tok, "", 0))
    return sig


def printed_halves(ops, markers):
    """The marker fields printed as a register half (true16: `v20.l`)."""
    return tuple(markers[reg[0], reg[1]] for tok in ops if tok.endswith((".l", ".h"))
                 for reg in [parse_reg(tok)] if reg and (reg[0], reg[1]) in markers)


def merge_waves(sig32, sig64):
    """Operands whose width follows the wave size (lane masks) get both widths."""
    out = []
    for (f32, file, w32), (f64, _, w64) in zip(sig32, sig64):
        if f32.startswith("=") and f32 != f64:
            out.append((f32 + "|" + f64[1:], "", 0, 0))     # vcc_lo in wave32, vcc in wave64
        else:
            out.append((f32, file, w32, w64))
    return tuple(out)


def learn(t, op_range, build, variants, markers):
    """Probe every opcode of a family with each variant of its fields (llvm rejects an
    encoding whose unused fields are not zero, so fields are dropped until one decodes).
    build(op, variant, lit=None) -> list of dwords. The first variant that decodes wins."""
    table = {}
    for variant in variants:
        ops = [op for op in op_range if op not in table]
        probes = [build(op, variant) for op in ops]
        d32 = disassemble(t, probes, "+wavefrontsize32")
        d64 = disassemble(t, probes, "+wavefrontsize64")
        for i, op in enumerate(ops):
            if i not in d32:
                continue
            mnemonic, operands, _ = split_operands(d32[i][0])
            sig32 = signature(operands, markers)
            sig64 = signature(split_operands(d64[i][0])[1], markers)
            table[op] = {"name": mnemonic, "ops": merge_waves(sig32, sig64), "variant": variant,
                         "t16": printed_halves(operands, markers)}
    return table


def strip_suffix(name):
    for suffix in ("_e32", "_e64", "_dpp", "_sdwa"):
        if name.endswith(suffix):
            return name[: -len(suffix)], suffix[1:]
    return name, ""


def half_sources(t, build, table, fields):
    """Which sources are 16-bit: a literal in them prints as its low 16 bits."""
    result = {op: [] for op in table}
    ops = sorted(table)
    for field in fields:
        dis = disassemble(t, [build(op, table[op]["variant"], lit=field) for op in ops])
        for i, op in enumerate(ops):
            if i in dis and "0x5678" in dis[i][0] and "0x12345678" not in dis[i][0]:
                result[op].append(field)
    return result


# ---- families: build(op, variant, lit) with variant naming the fields kept ------------

def _src(field, variant, lit, vgpr=True):
    """A 9-bit/8-bit source field: its marker, 0 when the variant drops it, 255 (literal)."""
    if lit == field:
        return 255
    if field not in variant:
        return 0
    marker = {"src0": SRC0, "src1": SRC1, "src2": SRC2}[field]
    if "attr" in variant and field == "src0":
        return marker
    return marker + (V if vgpr and "sgpr" not in variant else 0)


def _lit(words, lit):
    return words + [LITERAL] if lit else words


class Probes:
    """The probe builders of one target: build(op, variant, lit=None) -> dwords, through the
    formats of the target's encoding generation."""

    def __init__(self, t):
        self.t = t
        self.enc = t.encoding

    def sop2(self, op, variant, lit=None):
        return _lit(self.enc["SOP2"].encode(
            op=op, sdst=DST if "dst" in variant else 0,
            src1=_src("src1", variant, lit, False), src0=_src("src0", variant, lit, False)), lit)

    def sopk(self, op, variant, lit=None):
        return self.enc["SOPK"].encode(op=op, sdst=DST if "dst" in variant else 0, simm16=0x12)

    def sop1(self, op, variant, lit=None):
        return _lit(self.enc["SOP1"].encode(op=op, sdst=DST if "dst" in variant else 0,
                                            src0=_src("src0", variant, lit, False)), lit)

    def sopc(self, op, variant, lit=None):
        return _lit(self.enc["SOPC"].encode(op=op, src1=_src("src1", variant, lit, False),
                                            src0=_src("src0", variant, lit, False)), lit)

    def sopp(self, op, variant=(), imm=0x12):
        if "zero" in variant:           # s_code_end, s_barrier...: no immediate at all
            imm = 0
        return self.enc["SOPP"].encode(op=op, simm16=imm)

    def smem(self, op, variant, lit=None):
        fmt = self.enc["SMEM"]
        fields = dict(op=op, sdata=DST if "dst" in variant else 0,
                      sbase=SRC0 // 2 if "src0" in variant else 0, offset=0x24)
        if fmt.has("imm"):              # GFX9: the offset is an immediate, no soffset ...
            if "src0" in variant:
                fields["imm"] = 1
            else:                       # ... and s_memtime & co. must leave it zero
                fields["offset"] = 0
        else:
            fields["soffset"] = self.t.null
        return fmt.encode(**fields)

    def vop1(self, op, variant, lit=None, src0=None):
        s0 = _src("src0", variant, lit) if src0 is None else src0
        return _lit(self.enc["VOP1"].encode(op=op, vdst=DST if "dst" in variant else 0,
                                            src0=s0), lit)

    def vop2(self, op, variant, lit=None, src0=None):
        s0 = _src("src0", variant, lit) if src0 is None else src0
        return _lit(self.enc["VOP2"].encode(op=op, vdst=DST, src1=SRC1, src0=s0), lit)

    def vopc(self, op, variant, lit=None, src0=None):
        s0 = _src("src0", variant, lit) if src0 is None else src0
        return _lit(self.enc["VOPC"].encode(op=op, src1=SRC1, src0=s0), lit)

    def vop3(self, op, variant, lit=None):
        return _lit(self.enc["VOP3"].encode(
            op=op, sdst=SDST if "sdst" in variant else 0, vdst=DST if "dst" in variant else 0,
            src2=_src("src2", variant, lit), src1=_src("src1", variant, lit),
            src0=_src("src0", variant, lit)), lit)

    def vop3p(self, op, variant, lit=None):
        # op_sel_hi = 1 for every source: llvm's default for packed math, printed as nothing.
        # Variant "nohi" leaves them 0: gfx950's f8f6f4 MFMA decodes only so (those bits are
        # an MFMA's ABID[3] and A/B register files, which it takes as formats).
        hi = 0 if "nohi" in variant else 1
        return _lit(self.enc["VOP3P"].encode(
            op=op, op_sel_hi2=hi, vdst=DST if "dst" in variant else 0, op_sel_hi=3 * hi, src2=_src("src2", variant, lit),
            src1=_src("src1", variant, lit), src0=_src("src0", variant, lit)), lit)

    def ds(self, op, variant, lit=None):
        return self.enc["DS"].encode(op=op, vdst=DST if "dst" in variant else 0,
                                     data1=SRC2 if "data1" in variant else 0,
                                     data0=SRC1 if "data0" in variant else 0,
                                     addr=0 if "noaddr" in variant else SRC0,
                                     gds=1 if "gds" in variant else 0)

    def flat(self, seg, saddr):
        def build(op, variant, lit=None):
            if "bare" in variant:           # gfx12's global_inv, global_wb: no operand at all
                return self.enc["FLAT"].encode(op=op, seg=seg, saddr=self.t.flat_saddr)
            glc = 1 if "glc" in variant else 0    # global_atomic_csub only returns
            return self.enc["FLAT"].encode(op=op, seg=seg, glc=glc,
                                           vdst=DST if "dst" in variant else 0, saddr=saddr,
                                           data=SRC1 if "data" in variant else 0, addr=SRC0)
        return build

    def mubuf(self, op, variant, lit=None):
        fmt = self.enc["MUBUF"]
        if not variant:                 # buffer_gl0_inv/buffer_gl1_inv take no operands
            return fmt.encode(op=op)
        return fmt.encode(op=op, offen=1, soffset=SDST, srsrc=SRC2 // 4, vdata=DST, vaddr=SRC0)

    def mtbuf(self, op, variant, lit=None, format=1):
        return self.enc["MTBUF"].encode(op=op, format=format, offen=1, soffset=SDST,
                                        srsrc=SRC2 // 4, vdata=DST, vaddr=SRC0)

    def mimg(self, op, variant, lit=None):
        # dmask=1, 1D, no NSA: 2 dwords; vaddr=SRC0, vdata=DST, srsrc=s[40:47], ssamp=s[52:55]
        # for the sampling opcodes (the others must leave the field zero).
        return self.enc["MIMG"].encode(op=op, dmask=1, ssamp=52 // 4 if "ssamp" in variant else 0,
                                       srsrc=SRC2 // 4, vdata=DST, vaddr=SRC0)

    def image(self, family):
        """gfx12's VIMAGE/VSAMPLE: dmask=1, 1D, the address VGPRs from SRC0 on; the sampling
        opcodes take their S# at s[52:55] (msaa_load, a VSAMPLE word, takes none)."""
        def build(op, variant, lit=None):
            sampler = {"ssamp": 52 // 4} if "ssamp" in variant and family == "VSAMPLE" else {}
            return self.enc[family].encode(op=op, dmask=1, srsrc=SRC2 // 4, vdata=DST,
                                           vaddr0=SRC0, **sampler)
        return build

    def vintrp(self, op, variant, lit=None):
        return self.enc["VINTRP"].encode(vdst=DST, op=op, attr=5, vsrc=SRC0)

    def export(self, op, variant, lit=None):
        # target mrt0, all four sources enabled, done; one opcode only.
        return self.enc["EXP"].encode(done=1, en=0xF, vsrc0=SRC0, vsrc1=SRC1, vsrc2=SRC2,
                                      vsrc3=SDST)

    def getreg(self, op, hwreg):
        """s_getreg_b32 s[DST], hwreg(hwreg, 0, 32)."""
        return self.enc["SOPK"].encode(op=op, sdst=DST, simm16=31 << 11 | hwreg)


ALL = ("dst", "src0", "src1", "src2", "sdst")


def _markers(fields, files=("v", "a")):
    """Marker register -> field, for each register file a field may print in (AGPRs: gfx90a)."""
    return {(file, number): name for number, name in fields.items() for file in files}


VOP_MARKERS = {**_markers({DST: "vdst", SRC0: "src0", SRC1: "src1", SRC2: "src2"}),
               ("s", DST): "vdst", ("s", SDST): "sdst",
               ("s", SRC0): "src0", ("s", SRC1): "src1", ("s", SRC2): "src2"}
VOP3_VARIANTS = (ALL, ("dst", "src0", "src1", "sdst"), ("dst", "src0", "sdst"),
                 # v_interp_*_e64: src0 holds an attribute (attr20.x), not a register
                 ("attr", "dst", "src0", "src1", "src2"), ("attr", "dst", "src0", "src1"),
                 ("dst", "sdst"), ("sdst",),
                 ("sgpr",) + ALL, ("sgpr", "dst", "src0", "src1"), ("sgpr", "dst", "src0"))


def opcodes(t, family, count):
    """range(count), cut to the opcodes the family's op field can hold in this generation."""
    width = sum(w for _, w in t.encoding[family].fields["op"])
    return range(min(count, 1 << width))


def build_tables(t, p):
    tables = {}
    smark = {("s", DST): "sdst", ("s", SRC0): "src0", ("s", SRC1): "src1"}
    sop_variants = (ALL, ("dst",), ("src0",), ("src0", "src1"), ())
    tables["SOP2"] = learn(t, opcodes(t, "SOP2", 0x60), p.sop2, sop_variants, smark)
    tables["SOPK"] = learn(t, opcodes(t, "SOPK", 0x1C), p.sopk, (ALL, ()), smark)
    tables["SOP1"] = learn(t, opcodes(t, "SOP1", 0x100), p.sop1, sop_variants, smark)
    tables["SOPC"] = learn(t, opcodes(t, "SOPC", 0x80), p.sopc, sop_variants, smark)
    tables["SOPP"] = learn(t, opcodes(t, "SOPP", 0x80), p.sopp, ((), ("zero",)), smark)
    tables["SMEM"] = learn(t, opcodes(t, "SMEM", 0x100), p.smem, (ALL, ("dst",), ()),
                           {("s", DST): "sdata", ("s", SRC0): "sbase"})
    vop1_variants = (ALL, ("dst",), ())
    tables["VOP1"] = learn(t, opcodes(t, "VOP1", 0x100), p.vop1, vop1_variants, VOP_MARKERS)
    tables["VOP2"] = learn(t, opcodes(t, "VOP2", 0x3E), p.vop2, (ALL,), VOP_MARKERS)
    tables["VOPC"] = learn(t, opcodes(t, "VOPC", 0x100), p.vopc, (ALL,), VOP_MARKERS)
    vop3a = tuple(tuple(f for f in v if f != "sdst") for v in VOP3_VARIANTS)
    vop3b = learn(t, opcodes(t, "VOP3", 0x400), p.vop3, VOP3_VARIANTS, VOP_MARKERS)
    tables["VOP3B"] = {op: e for op, e in vop3b.items()
                       if any(f == "sdst" for f, *_ in e["ops"])}
    vop3 = learn(t, opcodes(t, "VOP3", 0x400), p.vop3, vop3a, VOP_MARKERS)
    tables["VOP3"] = {op: e for op, e in vop3.items() if op not in tables["VOP3B"]}
    # ("src0", "src1"): gfx950's v_mfma_ld_scale_b32 writes no register (its vdst field is 0);
    # it is the first half of a scaled MFMA (core/isa/decoder.py joins the two).
    tables["VOP3P"] = learn(t, opcodes(t, "VOP3P", 0x80), p.vop3p,
                            VOP3_VARIANTS[:3] + (("nohi",) + ALL, ("src0", "src1")), VOP_MARKERS)
    ds_variants = [tuple(f for f, keep in zip(("dst", "data0", "data1"), bits) if keep)
                   for bits in ((1, 1, 1), (1, 1, 0), (1, 0, 0), (0, 1, 1), (0, 1, 0),
                                (0, 0, 0), (1, 0, 1))]
    # Opcodes without an address (ds_append/ds_consume, the addtid pair, ds_nop) or that
    # llvm decodes only with the gds bit (ds_gws_*, whose data VGPR sits in the addr field,
    # ds_ordered_count).
    ds_variants += [("dst", "gds"), ("dst", "noaddr"), ("data0", "noaddr"), ("gds",),
                    ("gds", "noaddr"), ("noaddr",)]
    tables["DS"] = learn(t, opcodes(t, "DS", 0x100), p.ds, ds_variants,
                         _markers({DST: "vdst", SRC0: "addr", SRC1: "data0", SRC2: "data1"}))
    fmark = {**_markers({DST: "vdst", SRC0: "addr", SRC1: "data"}), ("s", SRC2): "saddr"}
    flat_variants = (("dst", "data"), ("dst",), ("data",), ("dst", "data", "glc"), ("bare",))
    flat_ops = opcodes(t, "FLAT", 0x100)
    tables["FLAT"] = learn(t, flat_ops, p.flat(0, t.flat_saddr), flat_variants, fmark)
    tables["SCRATCH"] = learn(t, flat_ops, p.flat(1, SRC2), flat_variants, fmark)
    tables["GLOBAL"] = learn(t, flat_ops, p.flat(2, SRC2), flat_variants, fmark)
    bmark = {**_markers({DST: "vdata", SRC0: "vaddr"}), ("s", SRC2): "srsrc",
             ("s", SDST): "soffset"}
    tables["MUBUF"] = learn(t, opcodes(t, "MUBUF", 0x100), p.mubuf, (ALL, ()), bmark)
    tables["MTBUF"] = learn(t, opcodes(t, "MTBUF", 0x10), p.mtbuf, (ALL,), bmark)
    image_markers = {("v", DST): "vdata", ("v", SRC0): "vaddr", ("s", SRC2): "srsrc",
                     ("s", 52): "ssamp"}
    if "MIMG" in t.encoding:
        tables["MIMG"] = learn(t, opcodes(t, "MIMG", 0x100), p.mimg, (ALL + ("ssamp",), ALL),
                               image_markers)
    for family in ("VIMAGE", "VSAMPLE"):
        if family in t.encoding:
            tables[family] = learn(t, opcodes(t, family, 0x100), p.image(family),
                                   (ALL + ("ssamp",), ALL), image_markers)
    if "VINTRP" in t.encoding:
        tables["VINTRP"] = learn(t, opcodes(t, "VINTRP", 4), p.vintrp, (ALL,),
                                 {("v", DST): "vdst", ("v", SRC0): "vsrc"})
    if "EXP" in t.encoding:
        tables["EXP"] = learn(t, range(1), p.export, (ALL,),
                              {("v", SRC0): "vsrc0", ("v", SRC1): "vsrc1",
                               ("v", SRC2): "vsrc2", ("v", SDST): "vsrc3"})
    return tables


def forms(t, p, tables):
    """Which VOP1/VOP2/VOPC opcodes have DPP16, DPP8 and SDWA forms, and which modifiers
    each form prints ('dpp_neg'/'sdwa_neg': sources with neg/abs, 'sdwa_sext': sources with
    sext, 'sdwa_clamp', 'sdwa_omod'; 'sdwa_no_dst_sel' where llvm prints no dst_sel)."""
    result, mods = {}, {}
    for family, build in (("VOP1", p.vop1), ("VOP2", p.vop2), ("VOPC", p.vopc)):
        ops = sorted(tables[family])
        found = {op: [] for op in ops}
        sdwa = SRC0 | 6 << 16 | (6 << 8 if family != "VOPC" else 0) | \
            (6 << 24 if family != "VOP1" else 0)
        for form, src0, extra in (("dpp", 250, 0xE4 << 8 | 0xFF << 24 | SRC0),
                                  ("dpp8", 233, SRC0 | 0x00FAC688 << 8),
                                  ("sdwa", 249, sdwa)):
            def probe(op, more=0):
                variant = tables[family][op]["variant"]
                ext = extra if "src0" in variant else extra & ~0xFF
                return build(op, variant, src0=src0) + [ext | more]
            dis = disassemble(t, [probe(op) for op in ops])
            for i, op in enumerate(ops):
                if i in dis and dis[i][1] == 8:
                    found[op].append(form)
                    if form == "sdwa" and family != "VOPC" and " dst_sel:" not in dis[i][0]:
                        # gfx940's packed 8-bit conversions: a pair has no dword to select
                        mods.setdefault(family, {}).setdefault(op, {})["sdwa_no_dst_sel"] = 1
            if form == "dpp8":
                continue
            # Modifier bits of the extension dword, one at a time: which ones llvm prints.
            bits = ({"neg:src0": 20, "neg:src1": 22} if form == "dpp" else
                    {"neg:src0": 20, "neg:src1": 28, "sext:src0": 19, "sext:src1": 27,
                     "clamp:": 13, "omod:": 14})
            for what, bit in bits.items():
                kind, _, field = what.partition(":")
                dis = disassemble(t, [probe(op, 1 << bit) for op in ops])
                for i, op in enumerate(ops):
                    if i not in dis or form not in found[op]:
                        continue
                    text = dis[i][0]
                    operands = split_operands(text)[1]
                    marker = f"sext(v{SRC0 if field == 'src0' else SRC1})"
                    if kind in ("neg", "sext"):
                        # An integer source shows a neg bit as sext (llvm's integer mods).
                        shown = "neg" if field in _negated(operands) else \
                            "sext" if marker in operands else None
                    else:
                        shown = kind if (" clamp" if kind == "clamp" else " mul:2") in text \
                            else None
                    if shown:
                        key = f"{form}_{shown}"
                        mods.setdefault(family, {}).setdefault(op, {})
                        entry = mods[family][op]
                        entry[key] = entry.get(key, ()) + ((field,) if field else (1,))
        result[family] = found
    return result, mods


def halves(t, p, tables):
    fields = {"VOP1": ["src0"], "VOP2": ["src0"], "VOPC": ["src0"], "SOP2": ["src0"],
              "VOP3": ["src0", "src1", "src2"], "VOP3B": ["src0", "src1", "src2"],
              "VOP3P": ["src0", "src1", "src2"]}
    builds = {"VOP1": p.vop1, "VOP2": p.vop2, "VOPC": p.vopc, "SOP2": p.sop2, "VOP3": p.vop3,
              "VOP3B": p.vop3, "VOP3P": p.vop3p}
    return {fam: half_sources(t, builds[fam], tables[fam], f) for fam, f in fields.items()}


def vgpr_only(t, p, tables, builds=None):
    """Source fields that always name a VGPR (v_swap_b32's src0) or an AGPR (gfx90a's
    v_accvgpr_mov_b32): an SGPR code in them still prints as a vector register."""
    result = {}
    for family, build in builds or (("VOP1", p.vop1), ("VOP3", p.vop3), ("VOP3B", p.vop3),
                                    ("VOP3P", p.vop3p)):
        ops = sorted(tables[family])
        probes = []
        for op in ops:
            variant = tables[family][op]["variant"]
            probes.append(build(op, tuple(variant) + ("sgpr",)))
        dis = disassemble(t, probes)
        found = {}
        for i, op in enumerate(ops):
            if i not in dis:
                continue
            _, operands, _ = split_operands(dis[i][0])
            fields = [f for f, r, _ in signature(operands, _markers({SRC0: "src0", SRC1: "src1",
                                                                     SRC2: "src2"}))
                      if f.startswith("src")]
            if fields:
                found[op] = tuple(fields)
        result[family] = found
    return result


def _probe_all(t, family, build, tables, ops, tweak):
    """Disassemble every opcode with tweak(words, present_sources_mask) applied."""
    probes = []
    for op in ops:
        variant = tables[family][op]["variant"]
        present = sum(1 << i for i in range(3) if f"src{i}" in variant)
        probes.append(tweak(build(op, variant), present))
    return disassemble(t, probes)


def _negated(operands):
    """Marker sources llvm printed with a neg/abs modifier."""
    out = set()
    for t in operands:
        m = re.fullmatch(r"-?\|?v(?:(\d+)|\[(\d+):\d+\])\|?", t)
        if m and t != t.strip("-|"):
            out.add({SRC0: "src0", SRC1: "src1", SRC2: "src2"}.get(int(m.group(1) or m.group(2))))
    return out


def modifiers(t, p, tables, builds=None):
    """Which modifiers each VOP3/VOP3B/VOP3P opcode has, probing one modifier bit at a time
    (llvm rejects a modifier an opcode lacks) and keeping what llvm prints: 'neg' (sources
    that take neg/abs), 'sext' (integer sources showing the neg bit so), 'op_sel' (for each
    printed op_sel entry, its bit in the field), 'byte_sel' and 'index_key' (what each op_sel
    bit adds to the byte gfx12's 8-bit conversions name, or to the index set its SWMMAC
    reads), 'clamp', 'omod', and VOP3P's 'op_sel_hi',
    'neg_lo', 'neg_hi'. `builds`: (family, build) pairs to probe instead of the e64 forms."""
    result = {}
    for family, build in builds or (("VOP3", p.vop3), ("VOP3B", p.vop3), ("VOP3P", p.vop3p)):
        ops = sorted(tables[family])
        found = {op: {} for op in ops}
        for i in range(3):
            dis = _probe_all(t, family, build, tables, ops,
                             lambda w, p, i=i: [w[0], w[1] | (p & 1 << i) << 29] + w[2:])
            for k, op in enumerate(ops):
                if k in dis:
                    text = dis[k][0]
                    operands = split_operands(text)[1]
                    if f"src{i}" in _negated(operands):
                        found[op]["neg"] = found[op].get("neg", ()) + (f"src{i}",)
                    elif any(t.startswith("sext(") for t in operands):
                        # integer sources show the neg bit as sign extension
                        found[op]["sext"] = found[op].get("sext", ()) + (f"src{i}",)
                    if "neg_lo" in text:
                        found[op]["neg_lo"] = 1
        bits = {op: [] for op in ops}
        # gfx12 names some op_sel bits otherwise: a byte (the 8-bit conversions' byte_sel) or
        # a set of sparse-matrix indices (SWMMAC's index_key)
        selectors = {name: {op: {} for op in ops} for name in ("byte_sel", "index_key")}
        for bit in range(4 if family == "VOP3" else 3):
            dis = _probe_all(t, family, build, tables, ops,
                             lambda w, p, b=bit: [w[0] | 1 << (11 + b)] + w[1:])
            for k, op in enumerate(ops):
                m = re.search(r" op_sel:\[([\d,]+)\]", dis[k][0]) if k in dis else None
                if m:
                    entries = m.group(1).split(",")
                    bits[op].append((entries.index("1"), bit, len(entries)))
                for name, worth in selectors.items():
                    m = re.search(rf" {name}:(\d)", dis[k][0]) if k in dis else None
                    if m:
                        worth[op][bit] = int(m.group(1))
        for op, seen in bits.items():
            if seen:
                # Entry i of the printed op_sel: the field bit shown there (None: always 0).
                at = {index: b for index, b, _ in seen}
                found[op]["op_sel"] = tuple(at.get(i) for i in range(max(n for *_, n in seen)))
        for name, by_op in selectors.items():
            for op, worth in by_op.items():
                if worth:
                    # What each op_sel bit adds to the selector (0: nothing), by bit.
                    found[op][name] = tuple(worth.get(b, 0) for b in range(max(worth) + 1))
        simple = [("clamp", lambda w, p: [w[0] | 1 << 15] + w[1:], "clamp")]
        if family == "VOP3P":
            simple += [("neg_hi", lambda w, p: [w[0] | p << 8] + w[1:], "neg_hi"),
                       ("op_sel_hi", lambda w, p: [w[0] & ~(1 << 14), w[1] & ~(3 << 27)] + w[2:],
                        "op_sel_hi")]
        else:
            # gfx950's v_bitop3_*: the omod, neg and abs bits hold the truth table instead.
            simple += [("omod", lambda w, p: [w[0], w[1] | 1 << 27] + w[2:], "mul:2"),
                       ("bitop3", lambda w, p: [w[0], w[1] | 1 << 27] + w[2:], "bitop3:")]
        if family == "VOP3P" and t.encoding["VOP3P"].has("cbsz"):
            # MFMA reads the neg_hi bits as cbsz (and op_sel as abid, neg as blgp).
            simple.append(("mai", lambda w, p: [w[0] | 1 << 8] + w[1:], "cbsz:"))
        for what, tweak, word in simple:
            dis = _probe_all(t, family, build, tables, ops, tweak)
            for k, op in enumerate(ops):
                if k in dis and word in dis[k][0]:
                    found[op][what] = 1
        result[family] = {op: info for op, info in found.items() if info}
    return result


def register_files(t, p, tables):
    """gfx90a's accumulation registers: which printed operands turn from VGPRs into AGPRs
    when an `acc` bit of the encoding is set. Returns {family: {op: (ops, acc)}}: the
    operand signature with every such bit clear, and {bit: fields it switches} where a bit
    is a format field name, with '.i' for bit i of a multi-bit field ('acc.0')."""
    builds = {"VOP3P": p.vop3p, "DS": p.ds, "FLAT": p.flat(0, t.flat_saddr),
              "GLOBAL": p.flat(2, SRC2), "SCRATCH": p.flat(1, SRC2), "MUBUF": p.mubuf,
              "MTBUF": p.mtbuf}
    markers = {"VOP3P": VOP_MARKERS,
               "DS": _markers({DST: "vdst", SRC0: "addr", SRC1: "data0", SRC2: "data1"}),
               "MUBUF": {**_markers({DST: "vdata", SRC0: "vaddr"}), ("s", SRC2): "srsrc",
                         ("s", SDST): "soffset"}}
    markers["MTBUF"] = markers["MUBUF"]
    for family in ("FLAT", "GLOBAL", "SCRATCH"):
        markers[family] = {**_markers({DST: "vdst", SRC0: "addr", SRC1: "data"}),
                           ("s", SRC2): "saddr"}
    result = {}
    for family, build in builds.items():
        fmt = t.encoding["FLAT" if family in ("GLOBAL", "SCRATCH") else family]
        bits = [(name, i) for name in ("acc_cd", "acc") if fmt.has(name)
                for i in range(sum(w for _, w in fmt.fields[name]))]
        if not bits:
            continue
        ops = sorted(tables[family])

        def probe(op, keep):
            words = build(op, tables[family][op]["variant"])
            bits64 = words[0] | (words[1] << 32)
            for name, i in bits:
                low = fmt.fields[name][0][0] + i
                bits64 = bits64 | 1 << low if (name, i) == keep else bits64 & ~(1 << low)
            return [bits64 & 0xFFFFFFFF, bits64 >> 32] + words[2:]

        def files(dis, k):
            sig = signature(split_operands(dis[k][0])[1], markers[family])
            return {f: file for f, file, _ in sig if file}, sig

        base = disassemble(t, [probe(op, None) for op in ops])
        flipped = {bit: disassemble(t, [probe(op, bit) for op in ops]) for bit in bits}
        found = {}
        for k, op in enumerate(ops):
            if k not in base:
                continue
            clear, sig = files(base, k)
            acc = {}
            for (name, i), dis in flipped.items():
                if k not in dis:
                    continue
                switched = tuple(f for f, file in files(dis, k)[0].items()
                                 if file == "a" and clear.get(f) == "v")
                if switched:
                    acc[name if len(bits) == 1 or name == "acc_cd" else f"{name}.{i}"] = switched
            old = tables[family][op]["ops"]
            ops_clear = tuple((f, file, w, w) for f, file, w in sig)
            if acc or ops_clear != old:
                found[op] = (ops_clear if len(ops_clear) == len(old) else old, acc)
        result[family] = found
    return result


def integer_halves(t, p, tables, half):
    """16-bit integer sources: llvm prints an inline 1.0 in them as 0x3c00 (also in the
    packed VOP3P ops, whose literals are never truncated)."""
    result = {}
    builds = {"VOP1": p.vop1, "VOP2": p.vop2, "VOPC": p.vopc, "VOP3": p.vop3, "VOP3B": p.vop3,
              "VOP3P": p.vop3p}
    for family, build in builds.items():
        ops = sorted(tables[family])
        found = {}
        for field in ("src0", "src1", "src2"):
            probes = []
            for op in ops:
                words = build(op, tables[family][op]["variant"], lit=field)[:-1]
                probes.append([words[0] & ~0x1FF | 242] if len(words) == 1 else
                              [words[0], words[1] & ~(0x1FF << (9 * int(field[3])))
                               | 242 << (9 * int(field[3]))])
            dis = disassemble(t, probes)
            for i, op in enumerate(ops):
                if i in dis and "0x3c00" in dis[i][0]:
                    found.setdefault(op, []).append(field)
        result[family] = found
    return result


# VOPD's second half has its own markers (its vdst is odd: the low bit is vdstx's inverted).
DST_Y, SRC0_Y, SRC1_Y = 45, 60, 70


def vopd_halves(t):
    """gfx11 dual issue: every (opx, opy) pair is probed once; each half's name and printed
    operands come from the pairs llvm accepts. Returns ({opx: entry}, {opy: entry})."""
    fmt = t.encoding["VOPD"]
    xs, ys = range(1 << fmt.fields["opx"][0][1]), range(1 << fmt.fields["opy"][0][1])
    # vsrc1 left zero as well, for the halves that have none (v_dual_mov_b32).
    pairs = [(x, y, sx, sy) for x in xs for y in ys for sx in (SRC1, 0) for sy in (SRC1_Y, 0)]
    probes = [fmt.encode(opx=x, opy=y, src0x=V + SRC0, src1x=sx, vdstx=DST, src0y=V + SRC0_Y,
                         src1y=sy, vdsty=DST_Y >> 1) + [S_NOP] for x, y, sx, sy in pairs]
    halves = {}
    for wave in t.waves:
        dis = disassemble(t, probes, f"+wavefrontsize{wave}")
        for i, (x, y, _, _) in enumerate(pairs):
            if i not in dis:
                continue
            for which, op, text, marks in (
                    ("X", x, dis[i][0].split(" :: ")[0], {DST: "vdst", SRC0: "src0", SRC1: "src1"}),
                    ("Y", y, dis[i][0].split(" :: ")[1],
                     {DST_Y: "vdst", SRC0_Y: "src0", SRC1_Y: "src1"})):
                name, operands, _ = split_operands(text)
                sig = signature(operands, _markers(marks, ("v",)))
                halves.setdefault((which, op), {}).setdefault(wave, (name, sig))
    tables = ({}, {})
    for (which, op), by_wave in sorted(halves.items()):
        name, sig32 = by_wave[min(by_wave)]
        sig64 = by_wave[max(by_wave)][1]
        base, suffix = strip_suffix(name)
        tables[which == "Y"][op] = {"name": base, "suffix": suffix, "ops": merge_waves(sig32, sig64)}
    return tables


def vop3_dpp_forms(t, p, tables):
    """gfx11: which VOP3/VOP3B/VOP3P opcodes take a DPP16 or DPP8 dword (src0 = 250 / 233,
    the DPP dword after the two VOP3 dwords)."""
    result = {}
    for family, build in (("VOP3", p.vop3), ("VOP3B", p.vop3), ("VOP3P", p.vop3p)):
        ops = sorted(tables[family])
        found = {op: [] for op in ops}
        for form, src0, extra in (("dpp", 250, 0xE4 << 8 | 0xFF << 24 | SRC0),
                                  ("dpp8", 233, SRC0 | 0x00FAC688 << 8)):
            probes = []
            for op in ops:
                words = build(op, tables[family][op]["variant"])
                probes.append([words[0], words[1] & ~0x1FF | src0, extra])
            dis = disassemble(t, probes)
            for i, op in enumerate(ops):
                if i in dis and dis[i][1] == 12:
                    found[op].append(form)
        result[family] = {op: tuple(forms) for op, forms in found.items() if forms}
    return result


def vop3_dpp_modifiers(t, p, tables, dpp3):
    """The modifiers gfx11's VOP3 DPP16 forms print (llvm shows integer sources' neg bits as
    sext there, and some op_sel fields in full), as `modifiers` finds them for e64, and
    'vgpr_only': sources that name a VGPR whatever their code in that form."""
    def dpp(build):
        def probe(op, variant, lit=None):
            words = build(op, variant)
            return [words[0], words[1] & ~0x1FF | 250, 0xE4 << 8 | 0xFF << 24 | SRC0]
        return probe
    subset = {family: {op: e for op, e in tables[family].items()
                       if "dpp" in dpp3.get(family, {}).get(op, ())}
              for family in ("VOP3", "VOP3B", "VOP3P")}
    builds = (("VOP3", dpp(p.vop3)), ("VOP3B", dpp(p.vop3)), ("VOP3P", dpp(p.vop3p)))
    found = modifiers(t, p, subset, builds)
    for family, ops in vgpr_only(t, p, subset, builds).items():
        for op, fields in ops.items():
            found[family].setdefault(op, {})["vgpr_only"] = fields
    return found


ALIAS_BASE = "gfx1030"
_LEARNED = {}


def learned(name):
    """The learned tables of a target (once per run), with the Probes that built them."""
    if name not in _LEARNED:
        t = TARGETS[name]
        p = Probes(t)
        _LEARNED[name] = (t, p, build_tables(t, p))
    return _LEARNED[name]


# llvm also reads gfx10's signed dot products (v_dot4_i32_i8, v_dot8_i32_i4) as gfx11's and
# gfx12's mixed-sign forms without neg_lo, whose fields are then unsigned: another operation
# under the alias, so those names keep their own semantics.
NOT_RENAMES = frozenset(("v_dot4_i32_iu8", "v_dot8_i32_iu4"))


def aliases(t, tables):
    """{mnemonic on t: gfx1030 mnemonic} where llvm-mc for t reads a gfx1030 instruction's
    text as an instruction of another name (gfx11's renames: ds_read_b32 -> ds_load_b32,
    global_load_dword -> global_load_b32, s_andn2_b32 -> s_and_not1_b32 ...). Both names
    mean the same operation on the same operands: llvm declares them as mnemonic aliases
    (NOT_RENAMES: aliases that are not)."""
    base_t, base_p, base_tables = learned(ALIAS_BASE)
    builds = {"SOP2": base_p.sop2, "SOPK": base_p.sopk, "SOP1": base_p.sop1,
              "SOPC": base_p.sopc, "SOPP": base_p.sopp, "SMEM": base_p.smem,
              "VOP1": base_p.vop1, "VOP2": base_p.vop2, "VOPC": base_p.vopc,
              "VOP3": base_p.vop3, "VOP3B": base_p.vop3, "VOP3P": base_p.vop3p,
              "DS": base_p.ds, "FLAT": base_p.flat(0, base_t.flat_saddr),
              "SCRATCH": base_p.flat(1, SRC2), "GLOBAL": base_p.flat(2, SRC2),
              "MUBUF": base_p.mubuf, "MTBUF": base_p.mtbuf}
    entries = [(family, op) for family in builds for op in sorted(base_tables[family])]
    dis = disassemble(base_t, [builds[f](op, base_tables[f][op]["variant"]) for f, op in entries])
    texts = [dis[i][0] for i in range(len(entries)) if i in dis]
    done = subprocess.run(t.llvm.command("llvm-mc", "-arch=amdgcn", f"-mcpu={t.mcpu}"),
                          input="\n".join(texts) + "\n", capture_output=True, text=True)
    refused = {int(n) - 1 for n in re.findall(r"<stdin>:(\d+):\d+: error", done.stderr)}
    printed = iter(line.strip() for line in done.stdout.splitlines()
                   if line.strip() and not line.strip().startswith("."))
    base_names = {e["name"] for table in base_tables.values() for e in table.values()}
    names = {strip_suffix(e["name"])[0] for table in tables.values() for e in table.values()}
    result = {}
    for i, text in enumerate(texts):
        if i in refused:
            continue
        old = strip_suffix(split_operands(text)[0])[0]
        new = strip_suffix(split_operands(next(printed))[0])[0]
        if new != old and new in names and new not in {strip_suffix(n)[0] for n in base_names} \
                and new not in NOT_RENAMES:
            result[new] = old
    return dict(sorted(result.items()))


SOPP_PROBES = (0x12, 0x8000, 0)


def sopp_styles(t, p, table):
    """How each SOPP/SOPK prints its 16-bit immediate: 'dec' (branch offsets and the like),
    'imm' (decimal up to 64, else hex), 'hex', or a named syntax."""
    styles = {}
    ops = sorted(table)
    results = [disassemble(t, [p.sopp(op, imm=v) for op in ops]) for v in SOPP_PROBES]
    for i, op in enumerate(ops):
        if i not in results[0]:
            styles[op] = "none"
            continue
        small, big, zero = (split_operands(r[i][0])[1] for r in results)
        if not zero and small:
            styles[op] = "dec0"        # s_endpgm: the immediate is printed only when set
        elif not small:
            styles[op] = "none"
        elif small[0] == "18":
            styles[op] = "dec" if big[0] == "32768" else "imm"
        elif small[0] == "0x12":
            styles[op] = "hex"
            if "gpr_idx(" in disassemble(t, [p.sopp(op, imm=3)])[0][0]:
                styles[op] = "gpr_idx"          # gfx9 s_set_gpr_idx_mode: named up to 15
        else:
            styles[op] = table[op]["name"].removeprefix("s_")
    return styles


def sopk_style(ops):
    """'hwreg' (s_getreg/s_setreg), 'hex' (s_movk_i32 0x12) or 'dec' (s_call_b64 offsets)."""
    texts = [f for f, *_ in ops if f.startswith("=")]
    if any(f == "simm32" for f, *_ in ops):
        return "hwreg"
    if any("hwreg" in t for t in texts):
        return "hwreg"
    return "hex" if any(t == "=0x12" for t in texts) else "dec"


def _opcode(table, name):
    return next(op for op, e in table.items() if e["name"] == name)


def named_values(t, p, tables):
    """hwreg ids and sendmsg encodings llvm names."""
    hwreg = {}
    getreg = _opcode(tables["SOPK"], "s_getreg_b32")
    dis = disassemble(t, [p.getreg(getreg, i) for i in range(64)])
    for i in range(64):
        m = re.search(r"hwreg\(([A-Z_0-9]+)\)", dis[i][0])
        if m:
            hwreg[i] = m.group(1)
    sendmsg = {}
    values = list(range(0x400))
    dis = disassemble(t, [p.sopp(_opcode(tables["SOPP"], "s_sendmsg"), imm=v) for v in values])
    for i, v in enumerate(values):
        text = dis[i][0].partition(" ")[2] if i in dis else ""
        if text.startswith("sendmsg(MSG_"):      # named messages; numeric ones are computed
            sendmsg[v] = text
    formats = {}
    dis = disassemble(t, [p.mtbuf(0, ALL, format=f) for f in range(128)])
    for f in range(128):
        m = re.search(r"format:(\[[A-Z_0-9,]+\]|\d+)", dis[f][0]) if f in dis else None
        if m:
            formats[f] = m.group(1)
    return hwreg, sendmsg, formats


HEADER = '''"""{target} opcode tables. GENERATED by ci/gen/isa_tables.py from llvm-mc-{llvm} and
llvm-objdump-{llvm}: do not edit by hand.

TABLES[family][opcode] = {{"name": base mnemonic, "suffix": the encoding suffix llvm
prints ("e32", "e64" or ""), "ops": printed operands in order as (field, register
file "v"/"s" as probed, wave32 width, wave64 width) where field is an encoding field ("vdst", "src0", "sdst",
"addr", ...) or "=text" for a fixed register llvm prints ("=vcc_lo|vcc": wave32|
wave64 spelling), "size": bytes of the probe, "forms": DPP/SDWA forms VOP1/2/C
allow, "half": sources that take 16-bit literals, "half_int": those of them that are
integers, "mods": the VOP3 modifiers llvm prints for the opcode, "vgpr_only": sources that always
name a VGPR, "imm": how SOPP/SOPK print their
immediate}}.
{more}"""
'''
# Keys only some targets' tables have, documented in theirs.
ACC_DOC = """
"acc" (gfx90a): {encoding bit: fields} that name AGPRs instead of VGPRs when the bit is
set ("acc_cd", "acc.0" of MFMA, "acc" of memory instructions); "mods" "mai": MFMA, which
prints cbsz/abid/blgp.
"""
VOPD_DOC = """
TABLES["VOPDX"] / ["VOPDY"] (gfx11): the halves of a dual-issue VOPD instruction by their
opx / opy fields. VOP3 "forms": "dpp"/"dpp8" where gfx11 takes a DPP dword after VOP3's two,
and "mods" "dpp": the modifiers llvm prints in that form.
"""
TRUE16_DOC = """
gfx11/gfx12 true16 (learned from llvm-mc-21 and llvm-objdump-21 in the ROCm 6.4 root, gfx12's
with +real-true16): rows of the 16-bit instructions llvm-15 (gfx12: llvm-21 without
+real-true16) does not decode (v_mov_b16 ...), and "t16" on VOP1/VOP2/VOPC rows:
the fields llvm-21 prints as register halves (v12.l / v12.h); in them a VGPR code's bit 7
picks the high half of the register the low 7 bits name.
"""
ALIAS_DOC = """
ALIASES: {mnemonic: gfx1030 mnemonic} where llvm reads the gfx1030 text of an instruction as
this target's instruction of another name (a rename: same operation, same operands).
"""


def rows(t, p, tables):
    """{family: {opcode: row}}: what the module's docstring says a row holds, for every
    opcode of `tables`."""
    dpp, ext_mods = forms(t, p, tables)
    half = halves(t, p, tables)
    styles = sopp_styles(t, p, tables["SOPP"])
    kstyles = {op: sopk_style(e["ops"]) for op, e in tables["SOPK"].items()}
    vonly = vgpr_only(t, p, tables)
    mods = modifiers(t, p, tables)
    ihalf = integer_halves(t, p, tables, half)
    files = register_files(t, p, tables)
    dpp3 = vop3_dpp_forms(t, p, tables) if "VOPD" in t.encoding else {}
    dpp3_mods = vop3_dpp_modifiers(t, p, tables, dpp3) if dpp3 else {}
    entries = {}
    for family, table in tables.items():
        if not table:                   # a family this target's llvm decodes nothing of
            continue
        found = {}
        for op, e in sorted(table.items()):
            base, suffix = strip_suffix(e["name"])
            row = {"name": base, "suffix": suffix, "ops": e["ops"]}
            if op in files.get(family, {}):
                row["ops"], acc = files[family][op]
                if acc:
                    row["acc"] = acc
            if family in dpp:
                row["forms"] = tuple(dpp[family][op])
            if op in dpp3.get(family, {}):
                row["forms"] = dpp3[family][op]
            if family in half:
                row["half"] = tuple(sorted(half[family].get(op, ())))
            if op in mods.get(family, {}):
                row["mods"] = mods[family][op]
            if op in ext_mods.get(family, {}):
                row["mods"] = ext_mods[family][op]
            if op in dpp3_mods.get(family, {}):
                row["mods"] = {**row.get("mods", {}), "dpp": dpp3_mods[family][op]}
            if op in ihalf.get(family, {}):
                row["half_int"] = tuple(ihalf[family][op])
            if op in vonly.get(family, {}):
                row["vgpr_only"] = vonly[family][op]
            if family == "SOPP":
                row["imm"] = styles[op]
            if family == "SOPK":
                row["imm"] = kstyles[op]
            found[op] = row
        entries[family] = found
    return entries


# Families whose 16-bit operands llvm-21 prints as halves of registers named by an 8-bit
# register code (bit 7: the high half), so the decoder must read the half from the code.
# VOP3 picks its halves with op_sel, which llvm-15 already printed.
TRUE16_FAMILIES = ("VOP1", "VOP2", "VOPC")


def true16(t, tables, entries):
    """gfx11/gfx12 true16, from llvm-21: rows of the 16-bit instructions llvm-15 (gfx12: llvm-21
    without +real-true16) does not decode
    (v_mov_b16 ...), and "t16" (the fields printed as register halves) on the VOP1/VOP2/VOPC
    rows, where llvm-21 agrees with llvm-15 on the instruction otherwise."""
    t21 = replace(t, llvm=LLVM21, mattr="+real-true16" if t.encoding is GFX12 else "")
    p21 = Probes(t21)
    vop3a = tuple(tuple(f for f in v if f != "sdst") for v in VOP3_VARIANTS)
    learned21 = {
        "VOP1": learn(t21, opcodes(t21, "VOP1", 0x100), p21.vop1, (ALL, ("dst",), ()), VOP_MARKERS),
        "VOP2": learn(t21, opcodes(t21, "VOP2", 0x3E), p21.vop2, (ALL,), VOP_MARKERS),
        "VOPC": learn(t21, opcodes(t21, "VOPC", 0x100), p21.vopc, (ALL,), VOP_MARKERS),
        "VOP3": learn(t21, opcodes(t21, "VOP3", 0x400), p21.vop3, vop3a, VOP_MARKERS)}
    known = {**tables, "VOP3": {**tables["VOP3"], **tables["VOP3B"]}}
    new = {family: {} for family in tables}
    for family, table in learned21.items():
        new[family] = {op: e for op, e in table.items() if op not in known[family]}
    for family, found in rows(t21, p21, new).items():
        entries[family].update(found)
    for family in TRUE16_FAMILIES:
        for op, e in learned21[family].items():
            row = entries[family][op]
            if e["t16"] and (strip_suffix(e["name"])[0], e["ops"]) == (row["name"], row["ops"]):
                row["t16"] = e["t16"]
        entries[family] = dict(sorted(entries[family].items()))


def generate(name, out):
    t, p, tables = learned(name)
    entries = rows(t, p, tables)
    if t.true16:
        true16(t, tables, entries)
    hwreg, sendmsg, formats = named_values(t, p, tables)
    if "VOPD" in t.encoding:
        entries["VOPDX"], entries["VOPDY"] = vopd_halves(t)
    alias = aliases(t, tables) if name != ALIAS_BASE else None
    with open(out, "w") as f:
        more = (ACC_DOC if t.encoding["VOP3P"].has("acc") else "") + \
            (VOPD_DOC if "VOPD" in t.encoding else "") + (TRUE16_DOC if t.true16 else "") + \
            (ALIAS_DOC if alias is not None else "")
        f.write(HEADER.format(target=name, llvm=t.llvm.version, more=more))
        f.write("TABLES = ")
        f.write(pprint.pformat(entries, width=100, sort_dicts=True))
        f.write("\n\nHWREG_NAMES = ")
        f.write(pprint.pformat(hwreg, width=100))
        f.write("\n\nBUFFER_FORMATS = ")
        f.write(pprint.pformat(formats, width=100))
        f.write("\n\nSENDMSG_TEXT = ")
        f.write(pprint.pformat(sendmsg, width=100))
        f.write("\n")
        if alias is not None:
            f.write("\nALIASES = ")
            f.write(pprint.pformat(alias, width=100))
            f.write("\n")


def main():
    names = sys.argv[1:2] or sorted(TARGETS)
    for name in names:
        generate(name, sys.argv[2] if len(sys.argv) > 2 else output_path(name))


if __name__ == "__main__":
    main()
