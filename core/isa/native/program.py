"""Code discovery: the instructions a kernel can reach, as basic blocks, from its entry.

Holds these invariants:
- only reachable code is decoded: from the entry, branch targets and fall-throughs, call
  and jump targets (s_swappc_b64/s_call_b64/s_setpc_b64, resolved by constant propagation
  along every edge of a function: the s_getpc_b64 / s_add_u32 / s_addc_u32 pattern clang
  emits for calls, and the signed offsets, compares and SCC branches of Tensile's long
  branches) and return sites; the decoder is the shared
  one, and its records are the engine's (core.isa.semantics.records.executable: gfx1030 names,
  AGPRs as VGPRs), so another target is its tables, not code here;
- every indirect jump (s_setpc_b64, s_swappc_b64 of an unknown value) has a finite target
  set: the code object's function symbols, every resolved call target and every return site
  (the address after each call); an address outside it faults at run time;
- a block ends at every control transfer and after s_barrier, and begins at every LDS store
  (core.isa.semantics.lds.writes_lds), where a wave may end its turn; every block start that a
  wave can resume at (the entry, after a barrier, an LDS store, the known target of a backward
  branch, call or jump) is a resume point with a dense id (0 is the entry);
- MODE is known at every instruction as a finite set of values (the descriptor's value,
  changed only by s_setreg_imm32_b32 / s_setreg_b32 of a known value / s_denorm_mode /
  s_round_mode; a join unites the sets, so a function called under two MODEs has both):
  `modes[address]` is one int where a single MODE reaches, else the sorted tuple.
"""
from dataclasses import dataclass, field

from core.isa import targets
from core.isa.decoder import DecodeError, decode
from core.isa.semantics.hwreg import hwreg_fields, hwreg_meaning
from core.isa.semantics.lds import writes_lds
from core.isa.semantics.records import executable

BRANCHES = ("s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
            "s_cbranch_execz", "s_cbranch_execnz")
DEBUG_BRANCHES = ("s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_cbranch_cdbgsys_or_user",
                  "s_cbranch_cdbgsys_and_user")
ENDS = ("s_endpgm", "s_endpgm_saved", "s_code_end", "s_trap")
CALLS = ("s_swappc_b64", "s_call_b64")
# Kernels with more reachable instructions run on the interpreter: translation costs about
# 0.5 ms an instruction (Python building the IR, then LLVM; it was 1-2 ms when the limit was
# 2,500), so a 6,000-instruction kernel takes about 3 s, once per machine (the disk cache),
# which the interpreter spends on about 20,000 work-items of such -O0 code (int_minmax -O0:
# 77 ms per 4,096); -O0 HIP kernels with cooperative groups reach 10,000 and more.
MAX_INSTRUCTIONS = 6000


class Untranslatable(Exception):
    """The translator cannot take this kernel; `instruction` is the one that stops it."""

    def __init__(self, reason, instruction=None):
        super().__init__(reason)
        self.reason = reason
        self.instruction = instruction


@dataclass
class Block:
    start: int
    instructions: list = field(default_factory=list)
    successors: tuple = ()           # addresses of blocks control may go to next
    modes: frozenset = frozenset()   # the MODEs control may enter with
    resume: int | None = None        # resume point id when a wave can resume here

    @property
    def last(self):
        return self.instructions[-1]

    @property
    def end(self):
        return self.last.next_address


