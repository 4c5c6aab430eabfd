"""The decoder against llvm on encodings it did not choose: random fields per opcode.

For every encoding family, random instructions (an opcode from the generated table, every
other bit random) are disassembled by llvm-objdump-15; wherever llvm accepts the bytes,
SoftGPU's decoder must print the same text, in wave32 and wave64. Then the texts go
through llvm-mc-15 (assemble) and back through the decoder: the same text again.
"""
import os
import random
import re
import struct
import subprocess
import tempfile

import pytest

from core.isa.decoder import decode
from core.isa.opcodes_gfx1030 import TABLES

SLOT = 8            # dwords per probe slot; unused dwords are s_nop
S_NOP = 0xBF800000

# family -> (fixed high bits, opcode shift, dwords); other bits random.
LAYOUT = {
    "SOP2": (0x2 << 30, 23, 2), "SOPK": (0xB << 28, 23, 2), "SOP1": (0x17D << 23, 8, 2),
    "SOPC": (0x17E << 23, 16, 2), "SOPP": (0x17F << 23, 16, 1), "SMEM": (0x3D << 26, 18, 2),
    "VOP1": (0x3F << 25, 9, 2), "VOP2": (0, 25, 2), "VOPC": (0x3E << 25, 17, 2),
    "VOP3": (0x35 << 26, 16, 3), "VOP3B": (0x35 << 26, 16, 3), "VOP3P": (0xCC << 24, 16, 3),
    "DS": (0x36 << 26, 18, 2), "FLAT": (0x37 << 26, 18, 2), "GLOBAL": (0x37 << 26 | 2 << 14, 18, 2),
    "SCRATCH": (0x37 << 26 | 1 << 14, 18, 2), "MUBUF": (0x38 << 26, 18, 2),
    "MTBUF": (0x3A << 26, 16, 2), "VINTRP": (0x32 << 26, 16, 1), "EXP": (0x3E << 26, 0, 2),
    "MIMG": (0x3C << 26, 18, 2), "MIMG+nsa": (0x3C << 26, 18, 5),
}
# VOP1/VOP2/VOPC with src0 naming a DPP16, DPP8 (with fi) or SDWA extension dword.
EXTENSIONS = {"dpp": 250, "dpp8": 233, "dpp8fi": 234, "sdwa": 249}
for _family in ("VOP1", "VOP2"):
    for _ext in EXTENSIONS:
        LAYOUT[f"{_family}+{_ext}"] = LAYOUT[_family]
LAYOUT["VOPC+sdwa"] = LAYOUT["VOPC"]          # gfx10 has no VOPC DPP
EXTENDED = ("VOP1", "VOP2", "VOPC")
# Bits each family's random part may use (everything below the opcode, plus between).
FREE = {
    "SOP2": 0x007FFFFF, "SOPK": 0x007FFFFF, "SOP1": 0x007F00FF, "SOPC": 0x0000FFFF,
    "SOPP": 0x0000FFFF, "SMEM": 0x0003FFFF, "VOP1": 0x01FE01FF, "VOP2": 0x01FFFFFF,
    "VOPC": 0x0001FFFF, "VOP3": 0x0000FFFF, "VOP3B": 0x0000FFFF, "VOP3P": 0x0000FFFF,
    "DS": 0x0003FFFF, "FLAT": 0x00033FFF, "GLOBAL": 0x00033FFF, "SCRATCH": 0x00033FFF,
    "MUBUF": 0x0003FFFF, "MTBUF": 0x03F8FFFF, "VINTRP": 0x03FCFFFF, "EXP": 0x00001FFF,
    "MIMG": 0x0203FFF8,
}
# Forms llvm prints in ways no compiled kernel can contain: LDS-direct loads (lds bit),
# s_waitcnt_depctr/s_sendmsg immediates outside llvm's named set.
SKIP = re.compile(r"/\*|invalid|\blds\b")
COUNT = 400


