"""Hardware registers s_getreg/s_setreg name, what each one holds, and how their operand is
encoded.

A register's id means different things per generation (20 is FLAT_SCR_LO on gfx10/gfx11,
SCRATCH_BASE_LO on gfx12, XCC_ID on gfx940+ and nothing on gfx90a), while LLVM's name for it
does not. So both tiers ask what a register holds by its name in the target's own table
(opcodes_<target>.HWREG_NAMES, generated from llvm-mc), never by a bare id.

Guarantees: hwreg_fields reads the operand whether the decoder gave it as a hwreg(...) triple
or as the raw simm16 field; hwreg_meaning names what the register holds on the instruction's
target, or None where the target has no such register or SoftGPU does not model it (both
tiers then fault naming it).
"""
# What a register holds, by LLVM's name; the engine's tiers act on these meanings.
_MEANINGS = {
    "HW_REG_MODE": "mode",
    # The wave's scratch base: gfx10/gfx11's FLAT_SCRATCH, gfx12's renamed SCRATCH_BASE
    "HW_REG_FLAT_SCR_LO": "scratch_lo", "HW_REG_SCRATCH_BASE_LO": "scratch_lo",
    "HW_REG_FLAT_SCR_HI": "scratch_hi", "HW_REG_SCRATCH_BASE_HI": "scratch_hi",
    "HW_REG_SH_MEM_BASES": "apertures",
    "HW_REG_HW_ID1": "wave_id",
    "HW_REG_GPR_ALLOC": "gpr_alloc",
    "HW_REG_LDS_ALLOC": "lds_alloc",
    # The cycle counter: 20 bits on gfx10.3/gfx11; gfx12's 64 bits in two words
    "HW_REG_SHADER_CYCLES": "cycles_20", "HW_REG_SHADER_CYCLES_LO": "cycles_lo",
    "HW_REG_SHADER_CYCLES_HI": "cycles_hi",
    "HW_REG_XCC_ID": "xcc_id",
    # Status, trap and exception state, and the hardware placement ids: a wave here is never
    # trapped, raises no recorded exception, and runs on SE 0, CU 0
    **{name: "zero" for name in ("HW_REG_STATUS", "HW_REG_TRAPSTS", "HW_REG_EXCP_FLAG_PRIV",
                                 "HW_REG_EXCP_FLAG_USER", "HW_REG_HW_ID", "HW_REG_HW_ID2",
                                 "HW_REG_IB_STS")},
}
# Writes that change nothing a later read sees (they read 0 again): exception and trap
# status, which the engine does not record
_IGNORED_WRITES = frozenset(("HW_REG_STATUS", "HW_REG_TRAPSTS", "HW_REG_EXCP_FLAG_PRIV",
                             "HW_REG_EXCP_FLAG_USER"))


def hwreg_fields(inst):
    """(register id, bit offset, bit width) of an s_getreg/s_setreg operand."""
    mods = inst.mods
    if "hwreg" in mods:
        reg, offset, size = mods["hwreg"]
        return int(reg), int(offset), int(size)
    simm = int(mods["simm16"])
    return simm & 0x3F, (simm >> 6) & 0x1F, ((simm >> 11) & 0x1F) + 1


def hwreg_name(inst):
    """LLVM's name for the operand's register on the instruction's target (its id as text
    where the target has none)."""
    from core.isa import targets
    reg = hwreg_fields(inst)[0]
    return targets.get(inst.target).opcodes.HWREG_NAMES.get(reg, str(reg))


def hwreg_meaning(inst):
    """What the operand's register holds on the instruction's target (a _MEANINGS value), or
    None where it is no register of the target or one SoftGPU does not model."""
    return _MEANINGS.get(hwreg_name(inst))


def write_ignored(inst):
    """Whether an s_setreg of the operand's register is accepted and changes nothing."""
    return hwreg_name(inst) in _IGNORED_WRITES
