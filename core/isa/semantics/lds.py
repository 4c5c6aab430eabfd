"""DS (LDS) operation records: what each DS read, write, exchange and atomic moves, how the
decoder lists a DS instruction's operands, and which lane ds_swizzle reads from.

Guarantees:
- memory_operations names every DS memory operation once, with the handler kind and
  arguments each engine tier builds it from, so both tiers give the same names the same
  meaning; READS and WRITES use the Load and Store records of core.isa.semantics.vmem;
- every atomic stem without _rtn_ also exists as its returning _rtn_ form; ds_cmpstore* takes
  the new value before the compare value (ds_cmpst* the other way round);
- swizzle_plan is the source lane of every lane for a ds_swizzle_b32 offset: quad-permute
  mode (bit 15) within groups of four, bit-mask mode within groups of 32;
- writes_lds is true exactly for the operations of memory_operations that change LDS (writes,
  exchanges, atomics), reads_lds for those that return what LDS held (reads, exchanges,
  returning atomics), by the same names.
"""
from functools import lru_cache

import numpy as np

from core.isa.semantics.vmem import Load, Store

READS = {
    "b32": Load(4, 1, False, None), "b64": Load(4, 2, False, None),
    "b96": Load(4, 3, False, None), "b128": Load(4, 4, False, None),
    "u8": Load(1, 1, False, None), "i8": Load(1, 1, True, None),
    "u16": Load(2, 1, False, None), "i16": Load(2, 1, True, None),
    "u8_d16": Load(1, 1, False, "lo"), "u8_d16_hi": Load(1, 1, False, "hi"),
    "i8_d16": Load(1, 1, True, "lo"), "i8_d16_hi": Load(1, 1, True, "hi"),
    "u16_d16": Load(2, 1, False, "lo"), "u16_d16_hi": Load(2, 1, False, "hi"),
}
WRITES = {
    "b8": Store(1, 1, False), "b16": Store(2, 1, False), "b32": Store(4, 1, False),
    "b64": Store(4, 2, False), "b96": Store(4, 3, False), "b128": Store(4, 4, False),
    "b8_d16_hi": Store(1, 1, True), "b16_d16_hi": Store(2, 1, True),
}
# mnemonic stem -> (atomic operation, 64-bit); each stem without _rtn_ also has a _rtn_ form
ATOMIC_STEMS = {
    "add_u32": ("add", False), "sub_u32": ("sub", False), "rsub_u32": ("rsub", False),
    "inc_u32": ("inc", False), "dec_u32": ("dec", False), "min_i32": ("smin", False),
    "max_i32": ("smax", False), "min_u32": ("umin", False), "max_u32": ("umax", False),
    "and_b32": ("and", False), "or_b32": ("or", False), "xor_b32": ("xor", False),
    "mskor_b32": ("mskor", False), "cmpst_b32": ("cmpswap", False),
    "cmpst_f32": ("fcmpswap", False), "min_f32": ("fmin", False), "max_f32": ("fmax", False),
    "add_f32": ("fadd", False), "wrxchg_rtn_b32": ("swap", False),
    "pk_add_f16": ("pk_fadd16", False), "pk_add_bf16": ("pk_faddbf16", False),
    "sub_clamp_u32": ("csub", False), "cond_sub_u32": ("cond_sub", False),
    "add_u64": ("add", True), "sub_u64": ("sub", True), "rsub_u64": ("rsub", True),
    "inc_u64": ("inc", True), "dec_u64": ("dec", True), "min_i64": ("smin", True),
    "max_i64": ("smax", True), "min_u64": ("umin", True), "max_u64": ("umax", True),
    "and_b64": ("and", True), "or_b64": ("or", True), "xor_b64": ("xor", True),
    "mskor_b64": ("mskor", True), "cmpst_b64": ("cmpswap", True), "cmpst_f64": ("fcmpswap", True),
    "min_f64": ("fmin", True), "max_f64": ("fmax", True), "wrxchg_rtn_b64": ("swap", True),
    "add_f64": ("fadd", True),
    "wrap_rtn_b32": ("wrap", False),
}


def ds_parts(inst, returns):
    """(vdst or None, addr, [data0, data1]) as the decoder lists DS operands."""
    vdst = inst.dst[0] if returns and inst.dst else None
    return vdst, inst.src[0] if inst.src else None, list(inst.src[1:])


