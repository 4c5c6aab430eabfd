"""Image instructions (gfx10 and gfx11's MIMG, gfx12's VIMAGE/VSAMPLE): what each opcode reads
and writes, from its name (and the target, where gfx11 differs: core.isa.targets).

Holds these invariants:
- the address words of an instruction are a function of its opcode, DIM and A16 alone,
  in the order the hardware reads them: offset, bias, z-compare (the "extra" words), then
  derivatives (every d/dh before every d/dv), coordinates (x, y, z / slice / face /
  fragment), then the LOD, clamp or mip level; with A16 the coordinates and LOD/clamp/mip
  are packed two 16-bit halves per dword (low half first), with G16 (the *_g16 opcodes) so
  are the derivatives, each of d/dh and d/dv on its own dword pair boundary;
- the data words follow DMASK (one dword per enabled channel, gather4 and gfx11's
  msaa_load: always four), D16
  (two channels per dword) and TFE/LWE (one more dword for the fetch status);
- `printed_address_dwords` and `printed_data_dwords` are what llvm-objdump-15 shows, which
  is the true size whenever llvm finds a matching instruction variant, and the opcode's
  default register width otherwise (AMDGPUDisassembler::convertMIMGInst), so the decoder
  prints llvm's text while the engine reads the true operands.
"""
from dataclasses import dataclass
from functools import lru_cache

from core.isa import targets


@dataclass(frozen=True)
class Dim:
    """One DIM encoding: its llvm name, coordinate names, and derivative count."""
    name: str
    coords: tuple
    gradients: int


DIMS = (
    Dim("SQ_RSRC_IMG_1D", ("x",), 2),
    Dim("SQ_RSRC_IMG_2D", ("x", "y"), 4),
    Dim("SQ_RSRC_IMG_3D", ("x", "y", "z"), 6),
    Dim("SQ_RSRC_IMG_CUBE", ("x", "y", "face"), 4),
    Dim("SQ_RSRC_IMG_1D_ARRAY", ("x", "slice"), 2),
    Dim("SQ_RSRC_IMG_2D_ARRAY", ("x", "y", "slice"), 4),
    Dim("SQ_RSRC_IMG_2D_MSAA", ("x", "y", "fragment"), 4),
    Dim("SQ_RSRC_IMG_2D_MSAA_ARRAY", ("x", "y", "slice", "fragment"), 4),
)
_GRADIENT_AXES = ("x", "y", "z")


@dataclass(frozen=True)
class Op:
    """What an image opcode does, parsed from its llvm name (image_sample_c_d_cl_o_g16 ...)."""
    name: str
    kind: str            # load, store, atomic, resinfo, sample, gather4, get_lod, msaa_load
    offset: bool = False
    bias: bool = False
    compare: bool = False
    derivatives: bool = False
    g16: bool = False
    lod: str = ""        # "lod", "clamp", "mip" or "" (the last address word's role)
    packed: bool = False  # *_pck: 16-bit components, raw
    signed: bool = False  # *_pck_sgn

    @property
    def coordinates(self):
        return self.kind != "resinfo"

    @property
    def uses_sampler(self):
        return self.kind in ("sample", "gather4", "get_lod")

    @property
    def extras(self):
        return tuple(role for role, on in (("offset", self.offset), ("bias", self.bias),
                                           ("zcompare", self.compare)) if on)


@lru_cache(maxsize=None)
def op_of(name):
    """The Op of an image mnemonic."""
    body = name[len("image_"):]
    for kind in ("sample", "gather4", "get_lod", "get_resinfo", "msaa_load", "atomic",
                 "load", "store"):
        if body.startswith(kind):
            break
    else:
        raise ValueError(f"{name} is not an image instruction")
    mods = body[len(kind):].strip("_").split("_") if kind != "atomic" else []
    mods = [m for m in mods if m]
    fields = dict(offset="o" in mods, bias="b" in mods,
                  compare="c" in mods, derivatives="d" in mods or "cd" in mods,
                  g16="g16" in mods, packed="pck" in mods, signed="sgn" in mods)
    lod = ("lod" if "l" in mods else "clamp" if "cl" in mods else
           "mip" if "mip" in mods or kind == "get_resinfo" else "")
    kind = {"get_resinfo": "resinfo"}.get(kind, kind)
    return Op(name, kind, lod=lod, **fields)


