"""What the executor reads from a decoded instruction: operands, widths, constants, labels,
modifiers, implicit registers — for encodings llvm-mc-15 assembles from text."""
import re
import subprocess

import pytest

from core.isa.decoder import DecodeError, decode, decode_all
from core.isa.disasm import format_instruction
from core.isa.instruction import INV_2PI, Operand


def assemble(text, wave64=False):
    attr = "+wavefrontsize64" if wave64 else "+wavefrontsize32"
    done = subprocess.run(["llvm-mc-15", "-arch=amdgcn", "-mcpu=gfx1030", f"-mattr={attr}",
                           "--show-encoding"], input=text + "\n", capture_output=True, text=True,
                          check=True)
    assert "error" not in done.stderr, done.stderr
    codes = re.findall(r"; encoding: \[([^\]]*)\]", done.stdout)
    return b"".join(bytes(int(b, 16) for b in c.split(",")) for c in codes)


def decoded(text, wave64=False, address=0x1000):
    code = assemble(text, wave64)
    inst = decode(code, 0, address, wave64)
    assert inst.size == len(code)
    assert format_instruction(inst) == text
    return inst


def sgpr(i, n=1):
    return Operand("sgpr", i, n)


def vgpr(i, n=1):
    return Operand("vgpr", i, n)


def test_fixed_vcc_operands_are_ordinary_operands_sized_by_wave():
    inst = decoded("v_cndmask_b32_e32 v1, v2, v3, vcc_lo")
    assert inst.dst == (vgpr(1),)
    assert inst.src == (vgpr(2), vgpr(3), Operand("special", 106, 1))
    assert inst.implicit_src == () and inst.implicit_dst == ()
    wide = decoded("v_cndmask_b32_e32 v1, v2, v3, vcc", wave64=True)
    assert wide.src[2] == Operand("special", 106, 2)


def test_vopc_e32_writes_vcc_and_cmpx_writes_exec():
    assert decoded("v_cmp_eq_u32_e32 vcc_lo, v1, v2").dst == (Operand("special", 106, 1),)
    assert decoded("v_cmp_eq_u32_e32 vcc, v1, v2", wave64=True).dst == \
        (Operand("special", 106, 2),)
    cmpx = decoded("v_cmpx_gt_u32_e32 v1, v2")
    assert cmpx.dst == () and cmpx.implicit_dst == (Operand("special", 126, 1),)


def test_vop3b_carry_out_and_in():
    inst = decoded("v_add_co_ci_u32_e64 v1, s4, v2, v3, s6")
    assert inst.encoding == "VOP3B" and inst.form == "e64"
    assert inst.mnemonic == "v_add_co_ci_u32"
    assert inst.dst == (vgpr(1), sgpr(4)) and inst.src == (vgpr(2), vgpr(3), sgpr(6))
    e32 = decoded("v_add_co_ci_u32_e32 v1, vcc_lo, v2, v3, vcc_lo")
    assert e32.dst == (vgpr(1), Operand("special", 106, 1))
    assert e32.src == (vgpr(2), vgpr(3), Operand("special", 106, 1))


def test_vop3_modifiers_and_inline_constants():
    inst = decoded("v_fma_f32 v0, 0.5, -v1, |v2| clamp mul:2")
    assert inst.src == (Operand("inline_float", 240, 1, 0.5), vgpr(1), vgpr(2))
    assert (inst.mods["neg"], inst.mods["abs"], inst.mods["clamp"], inst.mods["omod"]) == \
        (2, 4, 1, 1)
    assert decoded("v_add_f64 v[0:1], 0.15915494309189532, v[2:3]").src[0] == \
        Operand("inline_float", 248, 2, INV_2PI)
    assert decoded("v_add_nc_u32_e64 v0, -16, 64").src == \
        (Operand("inline_int", 208, 1, -16), Operand("inline_int", 192, 1, 64))


def test_literal_dword_is_part_of_the_instruction():
    inst = decoded("v_mov_b32_e32 v0, 0x12345678")
    assert inst.size == 8 and inst.src == (Operand("literal", 255, 1, 0x12345678),)
    vop3 = decoded("v_fma_f32 v0, v1, 0x40490fdb, v2")
    assert vop3.size == 12 and vop3.src[1].value == 0x40490FDB
    fmamk = decoded("v_fmamk_f32 v0, v1, 0x3e800000, v2")
    assert [op.kind for op in fmamk.src] == ["vgpr", "literal", "vgpr"]


def test_scalar_memory_and_alu():
    inst = decoded("s_load_dwordx2 s[0:1], s[4:5], 0x24")
    assert inst.encoding == "SMEM" and inst.size == 8
    assert inst.dst == (sgpr(0, 2),) and inst.src == (sgpr(4, 2),)
    assert inst.mods["offset"] == 0x24
    assert decoded("s_load_dword s0, s[4:5], s6 offset:0x10").src == (sgpr(4, 2), sgpr(6))
    add = decoded("s_add_u32 s0, s1, 0xffff0000")
    assert add.size == 8 and add.src[1] == Operand("literal", 255, 1, 0xFFFF0000)