class Program:
    """The reachable code of one kernel: `blocks` by start address, in address order."""

    def __init__(self, memory, base, limit, entry, wave64, mode, functions=(),
                 target=targets.DEFAULT, accum_offset=0):
        """memory: bytes of device memory starting at device address `base`; code may be
        decoded in [base, limit). functions: addresses of the code object's function symbols.
        target: the IsaTarget the code was built for; accum_offset: where its AGPRs lie."""
        self.memory, self.base, self.limit = memory, base, limit
        self.entry = entry
        self.wave64 = wave64
        self.target = targets.get(target)
        self.accum_offset = accum_offset
        self.functions = set(functions)
        self.instructions = {}        # address -> Instruction
        self.constants = {}           # call/jump address -> resolved target
        self.return_sites = set()
        self.blocks = {}
        self._discover()
        self._split()
        self._link()
        self.indirect_targets = tuple(sorted(self._indirect_targets()))
        self._number_resume_points()
        self._propagate_mode(mode)

    # ---- discovery -----------------------------------------------------------------------
    def _decode(self, address):
        inst = self.instructions.get(address)
        if inst is None:
            if not self.base <= address or address + 4 > self.limit:
                raise Untranslatable(f"code at {address:#x} lies outside the code object")
            try:
                inst = decode(self.memory, address - self.base, address, self.wave64, self.target)
            except DecodeError as exc:
                raise Untranslatable(f"undecodable instruction at {address:#x}: {exc}") from None
            inst = executable(inst, self.target, self.accum_offset)
            self.instructions[address] = inst
        return inst

    def _discover(self):
        # Call targets spilled to VGPR lanes (v_writelane / v_readlane, as -O0 code keeps
        # them across calls and barriers) resolve once the spill's value is known, and a
        # jump target found in one walk may start a block inside code an earlier walk ran
        # straight through (where its facts were not met with the fall-through's): walk
        # again while that teaches something new. Leaders persist, so the last walk meets
        # the facts of every edge at every join.
        self.setreg_values = {}       # s_setreg_b32 address -> the constant it writes, or None
        self.lane_values = {}         # (function, vgpr, lane) -> the one constant written, or None
        self.poisoned = set()         # (function, vgpr) written otherwise than by v_writelane
        self._leaders = set()
        while True:
            before = dict(self.lane_values), set(self.poisoned), set(self._leaders)
            self.constants.clear()
            self.return_sites.clear()
            self._walk([self.entry])
            if (dict(self.lane_values), set(self.poisoned), set(self._leaders)) == before:
                break
        unresolved = any(a not in self.constants for a, i in self.instructions.items()
                         if i.mnemonic == "s_swappc_b64")
        if unresolved:
            # Function pointers: every function symbol of the code object may be called.
            self._walk(sorted(f for f in self.functions if self.base <= f < self.limit))

    def _walk(self, roots):
        """Decode from `roots` (each the start of a function); calls start new functions.

        SGPR constants flow along every edge within a function (forward data flow): a block's
        entry facts are those all its incoming edges agree on, and a block is walked again
        whenever they shrink. So computed jumps resolve across blocks, as Tensile's long
        branches need (s_getpc_b64, a signed offset, s_cmp + s_cbranch on its sign, then
        s_setpc_b64 on each side). A call's return site and a callee start with no facts
        (the callee may write any SGPR); so does the side of a conditional branch that a
        known SCC says the wave never takes (facts there would be false)."""
        work = [(root, root, None) for root in roots]
        self._leaders.update(roots)
        entry = {}                    # block start -> the facts every edge into it agrees on
        while work:
            address, function, facts = work.pop()
            state = facts if facts is not None else {"function": function}
            old = entry.get(address)
            if old is not None:
                state = {k: v for k, v in old.items() if k == "function" or state.get(k, _UNKNOWN) == v}
                if state == old:
                    continue
            entry[address] = state
            known = dict(state)
            function = known["function"]
            while True:
                inst = self._decode(address)
                if len(self.instructions) > MAX_INSTRUCTIONS:
                    raise Untranslatable(f"more than {MAX_INSTRUCTIONS} reachable instructions: "
                                         "translating would take longer than interpreting")
                decided = _decided_branch(inst, known)
                targets, falls_through = self._targets(inst, known)
                call = inst.mnemonic in CALLS
                for target in targets:
                    self._leaders.add(target)
                    carried = None if call or decided is False else dict(known)
                    work.append((target, target if call else function, carried))
                nxt = inst.next_address
                if not falls_through:
                    break
                if ends_block(inst) or nxt in self._leaders:
                    self._leaders.add(nxt)
                    carried = None if call or decided is True else dict(known)
                    work.append((nxt, function, carried))
                    break
                address = nxt

    def _targets(self, inst, known):
        """(target addresses, falls through) of one instruction; tracks constants in `known`."""
        name = inst.mnemonic
        if name in BRANCHES:
            target = int(inst.src[0].value)
            return (target,), name != "s_branch"
        if name in ENDS:
            return (), False
        if name == "s_getpc_b64":
            _set_pair(known, inst.dst[0], inst.next_address)
            return (), True
        if name in CALLS or name == "s_setpc_b64":
            if name == "s_call_b64":
                target = int(inst.src[0].value)
            else:
                target = _pair_value(known, inst.src[0])
            if target is not None:
                self.constants[inst.address] = target
            else:
                # An earlier walk of this block knew more than all its edges agree on.
                self.constants.pop(inst.address, None)
            if name in CALLS:
                self.return_sites.add(inst.next_address)
                return ((target,) if target is not None else ()), True
            return ((target,) if target is not None else ()), False
        if name == "s_setreg_b32":
            # MODE written from a register stays static when the register holds a constant.
            self.setreg_values[inst.address] = _constant(known, inst.src[0])
        self._track_lanes(inst, known)
        _track_constants(inst, known)
        return (), True

    def _track_lanes(self, inst, known):
        """Constants of VGPR lanes, flow-insensitive within a function (its callees save and
        restore what they use): a lane written only by v_writelane of one known constant
        reads back as that constant."""
        name = inst.mnemonic
        function = known["function"]
        if name == "v_writelane_b32" and inst.src[1].kind == "inline_int":
            key = (function, inst.dst[0].index, int(inst.src[1].value))
            value = _constant(known, inst.src[0])
            if key in self.lane_values and self.lane_values[key] != value:
                value = None
            self.lane_values[key] = value
            return
        if name == "v_readlane_b32" and inst.src[0].kind == "vgpr" and inst.src[1].kind == "inline_int":
            key = (function, inst.src[0].index, int(inst.src[1].value))
            value = self.lane_values.get(key)
            slot = _slot(inst.dst[0])
            if value is not None and (function, inst.src[0].index) not in self.poisoned and slot is not None:
                known["readlane"] = (slot, value)
            return
        if inst.encoding in ("MUBUF", "SCRATCH", "FLAT", "GLOBAL") and "load" in name:
            # Reloads: -O0 callees save and restore the VGPRs they use (the spill VGPR among
            # them) through scratch, which gives a lane back the value it had.
            return
        for op in inst.dst:
            if op.kind == "vgpr":
                self.poisoned.update((function, v) for v in range(op.index, op.index + op.count))

    def _split(self):
        """Cut the discovered instructions into blocks at every leader and LDS store."""
        self.lds_stores = {a for a, i in self.instructions.items() if writes_lds(i.mnemonic)}
        self._leaders |= self.lds_stores
        starts = sorted(self._leaders)
        for start in starts:
            block = Block(start)
            address = start
            while True:
                inst = self.instructions.get(address)
                if inst is None:
                    break
                block.instructions.append(inst)
                address = inst.next_address
                if ends_block(inst) or address in self._leaders:
                    break
            if block.instructions:
                self.blocks[start] = block

    def _link(self):
        for block in self.blocks.values():
            inst = block.last
            name = inst.mnemonic
            succ = []
            if name in BRANCHES:
                succ.append(int(inst.src[0].value))
                if name != "s_branch":
                    succ.append(inst.next_address)
            elif name in CALLS or name == "s_setpc_b64":
                target = self.constants.get(inst.address)
                succ.extend([target] if target is not None else ["indirect"])
            elif name not in ENDS:
                succ.append(inst.next_address)
            block.successors = tuple(succ)

    def _indirect_targets(self):
        targets = set(self.return_sites) | set(self.constants.values()) | self.functions
        return {t for t in targets if t in self.blocks}

    def backward_target(self, inst):
        """The known target of a branch, call or jump that goes back (to its own address or
        before), where a wave may yield; None for every other instruction."""
        if inst.mnemonic in BRANCHES:
            target = int(inst.src[0].value)
        elif inst.mnemonic in CALLS or inst.mnemonic == "s_setpc_b64":
            target = self.constants.get(inst.address)
        else:
            return None
        return target if target is not None and target <= inst.address else None

    def _number_resume_points(self):
        points = [self.entry] + sorted(self.lds_stores)
        for block in self.blocks.values():
            inst = block.last
            if inst.mnemonic == "s_barrier":
                points.append(inst.next_address)
            target = self.backward_target(inst)
            if target is not None:
                points.append(target)
        self.resume_points = []
        for address in points:
            block = self.blocks.get(address)
            if block is not None and block.resume is None:
                block.resume = len(self.resume_points)
                self.resume_points.append(address)

    # ---- MODE ----------------------------------------------------------------------------
    def _propagate_mode(self, mode):
        self.blocks[self.entry].modes = frozenset((mode,))
        work = [self.entry]
        reaching = {}                             # instruction address -> MODEs at issue
        while work:
            block = self.blocks[work.pop()]
            current = block.modes
            for inst in block.instructions:
                reaching[inst.address] = current
                value = self.setreg_values.get(inst.address)
                current = frozenset(mode_after(inst, m, value) for m in current)
            for succ in block.successors:
                targets = self.indirect_targets if succ == "indirect" else (succ,)
                for target in targets:
                    nxt = self.blocks.get(target)
                    if nxt is not None and not current <= nxt.modes:
                        nxt.modes |= current
                        work.append(target)
        self.modes = {address: next(iter(m)) if len(m) == 1 else tuple(sorted(m))
                      for address, m in reaching.items()}
        self.mode_varies = any(isinstance(m, tuple) for m in self.modes.values())

    def ordered_blocks(self):
        return [self.blocks[a] for a in sorted(self.blocks)]


