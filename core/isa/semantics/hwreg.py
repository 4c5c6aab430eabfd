"""Hardware registers s_getreg/s_setreg name (the HW_REG_* ids of the ISA manuals) and how
their operand is encoded.

Guarantees: the ids are the hardware's (LLVM's assembler table for gfx9/gfx10/gfx11), and
hwreg_fields reads the operand whether the decoder gave it as a hwreg(...) triple or as the
raw simm16 field.
"""
HW_REG_MODE, HW_REG_STATUS, HW_REG_TRAPSTS, HW_REG_HW_ID, HW_REG_GPR_ALLOC = 1, 2, 3, 4, 5
HW_REG_LDS_ALLOC, HW_REG_IB_STS, HW_REG_SH_MEM_BASES = 6, 7, 15
HW_REG_FLAT_SCR_LO, HW_REG_FLAT_SCR_HI, HW_REG_HW_ID1, HW_REG_HW_ID2 = 20, 21, 23, 24
HW_REG_SHADER_CYCLES = 29           # gfx12: SHADER_CYCLES_LO, the low word of a 64-bit count
HW_REG_SHADER_CYCLES_HI = 30        # gfx12: its high word


def hwreg_fields(inst):
    """(register id, bit offset, bit width) of an s_getreg/s_setreg operand."""
    mods = inst.mods
    if "hwreg" in mods:
        reg, offset, size = mods["hwreg"]
        return int(reg), int(offset), int(size)
    simm = int(mods["simm16"])
    return simm & 0x3F, (simm >> 6) & 0x1F, ((simm >> 11) & 0x1F) + 1
