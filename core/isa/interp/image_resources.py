"""Image resources (T#, 8 dwords) and samplers (S#, 4 dwords) as gfx10 hardware reads them.

Holds these invariants:
- every field is read from its gfx10 bit position (ROCr's resource_nv.h), where
  core.images.descriptors writes it;
- a T# the engine cannot address is refused with the field that makes it so: a TYPE that
  is not an image (a buffer V#, zeros), a FORMAT no image can have (`InvalidResource`), or
  one the engine does not model: tiled SW_MODEs (SoftGPU lays every image out linearly),
  MSAA types (`UnmodelledResource`);
- texel addresses follow gfx10's linear layout (the address library's
  HwlComputeSurfaceInfoLinear): rows of the level's width aligned to 256 bytes (1D and 2D
  images of one level: the T#'s PITCH field), mip levels stored smallest first, and one
  slice (array layer or 3D depth slice) holding the whole mip chain.
"""
from dataclasses import dataclass

import numpy as np

from core.isa.interp import formats

ROW_ALIGNMENT = 256         # bytes: linear rows (and a level's pitch) are multiples of this

# SQ_RSRC_IMG_* types: the coordinates each addresses, in the order an instruction's
# address words give them (the DIM field only says how many words there are).
TYPES = {8: "1D", 9: "2D", 10: "3D", 11: "CUBE", 12: "1D_ARRAY", 13: "2D_ARRAY",
         14: "2D_MSAA", 15: "2D_MSAA_ARRAY"}
COORDINATES = {"1D": ("x",), "2D": ("x", "y"), "3D": ("x", "y", "z"), "CUBE": ("x", "y", "slice"),
               "1D_ARRAY": ("x", "slice"), "2D_ARRAY": ("x", "y", "slice")}


class InvalidResource(ValueError):
    """Descriptor words no image access can use."""


class UnmodelledResource(ValueError):
    """A valid descriptor the engine does not implement."""


def _bits(word, shift, width):
    return (int(word) >> shift) & ((1 << width) - 1)


def _signed(value, width):
    return value - (1 << width) if value >> (width - 1) else value


@dataclass(frozen=True)
class Resource:
    """One decoded T#."""
    base: int
    format_number: int
    fmt: formats.Format
    kind: str               # TYPES value
    width: int
    height: int
    depth: int              # 3D: slices; arrays: layers up to the last in the view
    base_array: int
    dst_sel: tuple          # DST_SEL_X..W: 0, 1, or 4..7 for components X..W
    bc_swizzle: int
    base_level: int
    last_level: int
    levels: int             # mip levels of the resource's layout (MAX_MIP + 1)
    pitch: int              # level 0's row pitch in elements
    min_lod: float

    @classmethod
    def decode(cls, words):
        w = [int(x) for x in words]
        type_ = _bits(w[3], 28, 4)
        if type_ not in TYPES:
            raise InvalidResource(f"TYPE {type_} is not an image resource")
        number = _bits(w[1], 20, 9)
        fmt = formats.parse(number)
        if fmt is None:
            raise InvalidResource(f"FORMAT {number} is no image format the engine knows")
        kind = TYPES[type_]
        if "MSAA" in kind:
            raise UnmodelledResource(f"{kind} resources are not modelled")
        sw_mode = _bits(w[3], 20, 5)
        if sw_mode:
            raise UnmodelledResource(f"SW_MODE {sw_mode} is tiled: only linear images are modelled")
        width = (_bits(w[1], 30, 2) | _bits(w[2], 0, 12) << 2) + 1
        height = _bits(w[2], 14, 14) + 1
        depth_field = _bits(w[4], 0, 14)
        levels = _bits(w[5], 4, 4) + 1
        element = fmt.element_bytes
        if kind in ("1D", "2D") and levels == 1:
            pitch = depth_field + 1                     # gfx1030: PITCH-1 where there is no depth
        else:
            pitch = _aligned(width, element)
        base_level = _bits(w[3], 12, 4)
        return cls(base=(w[0] << 8) | (_bits(w[1], 0, 8) << 40), format_number=number, fmt=fmt,
                   kind=kind, width=width, height=height if kind not in ("1D", "1D_ARRAY") else 1,
                   depth=(depth_field & 0x1FFF) + 1 if kind not in ("1D", "2D") else 1,
                   base_array=_bits(w[4], 16, 13),
                   dst_sel=tuple(_bits(w[3], 3 * i, 3) for i in range(4)),
                   bc_swizzle=_bits(w[3], 25, 3), base_level=base_level,
                   last_level=min(max(_bits(w[3], 16, 4), base_level), levels - 1), levels=levels,
                   pitch=pitch, min_lod=_bits(w[1], 8, 12) / 256.0)

    @property
    def arrayed(self):
        return self.kind in ("1D_ARRAY", "2D_ARRAY", "CUBE")

    @property
    def layers(self):
        """Array layers (3D: depth slices) a slice coordinate may name."""
        return max(self.depth - self.base_array, 0) if self.arrayed else self.depth

    def level_size(self, level):
        """(width, height, depth) of absolute mip `level`; depth counts 3D slices only."""
        w = max(self.width >> level, 1)
        h = max(self.height >> level, 1)
        d = max(self.depth >> level, 1) if self.kind == "3D" else 1
        return w, h, d

    def _level_pitch(self, level):
        if level == 0 and self.levels == 1:
            return self.pitch
        return _aligned(self.level_size(level)[0], self.fmt.element_bytes)

    def _level_bytes(self, level):
        height = self.level_size(level)[1]
        return self._level_pitch(level) * height * self.fmt.element_bytes

    @property
    def slice_bytes(self):
        return sum(self._level_bytes(level) for level in range(self.levels))

    def level_offset(self, level):
        """Where `level` starts in a slice: after every smaller level."""
        return sum(self._level_bytes(smaller) for smaller in range(level + 1, self.levels))

    def addresses(self, x, y, z, level):
        """uint64 addresses of texels (x, y, z) of absolute mip `level` (int64 arrays, in
        bounds); z is the 3D slice or the array layer relative to BASE_ARRAY."""
        es = self.fmt.element_bytes
        level = np.asarray(level, np.int64)
        offsets = np.array([self.level_offset(v) for v in range(self.levels)], np.int64)
        pitches = np.array([self._level_pitch(v) for v in range(self.levels)], np.int64)
        slice_index = z + (self.base_array if self.arrayed else 0)
        byte = (slice_index * self.slice_bytes + offsets[level] + y * pitches[level] * es + x * es)
        return np.uint64(self.base) + byte.astype(np.uint64)