def ends_block(inst):
    name = inst.mnemonic
    return (name in BRANCHES or name in ENDS or name in CALLS or name == "s_setpc_b64"
            or name == "s_barrier")


def mode_after(inst, mode, register_value=None):
    name = inst.mnemonic
    if name == "s_denorm_mode":
        return (mode & ~0xF0) | (int(inst.src[0].value) & 0xF) << 4
    if name == "s_round_mode":
        return (mode & ~0xF) | (int(inst.src[0].value) & 0xF)
    if name in ("s_setreg_imm32_b32", "s_setreg_b32"):
        _, offset, size = hwreg_fields(inst)
        if hwreg_meaning(inst) != "mode":
            return mode
        if name == "s_setreg_b32" and register_value is None:
            raise Untranslatable("s_setreg_b32 writes MODE from a register: MODE is not static", inst)
        written = register_value if name == "s_setreg_b32" else int(inst.src[0].value)
        field_mask = ((1 << size) - 1) << offset
        value = (written << offset) & field_mask
        return (mode & ~field_mask) | value
    return mode


def _slot(op):
    if op.kind in ("sgpr", "special"):
        return op.index
    if op.kind == "ttmp":
        return 108 + op.index
    return None


def _set_pair(known, op, value):
    slot = _slot(op)
    if slot is not None:
        known[slot] = value & 0xFFFFFFFF
        known[slot + 1] = (value >> 32) & 0xFFFFFFFF