@lru_cache(maxsize=None)
def address_layout(name, dim, a16):
    """[(role, dword, half)] of every address component (half: 0 for 32-bit components
    and low halves, 1 for high halves of packed words), and the dword count."""
    op = op_of(name)
    dim_info = DIMS[dim]
    layout = []
    word = 0
    for role in op.extras:
        layout.append((role, word, 0))
        word += 1
    if op.derivatives:
        axes = _GRADIENT_AXES[:dim_info.gradients // 2]
        names = [f"d{axis}dh" for axis in axes] + [f"d{axis}dv" for axis in axes]
        if op.g16:
            per_direction = -(-len(axes) // 2)          # dwords for one of dh / dv
            for i, role in enumerate(names):
                direction, index = divmod(i, len(axes))
                layout.append((role, word + direction * per_direction + index // 2, index % 2))
            word += 2 * per_direction
        else:
            for role in names:
                layout.append((role, word, 0))
                word += 1
    components = list(dim_info.coords if op.coordinates else ()) + ([op.lod] if op.lod else [])
    if a16:
        for i, role in enumerate(components):
            layout.append((role, word + i // 2, i % 2))
        word += -(-len(components) // 2)
    else:
        for role in components:
            layout.append((role, word, 0))
            word += 1
    return tuple(layout), word


def address_dwords(name, dim, a16):
    return address_layout(name, dim, a16)[1]


def _four_texels(op, target):
    return op.kind in targets.get(target).four_texel_images


def data_dwords(name, dmask, d16, status, target="gfx1030"):
    """Data dwords: one per DMASK channel (gather4, gfx11's msaa_load: four), halved by D16,
    plus the TFE/LWE status dword."""
    op = op_of(name)
    channels = 4 if _four_texels(op, target) else max(bin(dmask & 0xF).count("1"), 1)
    if d16:
        channels = -(-channels // 2)
    return channels + (1 if status else 0)


# ---- what llvm-objdump-15 prints ----------------------------------------------------------

def _possible_address_dwords(op):
    """Address sizes llvm defines instruction variants for (MIMG_Sampler_AddrSizes; the
    other image opcodes have 1 to 4)."""
    if not op.uses_sampler:
        return tuple(range(1, 5))
    if op.derivatives:          # llvm-15 gives *_g16 the 32-bit derivative sizes too
        sizes = range(2, 10 + (1 if op.lod else 0))
    else:
        sizes = range(1, 4 + (1 if op.lod else 0))
    return tuple(s + len(op.extras) for s in sizes)


_NSA_GROUPS = ((2, 3, 4, 5), (6, 7, 8, 9), (10, 11, 12))


def nsa_default(name, nsa_dwords):
    """The address count llvm's NSA variant with `nsa_dwords` extra dwords decodes to
    (the largest the opcode has in that group), or None when llvm has no such variant."""
    if not 1 <= nsa_dwords <= 3:
        return None
    op = op_of(name)
    sizes = (2, 3, 4) if not op.uses_sampler else _possible_address_dwords(op)
    found = [s for s in _NSA_GROUPS[nsa_dwords - 1] if s in sizes]
    return max(found) if found else None


# Non-NSA register widths: llvm defines the width `high` when any possible address size
# lies in [low, high] (MIMG_Sampler_AddrSizes' register-class ranges).
_WIDTH_RANGES = ((1, 1), (2, 2), (3, 3), (3, 4), (5, 5), (6, 6), (7, 7), (5, 8), (9, 16))


def _register_width(count):
    return count if count <= 8 else 16


def _data_variants(op, target):
    if _four_texels(op, target):
        return (2, 4, 5)
    if op.kind == "atomic":
        return (2, 4) if "cmpswap" in op.name else (1, 2)
    return (1, 2, 3, 4, 5)


def printed_widths(name, vdata, vaddr, nsa_dwords, dim, a16, dmask, d16, tfe, target="gfx1030"):
    """(data dwords, address dwords) llvm-objdump-15 prints for one encoding: the true
    sizes when llvm has a matching variant and the registers exist, else the defaults of
    the variant it decoded (llvm counts TFE's status dword, not LWE's)."""
    op = op_of(name)
    possible = _possible_address_dwords(op)
    data_variants = _data_variants(op, target)
    default_data = 4 if _four_texels(op, target) else data_variants[0]
    if nsa_dwords:
        default_address = nsa_default(name, nsa_dwords)
        variants = tuple(s for s in possible if s >= 2)
    else:
        default_address = min(possible)
        variants = tuple(high for low, high in _WIDTH_RANGES
                         if any(low <= s <= high for s in possible))
    addresses = address_dwords(name, dim, a16)
    if nsa_dwords and addresses > default_address:
        return default_data, default_address
    if not nsa_dwords:
        addresses = _register_width(addresses)
    data = data_dwords(name, dmask, d16, tfe, target)
    if data == default_data and addresses == default_address:
        return data, addresses
    if addresses not in variants or data not in data_variants:
        return default_data, default_address
    if vdata + data > 256 or (not nsa_dwords and vaddr + addresses > 256):
        return default_data, default_address
    return data, addresses