def test_special_registers():
    assert decoded("s_mov_b64 s[0:1], src_shared_base").src == (Operand("special", 235, 2),)
    assert decoded("s_mov_b32 s0, src_pops_exiting_wave_id").src == (Operand("special", 239),)
    assert decoded("s_mov_b32 s0, src_execz").src == (Operand("special", 252),)
    assert decoded("s_mov_b32 m0, null").dst == (Operand("special", 124),)
    assert decoded("s_mov_b64 exec, s[2:3]").dst == (Operand("special", 126, 2),)
    assert decoded("v_readfirstlane_b32 s5, v1").dst == (sgpr(5),)


def test_branch_labels_resolve_to_addresses():
    inst = decoded("s_cbranch_scc0 3", address=0x2000)
    assert inst.src == (Operand("label", 0, 1, 0x2000 + 4 + 12),)
    assert inst.implicit_src == (Operand("special", 253, 1),)
    back = decoded("s_branch 65535", address=0x2000)          # -1 dwords: itself
    assert back.src[0].value == 0x2000
    vccz = decoded("s_cbranch_vccz 1", wave64=True)
    assert vccz.implicit_src == (Operand("special", 106, 2),)


def test_sopp_sopk_immediates():
    assert decoded("s_waitcnt vmcnt(0) lgkmcnt(0)").mods["simm16"] == 0x0070
    getreg = decoded("s_getreg_b32 s0, hwreg(HW_REG_MODE, 4, 4)")
    assert getreg.mods["hwreg"] == (1, 4, 4) and getreg.dst == (sgpr(0),)
    setreg = decoded("s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 3")
    assert setreg.size == 8 and setreg.src[0].value == 3
    assert decoded("s_movk_i32 s0, 0xfffe").src[0].value == -2
    assert decoded("s_cmpk_eq_u32 s0, 0xfffe").src == (sgpr(0), Operand("inline_int", 0, 1, 0xFFFE))


def test_vector_memory_operands():
    off = decoded("global_load_dword v1, v[2:3], off offset:-8")
    assert off.dst == (vgpr(1),) and off.src == (vgpr(2, 2),) and off.mods["offset"] == -8
    saddr = decoded("global_store_dwordx2 v2, v[4:5], s[6:7] offset:16")
    assert saddr.dst == () and saddr.src == (vgpr(2), sgpr(6, 2), vgpr(4, 2))
    ret = decoded("global_atomic_add v0, v1, v2, s[4:5] glc")
    assert ret.dst == (vgpr(0),) and ret.mods["glc"] == 1
    cmpswap = decoded("flat_atomic_cmpswap v0, v[1:2], v[3:4] glc")
    assert cmpswap.dst == (vgpr(0),) and cmpswap.src == (vgpr(1, 2), vgpr(3, 2))
    scratch = decoded("scratch_load_dword v1, off, s3 offset:4")
    assert scratch.src == (sgpr(3),)
    two = decoded("ds_write2_b32 v1, v2, v3 offset0:4 offset1:8")
    assert two.src == (vgpr(1), vgpr(2), vgpr(3)) and (two.mods["offset0"], two.mods["offset1"]) == (4, 8)
    buf = decoded("buffer_load_dword v1, off, s[0:3], 0 offset:4")
    assert buf.src == (sgpr(0, 4), Operand("inline_int", 128, 1, 0)) and buf.mods["offset"] == 4
    offen = decoded("buffer_store_dword v1, v2, s[0:3], s4 offen")
    assert offen.src == (vgpr(2), sgpr(0, 4), sgpr(4), vgpr(1)) and offen.mods["offen"] == 1


def test_dpp_and_sdwa_forms():
    dpp = decoded("v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf")
    assert (dpp.form, dpp.size, dpp.mods["dpp_ctrl"], dpp.src) == ("dpp", 8, 0x101, (vgpr(1),))
    dpp8 = decoded("v_add_f32_dpp v0, v1, v2 dpp8:[7,6,5,4,3,2,1,0]")
    assert dpp8.form == "dpp8" and dpp8.mods["dpp8"] == (7, 6, 5, 4, 3, 2, 1, 0)
    sdwa = decoded("v_add_f32_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD "
                   "src0_sel:BYTE_0 src1_sel:DWORD")
    assert sdwa.form == "sdwa" and (sdwa.mods["dst_sel"], sdwa.mods["src0_sel"]) == (5, 0)


def test_records_are_hashable_and_immutable():
    inst = decoded("v_add_f32_e32 v0, v1, v2")
    assert hash(inst) == hash(decoded("v_add_f32_e32 v0, v1, v2"))
    with pytest.raises(AttributeError):
        inst.size = 4
    with pytest.raises(TypeError):
        inst.mods["x"] = 1