def _forget(known, op):
    slot = _slot(op)
    if slot is not None:
        for k in range(op.count):
            known.pop(slot + k, None)


def _pair_value(known, op):
    slot = _slot(op)
    if slot is None or slot not in known or slot + 1 not in known:
        return None
    return known[slot] | known[slot + 1] << 32


def _constant(known, op):
    if op.kind in ("inline_int", "literal"):
        return int(op.value) & 0xFFFFFFFF
    slot = _slot(op)
    return known.get(slot) if slot is not None else None


_UNKNOWN = object()
_COMPARES = {"eq": lambda a, b: a == b, "lg": lambda a, b: a != b, "gt": lambda a, b: a > b,
             "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b}


def _signed(value):
    return value - (1 << 32) if value & 0x80000000 else value


def _decided_branch(inst, known):
    """True/False when `inst` is an SCC branch whose SCC is a known constant (taken or
    not), else None."""
    if inst.mnemonic not in ("s_cbranch_scc0", "s_cbranch_scc1") or "scc" not in known:
        return None
    return known["scc"] == (inst.mnemonic == "s_cbranch_scc1")


def _track_signed(inst, known):
    """Constants through the signed 32-bit ops and the compares Tensile's long branches use
    (s_add_i32/s_sub_i32 of a label offset, s_abs_i32, s_cmp_*_i32/u32 setting SCC). True
    when `inst` was one of them."""
    name = inst.mnemonic
    if name.startswith("s_cmp_") and name[6:8] in _COMPARES and name.endswith(("_i32", "_u32")):
        values = [_constant(known, op) for op in inst.src]
        if None in values:
            known.pop("scc", None)
        else:
            a, b = (_signed(v) for v in values) if name.endswith("_i32") else values
            known["scc"] = int(_COMPARES[name[6:8]](a, b))
        return True
    if name not in ("s_add_i32", "s_sub_i32", "s_abs_i32"):
        return False
    values = [_constant(known, op) for op in inst.src]
    slot = _slot(inst.dst[0])
    if None in values or slot is None:
        _forget(known, inst.dst[0])
        known.pop("scc", None)
        return True
    if name == "s_abs_i32":
        result = abs(_signed(values[0])) & 0xFFFFFFFF
        known[slot], known["scc"] = result, int(result != 0)
        return True
    a, b = (_signed(v) for v in values)
    total = a + b if name == "s_add_i32" else a - b
    known[slot], known["scc"] = total & 0xFFFFFFFF, int(not -(1 << 31) <= total < (1 << 31))
    return True


def _track_constants(inst, known):
    """Constant propagation of the address arithmetic clang emits for calls and Tensile
    for long branches."""

    name = inst.mnemonic
    lane = known.pop("readlane", None)
    if lane is not None:
        known[lane[0]] = lane[1]
        return
    if _track_signed(inst, known):
        return
    if name == "s_mov_b64" and inst.src[0].kind in ("sgpr", "special", "ttmp"):
        value = _pair_value(known, inst.src[0])
        _forget(known, inst.dst[0])
        if value is not None:
            _set_pair(known, inst.dst[0], value)
        return
    if name in ("s_add_u32", "s_addc_u32", "s_sub_u32", "s_subb_u32", "s_mov_b32"):
        values = [_constant(known, op) for op in inst.src]
        carry = known.get("scc") if name in ("s_addc_u32", "s_subb_u32") else 0
        slot = _slot(inst.dst[0])
        if None in values or carry is None or slot is None:
            _forget(known, inst.dst[0])
            if name != "s_mov_b32":
                known.pop("scc", None)
            return
        if name == "s_mov_b32":
            known[slot] = values[0]
            return
        a, b = values
        if name.startswith("s_add"):
            total = a + b + carry
            known[slot], known["scc"] = total & 0xFFFFFFFF, int(total >> 32)
        else:
            total = a - b - carry
            known[slot], known["scc"] = total & 0xFFFFFFFF, int(total < 0)
        return
    if name == "s_mov_b64" and inst.src[0].kind in ("inline_int", "literal"):
        _set_pair(known, inst.dst[0], int(inst.src[0].value) & 0xFFFFFFFFFFFFFFFF)
        return
    for op in inst.dst + inst.implicit_dst:
        _forget(known, op)
    if _writes_scc(name):
        known.pop("scc", None)


def _writes_scc(name):
    return name.startswith("s_") and not name.startswith(("s_mov", "s_load", "s_buffer", "s_getpc",
                                                          "s_waitcnt", "s_nop", "s_setreg",
                                                          "s_getreg", "s_memtime"))