def _aligned(width, element_bytes):
    align = max(ROW_ALIGNMENT // element_bytes, 1)
    return -(-width // align) * align


# ---- samplers -------------------------------------------------------------------------------

# SQ_TEX_CLAMP values.
WRAP, MIRROR, CLAMP_LAST_TEXEL, MIRROR_ONCE_LAST_TEXEL, CLAMP_HALF_BORDER, \
    MIRROR_ONCE_HALF_BORDER, CLAMP_BORDER, MIRROR_ONCE_BORDER = range(8)
# SQ_TEX_XY_FILTER bit 0 (the aniso modes filter like their isotropic counterparts: no
# anisotropic footprint is modelled), the Z filter (NONE follows the XY filter) and MIP filter.
BILINEAR = 1
Z_NONE, Z_LINEAR = 0, 2
MIP_NONE, MIP_POINT, MIP_LINEAR = 0, 1, 2
# SQ_TEX_BORDER_COLOR: transparent black, opaque black, opaque white (RGBA).
BORDER_COLORS = {0: (0.0, 0.0, 0.0, 0.0), 1: (0.0, 0.0, 0.0, 1.0), 2: (1.0, 1.0, 1.0, 1.0)}


@dataclass(frozen=True)
class Sampler:
    """One decoded S#."""
    clamp: tuple            # SQ_TEX_CLAMP for x, y, z
    compare_func: int       # SQ_TEX_DEPTH_COMPARE: never, less, equal, lequal, greater, ...
    unnormalized: bool
    trunc_coord: bool       # point sampling truncates instead of rounding to 1/256 texel
    reduction: int          # FILTER_MODE: 0 blend, 1 min, 2 max
    force_degamma: bool
    skip_degamma: bool
    min_lod: float
    max_lod: float
    lod_bias: float
    mag_filter: int
    min_filter: int
    z_filter: int
    mip_filter: int
    border: tuple           # RGBA

    @classmethod
    def decode(cls, words):
        w = [int(x) for x in words]
        border_type = _bits(w[3], 30, 2)
        if border_type not in BORDER_COLORS:
            raise UnmodelledResource("border colours from the border colour table are not modelled")
        return cls(clamp=tuple(_bits(w[0], 3 * i, 3) for i in range(3)),
                   compare_func=_bits(w[0], 12, 3), unnormalized=bool(_bits(w[0], 15, 1)),
                   trunc_coord=bool(_bits(w[0], 27, 1)), reduction=_bits(w[0], 29, 2),
                   force_degamma=bool(_bits(w[0], 20, 1)), skip_degamma=bool(_bits(w[0], 31, 1)),
                   min_lod=_bits(w[1], 0, 12) / 256.0, max_lod=_bits(w[1], 12, 12) / 256.0,
                   lod_bias=_signed(_bits(w[2], 0, 14), 14) / 256.0,
                   mag_filter=_bits(w[2], 20, 1), min_filter=_bits(w[2], 22, 1),
                   z_filter=_bits(w[2], 24, 2), mip_filter=_bits(w[2], 26, 2),
                   border=BORDER_COLORS[border_type])
