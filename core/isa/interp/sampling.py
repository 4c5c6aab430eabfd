"""Texture sampling as gfx10's texture unit does it: LOD, mip and texel addressing, filtering.

Holds these invariants:
- texel-space coordinates are fixed point with 8 fractional bits: a coordinate is rounded
  to the nearest 1/256 texel before point sampling takes its floor (truncated instead when
  the S# sets TRUNC_COORD) and before bilinear filtering splits it into an index and a
  weight, so weights are multiples of 1/256. That is the precision AMD's drivers report for
  these GPUs (RADV: subTexelPrecisionBits = mipmapPrecisionBits = 8), and the rounding is
  what ROCm's device library works around when it snaps nearest-filtered coordinates to
  texel edges (ockl's ADJUST_XY); the LOD's fraction between two mip levels is likewise a
  multiple of 1/256;
- filtering weighs texel values as the format converts them (float32, sRGB already linear)
  and the weighted sum is rounded once to float32 by the caller; integer formats are always
  point sampled, from the nearest mip level;
- addressing follows the S#'s CLAMP per axis (wrap, mirror, clamp to the last texel, border,
  and the mirror-once and half-border variants); border taps take the S# border colour,
  placed into the components X..W by the T#'s BC_SWIZZLE so that DST_SEL returns it as RGBA;
  array layers are rounded to the nearest and clamped to the view, never filtered;
- the LOD of implicit-derivative samples comes from 2x2 quads of consecutive lanes (lane
  4q+1 minus 4q along x, 4q+2 minus 4q along y), as the hardware's quad derivatives.
"""
import numpy as np

from core.isa.interp import image_resources as res

SUBTEXEL = 256.0
# TEX_BC_SWIZZLE: which border colour channel (0-3: R, G, B, A) each component X..W takes.
BC_SWIZZLES = {0: (0, 1, 2, 3), 1: (0, 3, 1, 2), 2: (3, 2, 1, 0), 3: (3, 0, 1, 2),
               4: (2, 1, 0, 3), 5: (1, 0, 3, 2)}
# SQ_TEX_DEPTH_COMPARE, as "reference op texel".
COMPARES = (lambda r, t: np.zeros(np.shape(r), bool), np.less, np.equal, np.less_equal,
            np.greater, np.not_equal, np.greater_equal, lambda r, t: np.ones(np.shape(r), bool))
SPATIAL = {"1D": 1, "1D_ARRAY": 1, "2D": 2, "2D_ARRAY": 2, "CUBE": 2, "3D": 3}


def quantize(u):
    return np.rint(u * SUBTEXEL) / SUBTEXEL


def quad_derivatives(values):
    """(d/dx, d/dy) of a [n, lanes] coordinate from its 2x2 lane quads."""
    quads = values.reshape(values.shape[0], -1, 4)
    ddx = np.repeat(quads[..., 1] - quads[..., 0], 4, axis=1)
    ddy = np.repeat(quads[..., 2] - quads[..., 0], 4, axis=1)
    return ddx, ddy


class Request:
    """What one sample asks for, per lane ([k] arrays): resource-order coordinates, and
    the optional LOD inputs (None when the instruction has none)."""

    def __init__(self, coords, *, lod=None, bias=None, clamp=None, gradients=None, offsets=None,
                 zcompare=None, unnormalized=False):
        self.coords = coords                # float64 arrays, resource coordinate order
        self.lod = lod                      # explicit LOD (_l); 0 for _lz
        self.bias = bias
        self.clamp = clamp
        self.gradients = gradients          # {"h": [d/dh per axis], "v": [...]}
        self.offsets = offsets              # integer texel offsets per spatial axis
        self.zcompare = zcompare
        self.unnormalized = unnormalized


