"""Reading and writing instruction operands for a group of waves at one PC.

Holds these invariants:
- a source arrives in the representation its type names (core.isa.alu docstring): 32-bit
  and 16-bit values as uint32, 64-bit as uint64, lane masks as bool [n, lanes], SCC as
  bool [n]; scalar sources of vector instructions are shaped [n, 1] so they broadcast;
- a vector write touches only lanes whose EXEC bit is set (16-bit writes keep the other
  half of the VGPR); a lane-mask write (VOPC, carry-out) clears the bits of inactive lanes,
  as hardware does;
- writes to `null` are dropped and constants are never written.
"""
import numpy as np

from core.isa.interp.state import EXEC_LO, M0, NULL, SGPR_SLOTS
from core.isa.semantics.operands import APERTURES, HALF_TYPES, WIDE_TYPES, constant_bits


class Operands:
    """Operand access for the group `idx` of waves `w`; `exec` is its EXEC as bool [n, lanes]."""

    def __init__(self, w, idx, n, ctx):
        self.w = w
        self.idx = idx
        self.n = n
        self.ctx = ctx
        self._exec = None
        self._exec_full = False        # every lane of every wave active: writes need no mask

    @property
    def exec(self):
        if self._exec is None:
            self._exec = self.w.exec_mask(self.idx)
            self._exec_full = bool(self._exec.all())
        return self._exec

    def invalidate_exec(self):
        self._exec = None

    # ---- scalar side -------------------------------------------------------------------
    def scalar(self, op, type_="b32"):
        """A scalar source as uint32 [n] (uint64 [n] for 64-bit types)."""
        wide = type_ in WIDE_TYPES
        kind = op.kind
        if kind in ("sgpr", "special", "ttmp"):
            slot = self._slot(op)
            if slot == 253:                       # src_scc
                return self.w.scc[self.idx].astype(np.uint64 if wide else np.uint32)
            if slot in APERTURES:
                hi, lo = APERTURES[slot]
                value = (hi << 32 | lo) if wide else hi
                return np.full(self.n, value, np.uint64 if wide else np.uint32)
            if slot == 251 or slot == 252:        # src_vccz, src_execz
                base = 106 if slot == 251 else EXEC_LO
                zero = (self.w.sgpr[self.idx, base] == 0) & (self.w.sgpr[self.idx, base + 1] == 0)
                return zero.astype(np.uint64 if wide else np.uint32)
            if slot == NULL:
                return np.zeros(self.n, np.uint64 if wide else np.uint32)
            if slot >= SGPR_SLOTS:
                raise self.ctx.illegal(f"source {op.text} is not modelled")
            if wide:
                pair = self.w.sgpr[self.idx, slot:slot + 2].astype(np.uint64)
                return pair[:, 0] | (pair[:, 1] << np.uint64(32))
            return self.w.sgpr[self.idx, slot].copy()
        if kind in ("inline_int", "inline_float", "literal"):
            return np.full(self.n, constant_bits(op, type_), np.uint64 if wide else np.uint32)
        if kind == "null":
            return np.zeros(self.n, np.uint64 if wide else np.uint32)
        raise self.ctx.illegal(f"operand {op.text} cannot be a scalar source")

    def scalar_regs(self, op, count):
        """`count` consecutive scalar registers from `op` as uint32 [n, count] (SMEM bases, V#)."""
        slot = self._slot(op)
        return self.w.sgpr[self.idx, slot:slot + count]

    def write_scalar(self, op, value, type_="b32"):
        slot = self._slot(op)
        if slot == NULL or op.kind == "null":
            return
        if type_ in WIDE_TYPES:
            value = np.asarray(value, np.uint64)
            self._store_sgpr(slot, (value & np.uint64(0xFFFFFFFF)).astype(np.uint32))
            self._store_sgpr(slot + 1, (value >> np.uint64(32)).astype(np.uint32))
        else:
            self._store_sgpr(slot, np.asarray(value).astype(np.uint32))

    def _store_sgpr(self, slot, value):
        if slot >= SGPR_SLOTS:
            raise self.ctx.illegal(f"scalar register {slot} cannot be written")
        self.w.sgpr[self.idx, slot] = value
        if slot in (EXEC_LO, EXEC_LO + 1):
            self._exec = None

    def _slot(self, op):
        if op.kind == "sgpr" or op.kind == "special":
            return op.index
        if op.kind == "ttmp":
            return 108 + op.index
        if op.kind == "null":
            return NULL
        raise self.ctx.illegal(f"operand {op.text} is not a scalar register")

    # ---- lane masks --------------------------------------------------------------------
    def mask(self, op):
        """A lane-mask source (VCC, an SGPR pair, a constant) as bool [n, lanes]."""
        wide = self.w.lanes == 64
        if op.kind in ("sgpr", "special", "ttmp", "null"):
            bits = self.scalar(op, "b64" if wide else "b32")
        else:
            bits = np.full(self.n, constant_bits(op, "b64" if wide else "b32"), np.uint64)
        return self.w.unpack_mask(bits)

    def write_mask(self, op, mask, active=None):
        """Write a lane mask (inactive lanes read as 0) to `op` (VCC, SGPR pair, EXEC)."""
        mask = mask & (self.exec if active is None else active)
        bits = self.w.pack_mask(np.broadcast_to(mask, (self.n, self.w.lanes)))
        self.write_scalar(op, bits, "b64" if self.w.lanes == 64 else "b32")

    # ---- vector side -------------------------------------------------------------------
    def vector(self, op, type_="b32"):
        """A vector source as [n, lanes] (scalars and constants as [n, 1])."""
        if op.kind == "vgpr":
            if type_ in WIDE_TYPES:
                # Interleave the register pair into (lo, hi) words and view them as uint64:
                # one copy instead of widening, shifting and or-ing both halves.
                pair = np.empty((self.n, self.w.lanes, 2), np.uint32)
                pair[..., 0] = self.vgpr_read(op.index)
                pair[..., 1] = self.vgpr_read(op.index + 1)
                return pair.view(np.uint64)[..., 0]
            return self.vgpr_read(op.index)
        if type_ == "mask":
            return self.mask(op)
        if type_ == "scc":
            return self.w.scc[self.idx]
        if type_ == "pk16" and op.kind == "inline_float":
            return self.scalar(op, "f16")[:, None]
        if op.kind == "literal" and type_ == "pk16":
            return self.scalar(op, "b32")[:, None]
        return self.scalar(op, type_)[:, None]

    def vgpr_read(self, reg):
        if reg >= self.w.vgpr.shape[1]:
            raise self.ctx.illegal(f"v{reg} is beyond the kernel's {self.w.vgpr.shape[1]} VGPRs")
        return self.w.vgpr[self.idx, reg]

    def write_vector(self, op, value, type_="b32", active=None, hi=False):
        """Write `value` to the VGPR(s) of `op` in the lanes of `active` (default EXEC)."""
        if op.kind != "vgpr":
            raise self.ctx.illegal(f"operand {op.text} is not a VGPR destination")
        active = self.exec if active is None else active
        if type_ in WIDE_TYPES:
            words = np.ascontiguousarray(np.broadcast_to(np.asarray(value, np.uint64),
                                                         (self.n, self.w.lanes))).view(np.uint32)
            self.vgpr_write(op.index, words[:, 0::2], active)        # little-endian: low word first
            self.vgpr_write(op.index + 1, words[:, 1::2], active)
            return
        if type_ in HALF_TYPES:
            from core.isa.alu import merge16
            old = self.vgpr_read(op.index)
            value = merge16(old, np.asarray(value, np.uint32), hi)
        self.vgpr_write(op.index, np.asarray(value).astype(np.uint32, copy=False), active)

    def vgpr_write(self, reg, value, active):
        if reg >= self.w.vgpr.shape[1]:
            raise self.ctx.illegal(f"v{reg} is beyond the kernel's {self.w.vgpr.shape[1]} VGPRs")
        value = np.broadcast_to(value, (self.n, self.w.lanes))
        if active is self._exec and self._exec_full:
            self.w.vgpr[self.idx, reg] = value
        elif isinstance(self.idx, slice):
            np.copyto(self.w.vgpr[self.idx, reg], value, where=active)
        else:
            current = self.w.vgpr[self.idx, reg]
            np.copyto(current, value, where=active)
            self.w.vgpr[self.idx, reg] = current

    def m0(self):
        return self.w.sgpr[self.idx, M0]

    def lane_ids(self):
        return np.broadcast_to(np.arange(self.w.lanes, dtype=np.uint32), (self.n, self.w.lanes))