def test_decode_all_walks_a_code_range():
    code = assemble("s_mov_b32 s0, 0x12345678\nv_nop\ns_endpgm\ns_code_end")
    insts = decode_all(code, 0x4000)
    assert [(i.address, i.mnemonic) for i in insts] == \
        [(0x4000, "s_mov_b32"), (0x4008, "v_nop"), (0x400C, "s_endpgm"), (0x4010, "s_code_end")]


@pytest.mark.parametrize("code", [
    b"\xff\xff\xff\xff",                      # no encoding family
    bytes.fromhex("0000d6d5"),                # VOP3 cut after its first dword
    (0x7E000000 | 0x6A << 9 | 0x100).to_bytes(4, "little"),  # VOP1 opcode 0x6a: none on gfx1030
    bytes.fromhex("f9020202"),                # VOP2 SDWA without its extension dword
    b"\x00\x00",                              # not even one dword
])
def test_bytes_llvm_rejects_raise_decode_error(code):
    with pytest.raises(DecodeError):
        decode(code, 0, 0)


def test_image_and_typed_buffer_instructions_decode():
    image = decode(assemble("image_load v[0:3], v[4:5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D"), 0, 0)
    assert (image.encoding, image.mnemonic, image.size) == ("MIMG", "image_load", 8)
    assert image.dst == (vgpr(0, 4),) and image.mods["dmask"] == 0xF
    nsa = assemble("image_sample v[0:3], [v4, v6], s[8:15], s[16:19] dmask:0xf "
                   "dim:SQ_RSRC_IMG_2D")
    assert decode(nsa, 0, 0).size == len(nsa) == 12
    assert decode(nsa, 0, 0).src == (vgpr(4), vgpr(6), sgpr(8, 8), sgpr(16, 4))
    tbuf = decoded("tbuffer_load_format_x v1, off, s[4:7], s2 format:[BUF_FMT_32_FLOAT] offset:8")
    assert tbuf.encoding == "MTBUF" and tbuf.dst == (vgpr(1),) and tbuf.mods["offset"] == 8


def test_image_records_carry_true_operand_widths_and_every_modifier():
    """Address and data widths follow DIM, A16, DMASK, D16 and TFE; stores and atomics
    send their data last; the modifiers are all in the record."""
    load = decoded("image_load v[0:2], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_2D unorm glc slc dlc "
                   "a16 tfe d16")
    assert load.dst == (vgpr(0, 3),) and load.src == (vgpr(0), sgpr(0, 8))
    assert {k: load.mods[k] for k in ("unorm", "glc", "slc", "dlc", "a16", "tfe", "d16", "lwe", "r128")} == \
        {"unorm": 1, "glc": 1, "slc": 1, "dlc": 1, "a16": 1, "tfe": 1, "d16": 1, "lwe": 0, "r128": 0}
    store = decoded("image_store_mip v[4:5], v[0:3], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D_ARRAY unorm")
    assert store.dst == () and store.src == (vgpr(0, 4), sgpr(8, 8), vgpr(4, 2))
    atomic = decoded("image_atomic_cmpswap v[2:3], v[0:1], s[0:7] dmask:0x3 dim:SQ_RSRC_IMG_2D glc")
    assert atomic.dst == (vgpr(2, 2),) and atomic.src[-1] == vgpr(2, 2)
    gradients = decoded("image_sample_c_d_o v[0:3], [v4, v6, v1, v2, v3, v9, v10, v11, v12], s[0:7], "
                        "s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D_ARRAY")
    assert gradients.size == 16 and gradients.mods["nsa"] == 2 and len(gradients.src) == 11
    gather = decoded("image_gather4_lz v[0:1], v[2:3], s[0:7], s[8:11] dmask:0x2 dim:SQ_RSRC_IMG_2D d16")
    assert gather.dst == (vgpr(0, 2),)


def test_decode_all_skips_zero_padding_between_functions():
    code = assemble("s_setpc_b64 s[30:31]") + bytes(8) + assemble("s_endpgm")
    assert [(i.address, i.mnemonic) for i in decode_all(code, 0x100)] == \
        [(0x100, "s_setpc_b64"), (0x10C, "s_endpgm")]
    with pytest.raises(DecodeError):                # executed, a zero dword is illegal
        decode(bytes(4), 0, 0)


@pytest.mark.parametrize("text", [
    "v_interp_mov_f32_e64 v1, p20, attr3.y",
    "v_interp_p1_f32_e64 v1, v2, attr0.x",
    "v_interp_mov_f32_e32 v1, p0, attr3.w",
    "v_interp_p2_f32_e32 v4, v5, attr2.z",
    "exp mrt0 v0, v1, off, off done vm",
])
def test_graphics_only_encodings_decode_too(text):
    decoded(text)