class Sampler:
    """Sampling one T# with one S#; `read(x, y, z, level, inside)` gives texels' component
    values [k, 4] (float64, or int64 for integer formats) at in-bounds indices."""

    def __init__(self, resource, sampler, read, integer):
        self.resource = resource
        self.sampler = sampler
        self.read = read
        self.integer = integer
        self.spatial = SPATIAL[resource.kind]

    # ---- level of detail ------------------------------------------------------------------
    def lods(self, request):
        """(LOD after bias and clamps, LOD after bias only) per lane."""
        k = request.coords[0].shape[0]
        if request.lod is not None:
            raw = np.asarray(request.lod, np.float64) + np.zeros(k)
        elif request.gradients is not None:
            raw = self._footprint_lod(request)
        else:
            raw = np.zeros(k)
        s = self.sampler
        raw = raw + s.lod_bias + (0.0 if request.bias is None else request.bias)
        low = max(s.min_lod, self.resource.min_lod)
        low = low if request.clamp is None else np.maximum(low, request.clamp)
        return np.clip(raw, low, s.max_lod), raw

    def _footprint_lod(self, request):
        sizes = self.resource.level_size(self.resource.base_level)
        lengths = []
        for direction in ("h", "v"):
            squares = 0.0
            for axis in range(self.spatial):
                scale = 1.0 if request.unnormalized else float(sizes[axis])
                squares = squares + (request.gradients[direction][axis] * scale) ** 2
            lengths.append(np.sqrt(squares))
        with np.errstate(divide="ignore"):
            return np.log2(np.maximum(lengths[0], lengths[1]))

    def levels(self, lod):
        """(level lo, level hi, weight of hi), absolute levels per lane, by the mip filter."""
        r, s = self.resource, self.sampler
        available = r.last_level - r.base_level
        zeros = np.zeros(lod.shape, np.int64)
        if s.mip_filter == res.MIP_NONE or available == 0:
            return zeros + r.base_level, zeros + r.base_level, np.zeros(lod.shape)
        lod = np.clip(quantize(np.nan_to_num(lod, nan=0.0, posinf=available, neginf=0.0)), 0, available)
        if s.mip_filter == res.MIP_POINT or self.integer:
            nearest = np.floor(lod + 0.5).astype(np.int64)
            return nearest + r.base_level, nearest + r.base_level, np.zeros(lod.shape)
        lo = np.floor(lod).astype(np.int64)
        return lo + r.base_level, np.minimum(lo + 1, available) + r.base_level, lod - lo

    # ---- one mip level -------------------------------------------------------------------
    def _texel_coords(self, request, level):
        """Texel-space coordinates per spatial axis at `level`, and their sizes."""
        sizes = [np.maximum(np.int64(n) >> level, 1) for n in self._base_sizes()]
        coords = []
        for axis in range(self.spatial):
            u = request.coords[axis]
            if not request.unnormalized:
                u = u * sizes[axis]
            if request.offsets is not None:
                u = u + request.offsets[axis]
            coords.append(u)
        return coords, sizes

    def _base_sizes(self):
        r = self.resource
        return (r.width, r.height, r.depth)[:self.spatial]

    def _slice(self, request):
        if not self.resource.arrayed:
            return 0
        layer = np.rint(request.coords[self.spatial])
        return np.clip(layer, 0, max(self.resource.layers - 1, 0)).astype(np.int64)

    def _taps(self, request, level, filters):
        """[(x, y, z), inside, weight] of every tap of the filter at `level`."""
        coords, sizes = self._texel_coords(request, level)
        per_axis = []
        for axis in range(self.spatial):
            per_axis.append(self._axis_taps(coords[axis], sizes[axis], self.sampler.clamp[axis],
                                            filters[axis]))
        taps = [((), True, 1.0)]
        for axis_taps in per_axis:
            taps = [(idx + (i,), inside & ok, weight * w)
                    for idx, inside, weight in taps for i, ok, w in axis_taps]
        return taps

    def _axis_taps(self, u, size, mode, linear):
        u = _half_border(u, size, mode)
        if linear:
            t = quantize(u) - 0.5
            first = np.floor(t)
            frac = t - first
            first = first.astype(np.int64)
            return [address_mode(first, size, mode) + (1.0 - frac,),
                    address_mode(first + 1, size, mode) + (frac,)]
        point = np.floor(u) if self.sampler.trunc_coord else np.floor(quantize(u))
        return [address_mode(point.astype(np.int64), size, mode) + (np.ones(u.shape),)]

    def _tap_values(self, request, level, index, inside, slice_):
        k = request.coords[0].shape[0]
        x = index[0]
        y = index[1] if self.spatial > 1 else np.zeros(k, np.int64)
        z = index[2] if self.spatial > 2 else np.zeros(k, np.int64) + slice_
        values = self.read(x, y, z, level, np.broadcast_to(inside, (k,)))
        border = np.array(self.border_components(), values.dtype)
        values = np.where(np.broadcast_to(inside, (k,))[:, None], values, border[None, :])
        if request.zcompare is not None:
            passed = COMPARES[self.sampler.compare_func](request.zcompare, values[:, 0])
            values = values.copy()
            values[:, 0] = passed.astype(values.dtype)
        return values

    def border_components(self):
        """The S# border colour (RGBA) as component values X..W (BC_SWIZZLE)."""
        order = BC_SWIZZLES.get(self.resource.bc_swizzle, BC_SWIZZLES[0])
        border = self.sampler.border
        return [int(border[c]) if self.integer else border[c] for c in order]

    def _filtered(self, request, level, linear_xy):
        z_linear = self.sampler.z_filter == res.Z_LINEAR or (
            self.sampler.z_filter == res.Z_NONE and linear_xy)
        filters = [linear_xy and not self.integer] * 2 + [z_linear and not self.integer]
        slice_ = self._slice(request)
        taps = self._taps(request, level, filters[:self.spatial])
        reduction = self.sampler.reduction
        total = None
        for index, inside, weight in taps:
            values = self._tap_values(request, level, index, inside, slice_)
            if self.integer:
                return values
            weight = np.broadcast_to(weight, values.shape[:1])[:, None]
            if reduction == 0:
                contribution = values * weight
                total = contribution if total is None else total + contribution
            else:
                pick = np.minimum if reduction == 1 else np.maximum
                masked = np.where(weight > 0, values, np.inf if reduction == 1 else -np.inf)
                total = masked if total is None else pick(total, masked)
        return total

    # ---- whole samples -----------------------------------------------------------------
    def sample(self, request):
        """Component values [k, 4] (float64 or int64) of a filtered sample."""
        lod, _ = self.lods(request)
        linear_xy = np.where(lod <= 0, self.sampler.mag_filter, self.sampler.min_filter) == res.BILINEAR
        lo, hi, frac = self.levels(lod)
        result = None
        for linear in (False, True):
            lanes = linear_xy == linear
            if not lanes.any():
                continue
            part = _subset(request, lanes)
            values = self._filtered(part, lo[lanes], linear)
            if (frac[lanes] > 0).any():
                upper = self._filtered(part, hi[lanes], linear)
                f = frac[lanes][:, None]
                values = values * (1.0 - f) + upper * f
            if result is None:
                result = np.zeros((lod.shape[0], 4), values.dtype)
            result[lanes] = values
        return result

    def gather(self, request, component):
        """The four texels of the bilinear footprint (i0,j1), (i1,j1), (i1,j0), (i0,j0), one
        component each (after DST_SEL: `component` is 0-3 or a constant's (value,))."""
        lod, _ = self.lods(request)
        level, _, _ = self.levels(lod)
        slice_ = self._slice(request)
        taps = self._taps(request, level, [True] * min(self.spatial, 2) + [False])
        # taps are ordered (i0,j0), (i0,j1), (i1,j0), (i1,j1) (x outermost).
        values = [self._tap_values(request, level, index, inside, slice_) for index, inside, _ in taps]
        if self.spatial == 1:
            values = [values[0], values[0], values[1], values[1]]
        order = (1, 3, 2, 0)
        k = request.coords[0].shape[0]
        if isinstance(component, tuple):
            return np.full((k, 4), component[0], values[0].dtype)
        return np.stack([values[i][:, component] for i in order], axis=1)