def _objdump(blobs, wave64):
    with tempfile.TemporaryDirectory() as tmp:
        src, obj = os.path.join(tmp, "p.s"), os.path.join(tmp, "p.o")
        with open(src, "w") as f:
            f.write(".text\n")
            for words in blobs:
                words = list(words) + [S_NOP] * (SLOT - len(words))
                f.write("".join(f".long 0x{w:08x}\n" for w in words))
        subprocess.run(["llvm-mc-15", "-arch=amdgcn", "-mcpu=gfx1030", "-filetype=obj", src,
                        "-o", obj], check=True)
        attr = "+wavefrontsize64" if wave64 else "+wavefrontsize32"
        out = subprocess.run(["llvm-objdump-15", "-d", "--mcpu=gfx1030", f"--mattr={attr}", obj],
                             check=True, capture_output=True, text=True).stdout
    texts = {}
    for line in out.splitlines():
        m = re.match(r"^\t(.*?)\s*// ([0-9A-F]{12}):", line)
        if m and int(m.group(2), 16) % (SLOT * 4) == 0 and not m.group(1).startswith(".long"):
            texts[int(m.group(2), 16) // (SLOT * 4)] = m.group(1)
    return texts


def _random_blob(name, rnd):
    family, _, ext = name.partition("+")
    high, shift, dwords = LAYOUT[name]
    op = rnd.choice(sorted(TABLES[family]))
    if family == "MTBUF":
        op &= 7                         # op[3] lives in the second dword, random there
    w0 = high | (op & 0x7F if family == "MIMG" else op) << shift | rnd.getrandbits(32) & FREE[family]
    if family == "MIMG":
        # op[7] in bit 0; NSA (bits 2:1) names 1-3 dwords of extra address registers,
        # mostly enough for the opcode's addresses (llvm-mc rejects texts with too few):
        # 2-3 for derivatives, else mostly 1.
        name = TABLES["MIMG"][op]["name"]
        derivatives = re.search(r"_c?d(_|$)", name)
        nsa = 0 if not ext else rnd.choice((2, 3) if derivatives else (1, 1, 2))
        w0 |= op >> 7 | nsa << 1
        dwords = 2 + nsa
        if rnd.random() < 0.8 and ("gather4" in name or "atomic" in name):
            # Mostly the DMASKs llvm-mc accepts: one channel for gather4, 1/2/4 dwords
            # (cmpswap: 2/4) for atomics.
            masks = (1, 2, 4, 8) if "gather4" in name else (3, 15) if "cmpswap" in name else (1, 3)
            w0 = w0 & ~(0xF << 8) | rnd.choice(masks) << 8
    elif ext:
        w0 = w0 & ~0x1FF | EXTENSIONS[ext]
    if family == "VOP2" and op > 0x3D:
        w0 &= ~(1 << 31)
    rest = []
    for _ in range(dwords - 1):
        # Zero some bytes: llvm rejects encodings whose unused fields are not zero.
        word = rnd.getrandbits(32)
        for byte in range(4):
            if rnd.random() < 0.4:
                word &= ~(0xFF << 8 * byte)
        rest.append(word)
    if ext == "sdwa" or family in EXTENDED and w0 & 0x1FF == EXTENSIONS["sdwa"]:
        # Selects 0-6 and dst_unused 0-2 only: llvm-objdump-15 crashes (SIGILL) on others.
        sdwa = rest[0]
        for shift in (8, 16, 24):
            sdwa = sdwa & ~(7 << shift) | rnd.randrange(7) << shift
        rest[0] = sdwa & ~(3 << 11) | rnd.randrange(3) << 11
        if family == "VOP1":
            rest[0] &= 0x00FFFFFF           # VOP1 has no src1 select
    if family == "FLAT":
        rest[0] = rest[0] & ~(0x7F << 16) | 0x7D << 16          # flat_* take no saddr
        w0 &= ~(1 << 11)                # gfx10 flat_* offsets are 11-bit (llvm-mc enforces)
    return [w0] + rest


def _agreements(family, wave64):
    rnd = random.Random(f"{family}-{wave64}")
    blobs = [_random_blob(family, rnd) for _ in range(COUNT)]
    expected = _objdump(blobs, wave64)
    pairs = []
    for i, text in sorted(expected.items()):
        if SKIP.search(text):
            continue
        words = list(blobs[i]) + [S_NOP] * (SLOT - len(blobs[i]))
        inst = decode(struct.pack(f"<{SLOT}I", *words), 0, 0, wave64)
        pairs.append((text, inst.text, blobs[i]))
    return pairs


@pytest.mark.parametrize("wave64", [False, True], ids=["wave32", "wave64"])
@pytest.mark.parametrize("family", sorted(LAYOUT))
def test_decoder_matches_llvm_on_random_fields(family, wave64):
    pairs = _agreements(family, wave64)
    assert len(pairs) >= 20, "too few valid probes: the test would prove nothing"
    mismatches = [(e, d, " ".join(f"{w:08x}" for w in b)) for e, d, b in pairs if e != d]
    assert mismatches == []


def _assemble(texts):
    """llvm-mc's encoding of each text, None where llvm-mc refuses a text llvm-objdump
    printed (it is stricter: v_movrels* with SGPR sources, v_fmaak_f16 with 32-bit
    constants, src_lds_direct in SALU ...)."""
    done = subprocess.run(["llvm-mc-15", "-arch=amdgcn", "-mcpu=gfx1030", "--show-encoding"],
                          input="\n".join(texts) + "\n", capture_output=True, text=True)
    refused = {int(n) - 1 for n in re.findall(r"<stdin>:(\d+):\d+: error", done.stderr)}
    encodings = iter(re.findall(r"; encoding: \[([^\]]*)\]", done.stdout))
    return [None if i in refused else bytes(int(b, 16) for b in next(encodings).split(","))
            for i in range(len(texts))]


# Texts llvm-mc-15 assembles into other bits than llvm-objdump read them from: it encodes
# v_interp_*_f16 "high" nowhere, rewrites BITMASK_PERM swizzles to their canonical mode, and
# encodes buffer_wbinvl1 as buffer_gl0_inv.
LLVM_MC_CHANGES = re.compile(r" high\b|BITMASK_PERM|buffer_wbinvl1")


# llvm-mc reads compressed exports' operands differently from how llvm-objdump prints them.
@pytest.mark.parametrize("family", sorted(set(LAYOUT) - {"EXP"}))
def test_llvm_mc_round_trip(family):
    """decode -> text -> llvm-mc -> bytes -> decode gives the same text."""
    texts = [d for _e, d, _b in _agreements(family, False) if not LLVM_MC_CHANGES.search(d)]
    encodings = _assemble(texts)
    assembled = [(t, e) for t, e in zip(texts, encodings) if e is not None]
    assert len(assembled) >= 0.8 * len(texts), "llvm-mc refused most texts"
    again = [(t, decode(e + struct.pack("<I", S_NOP) * 2, 0, 0).text) for t, e in assembled]
    assert [t for t, a in again if t != a] == []
