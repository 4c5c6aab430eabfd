"""Vector memory operation records: what each GLOBAL, FLAT, SCRATCH and MUBUF load, store and
atomic moves, and which of its operands play which role.

Guarantees:
- VMEM_OPS names every plain load, store and atomic of the four families (formatted buffer
  access is not among them) with one record: Load(element bytes, elements, sign-extends,
  d16 half), Store(element bytes, elements, takes the high half) or Atomic(operation name,
  64-bit); LDS_LOADS the loads whose data goes to LDS (gfx940+'s global_load_lds_*);
- SCRATCH has no atomics, and the *_addtid forms exist for GLOBAL dword loads and stores only;
- named_operands gives the decoder's operands by role (vdst, addr, saddr, data; for MUBUF
  vaddr, srsrc, soffset) exactly as the encoding places them.
"""
from typing import NamedTuple, Optional


class Load(NamedTuple):
    esize: int                  # bytes of one element
    count: int                  # elements (dwords for the dwordxN forms)
    signed: bool                # sub-dword elements sign-extend
    half: Optional[str]         # d16: None, or the VGPR half written ('lo' / 'hi')


class Store(NamedTuple):
    esize: int
    count: int
    high: bool                  # d16_hi: the VGPR's high half is stored


class Atomic(NamedTuple):
    op: str                     # the operation (add, cmpswap, fadd, pk_fadd16, ...)
    wide: bool                  # 64-bit data and return value


LOADS = {
    "ubyte": Load(1, 1, False, None), "sbyte": Load(1, 1, True, None),
    "ushort": Load(2, 1, False, None), "sshort": Load(2, 1, True, None),
    "dword": Load(4, 1, False, None), "dwordx2": Load(4, 2, False, None),
    "dwordx3": Load(4, 3, False, None), "dwordx4": Load(4, 4, False, None),
    "ubyte_d16": Load(1, 1, False, "lo"), "ubyte_d16_hi": Load(1, 1, False, "hi"),
    "sbyte_d16": Load(1, 1, True, "lo"), "sbyte_d16_hi": Load(1, 1, True, "hi"),
    "short_d16": Load(2, 1, False, "lo"), "short_d16_hi": Load(2, 1, False, "hi"),
}
STORES = {
    "byte": Store(1, 1, False), "byte_d16_hi": Store(1, 1, True), "short": Store(2, 1, False),
    "short_d16_hi": Store(2, 1, True), "dword": Store(4, 1, False), "dwordx2": Store(4, 2, False),
    "dwordx3": Store(4, 3, False), "dwordx4": Store(4, 4, False),
}
# atomic suffix -> operation; each also exists as suffix_x2 on 64-bit data
ATOMICS = {
    "add": "add", "sub": "sub", "smin": "smin", "umin": "umin", "smax": "smax", "umax": "umax",
    "and": "and", "or": "or", "xor": "xor", "inc": "inc", "dec": "dec", "swap": "swap",
    "cmpswap": "cmpswap", "fcmpswap": "fcmpswap", "fmin": "fmin", "fmax": "fmax",
    "add_f32": "fadd", "csub": "csub", "pk_add_f16": "pk_fadd16", "pk_add_bf16": "pk_faddbf16",
    # gfx12: subtract only what is there (the old value stays when it is smaller)
    "cond_sub_u32": "cond_sub",
}
# 64-bit atomics named by their type, not _x2 (gfx90a's f64 add/min/max)
ATOMICS_64 = {"add_f64": "fadd", "min_f64": "fmin", "max_f64": "fmax"}


def _vmem_ops():
    ops = {}
    for prefix in ("global", "flat", "scratch", "buffer"):
        for suffix, record in LOADS.items():
            ops[f"{prefix}_load_{suffix}"] = record
        for suffix, record in STORES.items():
            ops[f"{prefix}_store_{suffix}"] = record
        if prefix == "global":
            ops["global_load_dword_addtid"] = LOADS["dword"]
            ops["global_store_dword_addtid"] = STORES["dword"]
        if prefix == "scratch":
            continue
        for suffix, op in ATOMICS.items():
            ops[f"{prefix}_atomic_{suffix}"] = Atomic(op, False)
            ops[f"{prefix}_atomic_{suffix}_x2"] = Atomic(op, True)
        for suffix, op in ATOMICS_64.items():
            ops[f"{prefix}_atomic_{suffix}"] = Atomic(op, True)
    return ops


VMEM_OPS = _vmem_ops()

# gfx940+'s LDS DMA: global_load_lds_* load as their plain twins do, but each lane's data goes
# to LDS at M0 + the instruction's offset + lane * its size instead of to VGPRs (llvm's
# llvm.amdgcn.global.load.lds applies the offset to both addresses: clang-21 sets M0 to the LDS
# pointer alone and puts the offset in the instruction). gfx950 adds dwordx3 and dwordx4. The
# byte and short forms are left out: no source we have says how far apart their lanes land.
LDS_LOADS = {f"global_load_lds_{suffix}": LOADS[suffix]
             for suffix in ("dword", "dwordx3", "dwordx4")}


def loads_to_lds(mnemonic):
    """Whether the instruction writes what it loads to LDS (DMA), not to VGPRs."""
    return mnemonic in LDS_LOADS

_FAMILIES = {"global": "GLOBAL", "flat": "FLAT", "scratch": "SCRATCH", "buffer": "MUBUF",
             "tbuffer": "MUBUF"}


def family(inst):
    """GLOBAL, FLAT, SCRATCH or MUBUF (MTBUF's tbuffer_* address as MUBUF does)."""
    return _FAMILIES[inst.mnemonic.split("_", 1)[0]]


def named_operands(family, inst):
    """The decoder's operands by role: vdst (loads, atomics with glc), addr, saddr, data,
    and for MUBUF vaddr, srsrc, soffset."""
    src = list(inst.src)
    named = {"vdst": inst.dst[0] if inst.dst else None}
    if family == "MUBUF":
        if inst.mods.get("offen") or inst.mods.get("idxen"):
            named["vaddr"] = src.pop(0)
        named["srsrc"], named["soffset"] = src[0], src[1]
        named["data"] = src[2] if len(src) > 2 else named["vdst"]
        return named
    saddr_off = inst.mods.get("saddr_off", 1)
    if family == "SCRATCH":
        # SCRATCH addresses with an SGPR, a VGPR, neither (offset only: "off, off"), or
        # (gfx11) a VGPR offset plus an SGPR base.
        if inst.mods.get("vaddr_saddr"):
            named["addr"] = src.pop(0)
        if not saddr_off:
            named["saddr"] = src.pop(0)
        elif not inst.mods.get("vaddr_off"):
            named["addr"] = src.pop(0)
    elif inst.mods.get("addtid"):
        named["saddr"] = src.pop(0)
    else:
        named["addr"] = src.pop(0)
        if family == "GLOBAL" and not saddr_off:
            named["saddr"] = src.pop(0)
    named["data"] = src[0] if src else None
    return named