def _half_border(u, size, mode):
    """Half-border modes clamp the texel coordinate half a texel outside the image."""
    if mode in (res.CLAMP_HALF_BORDER, res.MIRROR_ONCE_HALF_BORDER):
        low = -size - 0.5 if mode == res.MIRROR_ONCE_HALF_BORDER else -0.5
        return np.clip(u, low, size + 0.5)
    return u


def address_mode(index, size, mode):
    """(texel index, inside) of integer texel indices along one axis of `size` texels."""
    ones = np.ones(index.shape, bool)
    if mode == res.WRAP:
        return np.mod(index, size), ones
    if mode == res.MIRROR:
        m = np.mod(index, 2 * size)
        return np.where(m < size, m, 2 * size - 1 - m), ones
    if mode in (res.MIRROR_ONCE_LAST_TEXEL, res.MIRROR_ONCE_HALF_BORDER, res.MIRROR_ONCE_BORDER):
        index = np.where(index < 0, -1 - index, index)
    if mode in (res.CLAMP_LAST_TEXEL, res.MIRROR_ONCE_LAST_TEXEL):
        return np.clip(index, 0, size - 1), ones
    inside = (index >= 0) & (index < size)
    return np.clip(index, 0, size - 1), inside


def _subset(request, lanes):
    def take(value):
        if value is None or np.ndim(value) == 0:
            return value
        return value[lanes]
    gradients = None if request.gradients is None else \
        {d: [take(g) for g in request.gradients[d]] for d in request.gradients}
    return Request([take(c) for c in request.coords], lod=take(request.lod), bias=take(request.bias),
                   clamp=take(request.clamp), gradients=gradients,
                   offsets=None if request.offsets is None else [take(o) for o in request.offsets],
                   zcompare=take(request.zcompare), unnormalized=request.unnormalized)