def memory_operations():
    """Every DS memory operation as (mnemonic, kind, args, kwargs): `kind` names the handler
    factory each engine tier has (read, write, exchange2, atomic), called with args and
    kwargs."""
    for suffix, form in READS.items():
        yield f"ds_read_{suffix}", "read", (form,), {}
    for suffix in ("b32", "b64"):
        yield f"ds_read2_{suffix}", "read", (READS[suffix],), {"pair": True}
        yield f"ds_read2st64_{suffix}", "read", (READS[suffix],), {"pair": True, "st64": True}
        yield f"ds_write2_{suffix}", "write", (WRITES[suffix],), {"pair": True}
        yield f"ds_write2st64_{suffix}", "write", (WRITES[suffix],), {"pair": True, "st64": True}
    for suffix, form in WRITES.items():
        yield f"ds_write_{suffix}", "write", (form,), {}
    for wide, suffix in ((False, "b32"), (True, "b64")):
        yield f"ds_wrxchg2_rtn_{suffix}", "exchange2", (wide, False), {}
        yield f"ds_wrxchg2st64_rtn_{suffix}", "exchange2", (wide, True), {}
    for wide, size in ((False, "32"), (True, "64")):
        for kind, op in (("b", "cmpswap"), ("f", "fcmpswap")):
            yield f"ds_cmpstore_{kind}{size}", "atomic", (op, wide, False), {"new_first": True}
            yield f"ds_cmpstore_rtn_{kind}{size}", "atomic", (op, wide, True), {"new_first": True}
    for stem, (op, wide) in ATOMIC_STEMS.items():
        if "_rtn_" in stem:
            yield f"ds_{stem}", "atomic", (op, wide, True), {}
            continue
        name, kind = stem.rsplit("_", 1)
        yield f"ds_{stem}", "atomic", (op, wide, False), {}
        yield f"ds_{name}_rtn_{kind}", "atomic", (op, wide, True), {}


@lru_cache(maxsize=None)
def _writers():
    return frozenset(name for name, kind, _, _ in memory_operations() if kind != "read")


def writes_lds(mnemonic):
    """True when the DS operation `mnemonic` stores into LDS (a write, exchange or atomic)."""
    return mnemonic in _writers()


@lru_cache(maxsize=None)
def _readers():
    return frozenset(name for name, kind, args, _ in memory_operations()
                     if kind in ("read", "exchange2") or (kind == "atomic" and args[2]))


def reads_lds(mnemonic):
    """True when the DS operation `mnemonic` returns LDS contents (a read, exchange or
    returning atomic)."""
    return mnemonic in _readers()


@lru_cache(maxsize=None)
def swizzle_plan(pattern, lanes):
    """The source lane of every lane (read-only) for ds_swizzle_b32 with this offset."""
    lane = np.arange(lanes)
    if pattern & 0x8000:                                    # quad permute mode
        source = lane - lane % 4 + ((pattern >> (2 * (lane % 4))) & 3)
    else:                                                   # bitmask mode, groups of 32 lanes
        and_mask, or_mask, xor_mask = pattern & 0x1F, (pattern >> 5) & 0x1F, (pattern >> 10) & 0x1F
        source = lane - lane % 32 + (((lane % 32) & and_mask | or_mask) ^ xor_mask)
    source.setflags(write=False)
    return source


# gfx950's transposed reads: {mnemonic: element bits}. Each group of 16 lanes reads 64 bits
# at each lane's address (n = 64 / bits elements) and trades them so that lane j of the group
# receives element j % n of the group's lanes e * (16 / n) + j // n, for e = 0..n-1: the n x 16
# tile the group's addresses cover (row r read by lanes r * 16 / n ..), by columns, lane j
# taking column j. (Triton's gfx950 GEMMs, whose fp16, bf16 and fp8 tiles are read this
# way, give numpy's products bit for bit; the 4- and 6-bit forms are left out.)
TRANSPOSED_READS = {"ds_read_b64_tr_b16": 16, "ds_read_b64_tr_b8": 8}


def transposed_sources(bits, lanes):
    """(lane, element) arrays [lanes, n] of what each lane of a transposed read receives."""
    per_lane = 64 // bits
    lane = np.arange(lanes)
    row = np.arange(per_lane)[None, :] * (16 // per_lane)
    source_lane = (lane // 16 * 16 + lane % 16 // per_lane)[:, None] + row
    source_element = np.broadcast_to((lane % per_lane)[:, None], source_lane.shape)
    return source_lane, source_element


def ds_offsets(inst, element_bytes, pair, st64):
    """The byte offsets, from the address VGPR, of the one address of a DS instruction
    (its offset) or of the two of a read2/write2/wrxchg2 form (offset0 and offset1 in units
    of the element, 64 elements for the st64 forms)."""
    if not pair:
        return (int(inst.mods.get("offset", 0)),)
    scale = element_bytes * (64 if st64 else 1)
    return tuple(int(inst.mods.get(field, 0)) * scale for field in ("offset0", "offset1"))
