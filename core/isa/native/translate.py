"""One kernel's reachable code -> one LLVM function `i32 wave(ptr wave, ptr group, ptr env)`.

Holds these invariants:
- every register the code touches lives in an alloca (SGPRs and VCC/EXEC/M0 as i32 by
  operand field id, VGPRs as <lanes x i32>, SCC as i1, the instruction counts as i64),
  loaded from the wave state in the prologue and stored back at every exit that resumes
  (SG_BARRIER, SG_YIELD; SG_END stores the counts only), so mem2reg keeps them in SSA form
  (in kernels the compiler builds at -O0, core/isa/native/compiler.py LARGE, they stay
  in memory);
- the function resumes where the wave left it: the prologue switches on `wave.resume`
  over the program's resume points (entry, after each s_barrier, each backward branch's,
  call's or jump's target: core/isa/native/program.py's backward_target);
- a backward branch, call or jump fences (so loads a spinning wave re-reads are never hoisted) and
  returns SG_YIELD once the wave's count reaches `wave.yield_at`; an LDS store returns SG_TURN
  before it issues once the count reaches `wave.cut_at` (the runner sets it where the wave's
  group has other waves to run, core/isa/native/dispatch.py STORE_TURN) if the wave read LDS
  since its turn began (since this call of the function); an instruction handed to the
  interpreter returns SG_CALLOUT (core/isa/native/callout.py) and resumes right after it;
- a fault stores its code, PC, lane, address and detail in the wave and returns SG_FAULT
  before the faulting instruction writes anything;
- wave_instructions and lane_instructions count as the interpreter does: each instruction
  once per wave, and times the popcount of EXEC after it issued (per run of instructions
  between EXEC writes, so the count costs one popcount per run).
"""
import llvmlite.ir as ir

from core.isa.instruction import EXEC_LO
from core.isa.native import routing
from core.isa.native.compiler import is_large
from core.isa.native.ir_types import I1, I8, I32, I64, PTR, const
from core.isa.native.runner_layout import (ENV, EXTERNALS, HELPER_TABLE, SG_END, SG_FAULT, SG_TURN,
                                          SG_YIELD, wave_offset)
from core.isa.native.program import Untranslatable, ends_block, mode_after
from core.isa.native.reuse import ReusingBuilder
from core.isa.semantics.lds import reads_lds
from core.isa.native.ir_vector import Vector



class Translation:
    """The LLVM module of one kernel and what Python needs to read its faults."""

    def __init__(self, module, reasons, access_sites, callouts):
        self.module = module
        self.reasons = reasons          # fault detail -> reason text
        self.access_sites = access_sites  # entries the function uses in sg_group.sites
        self.callouts = callouts        # instructions handed to the interpreter


class Kernel:
    """Translation state of one kernel: the builder, the register allocas, the blocks."""

    def __init__(self, program, lanes, nvgpr, name):
        self.program = program
        self.lanes = lanes
        self.nvgpr = nvgpr
        # Compiled without optimisation (compiler.LARGE): what makes compile time goes first.
        self.large = is_large(len(program.instructions))
        self.V = Vector(I32, lanes)
        self.V64 = Vector(I64, lanes)
        self.VB = Vector(I1, lanes)
        self.MASK = ir.IntType(lanes)
        self.module = ir.Module(name="softgpu_kernel")
        fnty = ir.FunctionType(I32, [PTR, PTR, PTR])
        self.fn = ir.Function(self.module, fnty, name=name)
        self.wave, self.group, self.env = self.fn.args
        for arg in self.fn.args:
            arg.add_attribute("noalias")
        # Every alloca sits in the entry block (static: part of the frame the prologue makes),
        # which then either measures that frame (a null wave) or goes on to the prologue.
        self.frame = ir.IRBuilder(self.fn.append_basic_block("frame"))
        self.prologue = self.fn.append_basic_block("prologue")
        self.pro = ir.IRBuilder(self.prologue)
        self.exit_block = self.fn.append_basic_block("exit")
        self.epi = ir.IRBuilder(self.exit_block)
        self.builder = None
        self.sgprs = {}                 # slot -> alloca i32
        self.vgprs = {}                 # index -> alloca <lanes x i32>
        self.scc = self._alloca(I1, "scc", wave_offset("scc"), I32)
        self.executed = self._alloca(I64, "executed", wave_offset("executed"))
        self.lane_count = self._alloca(I64, "lane_count", wave_offset("lane_instructions"))
        self.mode_slot = self._alloca(I32, "mode", wave_offset("mode")) if program.mode_varies else None
        self.status = self.frame.alloca(I32, name="status")
        # Whether the wave read LDS in this turn (this call): it then may store over what the
        # other waves of its group read in the same code, and lets them run first.
        self.lds_read = self.frame.alloca(I1, name="lds_read")
        self.pro.store(const(I1, 0), self.lds_read)
        self.base = program.base
        self.code_base = self.pro.load(self.pro.gep(self.env, [const(I64, ENV["code_base"])],
                                                    source_etype=I8), typ=I64)
        self._buffers = None
        self._buffer_scratch = None
        self.reasons = []
        self.access_sites = 0
        self.blocks = {}
        self.callouts = []              # the block after each callout, where its wave resumes
        self._intrinsics = {}
        self._lane_constants = {}
        self._mask_sources = {}         # id(mask vector lane_mask made) -> (that vector, its bits)
        self.inst = None
        self.mode = 0

    # ---- wave state --------------------------------------------------------------------
    def field(self, name, builder=None):
        """Pointer to a field of the wave state."""
        b = builder or self.builder
        return b.gep(self.wave, [const(I64, wave_offset(name))], source_etype=I8)

    def offset(self, address):
        """A code address as the translation stores it: relative to the code base."""
        return const(I64, address - self.base)

    def pc(self, address):
        """The device address of code at `address` (translations are position independent)."""
        return self.builder.add(self.code_base, self.offset(address))

    def _alloca(self, type_, name, offset, stored=None):
        """An alloca loaded from the wave state at `offset` in the prologue and stored back at
        exits (`stored`: the state's type when it differs, e.g. SCC as i32)."""
        slot = self.frame.alloca(type_, name=name)
        at = self.pro.gep(self.wave, [const(I64, offset)], source_etype=I8)
        value = self.pro.load(at, typ=stored or type_)
        if stored is not None:
            value = self.pro.trunc(value, type_)
        self.pro.store(value, slot)
        out = self.epi.load(slot)
        if stored is not None:
            out = self.epi.zext(out, stored)
        self.epi.store(out, self.epi.gep(self.wave, [const(I64, offset)], source_etype=I8))
        return slot

    def sgpr_slot(self, slot):
        if slot not in self.sgprs:
            self.sgprs[slot] = self._alloca(I32, f"s{slot}", wave_offset("sgpr") + 4 * slot)
        return self.sgprs[slot]

    def vgpr_slot(self, index):
        if index >= self.nvgpr:
            raise IndexError(index)
        if index not in self.vgprs:
            offset = wave_offset("vgprs") + index * self.lanes * 4
            self.vgprs[index] = self._alloca(self.V, f"v{index}", offset)
        return self.vgprs[index]

    # ---- helpers -----------------------------------------------------------------------
    def intrinsic(self, name, ret, args):
        fn = self._intrinsics.get(name) or self.module.globals.get(name)
        if fn is None:
            fn = ir.Function(self.module, ir.FunctionType(ret, args), name=name)
            if name in EXTERNALS:
                self._through_helper_table(fn, EXTERNALS.index(name))
        self._intrinsics[name] = fn
        return fn

    def _through_helper_table(self, fn, slot):
        """Define the C helper `fn` as a call through slot `slot` of the module's helper table:
        the code is dlopen'ed from the disk cache into processes that load the library in any
        way, whose helpers are no exported symbols, and the loader fills the table
        (core/isa/native/shared_object.py). Internal, so the optimiser inlines it into its calls."""
        table = self.module.globals.get(HELPER_TABLE)
        if table is None:
            table = ir.GlobalVariable(self.module, ir.ArrayType(PTR, len(EXTERNALS)), HELPER_TABLE)
            table.initializer = ir.Constant(table.value_type, None)
        fn.linkage = "internal"
        b = ir.IRBuilder(fn.append_basic_block("call"))
        entry = b.gep(table, [const(I64, 0), const(I64, slot)], source_etype=table.value_type)
        helper = b.load(entry, typ=fn.function_type.as_pointer())
        b.ret(b.call(helper, list(fn.args)))      # every helper returns a value (runner.h)

    def call(self, name, ret, args):
        return self.builder.call(self.intrinsic(name, ret, [a.type for a in args]), args)

    def splat(self, value, lanes=None):
        lanes = lanes or self.lanes
        vec_type = Vector(value.type, lanes)
        if isinstance(value, ir.Constant):
            return ir.Constant(vec_type, [value.constant] * lanes)
        b = self.builder
        one = b.insert_element(ir.Constant(vec_type, ir.Undefined), value, const(I32, 0))
        return b.shuffle_vector(one, ir.Constant(vec_type, ir.Undefined),
                                ir.Constant(Vector(I32, lanes), [0] * lanes))

    def scratch_buffers(self):
        """Stack space for out-of-line memory accesses: lane addresses, up to 4 rows of data."""
        if self._buffers is None:
            # As untyped pointers (llvmlite types an alloca's pointer by what it holds).
            self._buffers = tuple(
                self.frame.inttoptr(self.frame.ptrtoint(self.frame.alloca(t, name=n), I64), PTR)
                for t, n in ((self.V64, "addresses"), (Vector(I32, 4 * self.lanes), "data")))
        return self._buffers

    def buffer_scratch(self):
        """Stack space for out-of-line buffer accesses: the V# words, two lanes of VGPRs."""
        if self._buffer_scratch is None:
            self._buffer_scratch = tuple(
                self.frame.inttoptr(self.frame.ptrtoint(self.frame.alloca(t, name=n), I64), PTR)
                for t, n in ((Vector(I32, 4), "rsrc"), (Vector(I32, 2 * self.lanes), "vaddr")))
        return self._buffer_scratch

    def new_access_site(self):
        """The index of a new checked access (its entry in sg_group.sites)."""
        self.access_sites += 1
        return self.access_sites - 1

    def lane_ids(self, type_=I32):
        return ir.Constant(Vector(type_, self.lanes), list(range(self.lanes)))

    def lane_constant(self, values, type_=I32):
        """The constant vector of `values` (one a lane, or None for zeros), made once a
        translation: the builder's reuse keys a constant by its text, which llvmlite prints
        once an object (a mask read made its three constants anew, a third of private_sort's
        IR building)."""
        key = (str(type_), None if values is None else tuple(values))
        made = self._lane_constants.get(key)
        if made is None:
            made = self._lane_constants[key] = ir.Constant(Vector(type_, len(values) if values else self.lanes), values)
        return made

    def new_block(self, name):
        return self.builder.append_basic_block(name)

    # ---- EXEC and lane masks -----------------------------------------------------------
    def mask_bits(self, slot):
        """The lane mask in SGPR slot (and slot + 1 in wave64) as an i<lanes>."""
        b = self.builder
        lo = b.load(self.sgpr_slot(slot))
        if self.lanes == 32:
            return lo
        hi = b.load(self.sgpr_slot(slot + 1))
        return b.or_(b.zext(lo, I64), b.shl(b.zext(hi, I64), const(I64, 32)))

    def exec_bits(self):
        return self.mask_bits(EXEC_LO)

    def exec_mask(self):
        return self.lane_mask(self.exec_bits())

    def lane_mask(self, bits):
        """The <lanes x i1> of the lane mask `bits` (i<lanes>): the vector it was made from
        when this block's builder sees that (a compare's mask written to VCC and read back),
        else each lane testing its bit in a splat of the mask's dwords. A bitcast says the
        same, but x86 code generation without AVX-512 builds it a bit at a time (two
        instructions a lane: a tenth of big_partial_reduce's machine code), and LLVM does not
        see through the round trip of a carry through VCC (vector add's addresses)."""
        made = _mask_vector(bits, self.VB)
        if made is not None:
            return made
        b = self.builder
        dwords = [bits] if self.lanes == 32 else list(_dwords(b, bits))
        pair = self.lane_constant([0] * len(dwords))
        for i, dword in enumerate(dwords):
            pair = b.insert_element(pair, dword, const(I32, i))
        spread = b.shuffle_vector(pair, self.lane_constant([0] * len(dwords)),
                                  self.lane_constant([lane // 32 for lane in range(self.lanes)]))
        lane_bits = self.lane_constant([1 << (lane % 32) for lane in range(self.lanes)])
        mask = b.icmp_unsigned("!=", b.and_(spread, lane_bits), self.lane_constant(None))
        self._mask_sources[id(mask)] = (mask, bits)
        return mask

    def bits_of(self, mask):
        """The i<lanes> lane bits of the <lanes x i1> `mask`: the bits lane_mask made it
        from, when it did (an operand of the mask, so available wherever the mask is), else
        its bitcast, which x86 without AVX-512 builds from the lanes a few at a time (every
        out-of-line access passes EXEC's bits: -O0 kernels have hundreds)."""
        made = self._mask_sources.get(id(mask))
        if made is not None and made[0] is mask:
            return made[1]
        return self.builder.bitcast(mask, self.MASK)

    def popcount(self, bits):
        count = self.call(f"llvm.ctpop.i{self.lanes}", self.MASK, [bits])
        return self.builder.zext(count, I64) if self.lanes == 32 else count

    def any_lane(self, mask):
        return self.call(f"llvm.vector.reduce.or.v{self.lanes}i1", I1, [mask])

    # ---- faults and exits --------------------------------------------------------------
    def reason(self, text):
        """The detail number of an illegal-instruction reason (the same text as the interpreter)."""
        if text not in self.reasons:
            self.reasons.append(text)
        return self.reasons.index(text)

    def fault(self, code, lane=None, address=None, detail=0, condition=None):
        """Return SG_FAULT from here (or, with `condition`, where it holds, continuing after)."""
        b = self.builder
        if condition is not None:
            bad = self.new_block("fault")
            good = self.new_block("ok")
            b.cbranch(condition, bad, good)
            b.position_at_end(bad)
        b.store(self.offset(self.inst.address), self.field("pc"))
        b.store(const(I32, code), self.field("fault_code"))
        b.store(lane if lane is not None else const(I32, 0), self.field("fault_lane"))
        b.store(address if address is not None else const(I64, 0), self.field("fault_address"))
        b.store(const(I64, detail), self.field("fault_detail"))
        b.ret(const(I32, SG_FAULT))
        if condition is not None:
            b.position_at_end(good)
        else:
            b.position_at_end(self.new_block("dead"))

    def illegal(self, text):
        from core.isa.native.runner_layout import SG_FAULT_ILLEGAL
        self.fault(SG_FAULT_ILLEGAL, lane=const(I32, -1), detail=self.reason(text))

    def leave(self, status, resume_address):
        """Store the state and return `status`; the wave resumes at `resume_address`."""
        b = self.builder
        block = self.program.blocks[resume_address]
        b.store(const(I32, block.resume), self.field("resume"))
        b.store(self.offset(resume_address), self.field("pc"))
        b.store(const(I32, status), self.status)
        b.branch(self.exit_block)

    def callout_resume(self, k):
        """The resume point id after the k-th callout (after the program's own)."""
        return len(self.program.resume_points) + k

    def end(self):
        """s_endpgm: only the counts outlive an ended wave, so no register is stored."""
        b = self.builder
        b.store(self.offset(self.inst.address), self.field("pc"))
        b.store(b.load(self.executed), self.field("executed"))
        b.store(b.load(self.lane_count), self.field("lane_instructions"))
        b.ret(const(I32, SG_END))

    def jump(self, target):
        """Branch to the block at `target`; a backward branch may yield first."""
        b = self.builder
        if self.program.backward_target(self.inst) != target:
            b.branch(self.blocks[target])
            return
        # A signal fence: LLVM may not move memory accesses across it, so a spinning wave
        # re-reads memory each iteration, as on the GPU.
        b.fence("seq_cst", "singlethread")
        due = b.icmp_unsigned(">=", b.load(self.executed), b.load(self.field("yield_at"), typ=I64))
        self._leave_if(due, SG_YIELD, target, "yield", "loop")
        b.branch(self.blocks[target])

    def branch_if(self, condition, target, fallthrough):
        b = self.builder
        taken = self.new_block("taken")
        b.cbranch(condition, taken, self.blocks[fallthrough])
        b.position_at_end(taken)
        self.jump(target)

    def indirect(self, target, allowed):
        """Jump to the 64-bit address `target`, one of `allowed`; anything else faults."""
        b = self.builder
        bad = self.new_block("bad_target")
        switch = b.switch(b.sub(target, self.code_base), bad)
        for address in allowed:
            switch.add_case(self.offset(address), self.blocks[address])
        b.position_at_end(bad)
        self.illegal("the program counter left the code object")

    # ---- the function ------------------------------------------------------------------
    def translate(self, pace=None):
        program = self.program
        blocks = program.ordered_blocks()
        for block in blocks:
            self.blocks[block.start] = self.fn.append_basic_block(f"b{block.start:x}")
        for block in blocks:
            self.builder = ReusingBuilder(self.blocks[block.start])
            self._translate_block(block)
            if pace is not None:
                pace()
        self._finish()
        return Translation(self.module, list(self.reasons), self.access_sites, len(self.callouts))

    def _translate_block(self, block):
        b = self.builder
        insts = block.instructions
        if block.start in self.program.lds_stores:
            self._end_turn_before(block.start)
        b.store(b.add(b.load(self.executed), const(I64, len(insts))), self.executed)
        if not routing.writes_exec(insts[0]):
            self._count_lanes(_run(insts, 0))
        for i, inst in enumerate(insts):
            self.inst = inst
            if reads_lds(inst.mnemonic):
                self.builder.store(const(I1, 1), self.lds_read)
            handler = routing.handler(inst, self)
            if handler is None:
                raise Untranslatable(routing.refusal(inst), inst)
            self._issue(handler, inst)
            if routing.writes_exec(inst):
                self._count_lanes(_run(insts, i))
        if not self.builder.block.is_terminated and block.end in self.blocks:
            self.builder.branch(self.blocks[block.end])

    def _end_turn_before(self, address):
        """Return SG_TURN, to resume at `address` (an LDS store), once the wave's count reaches
        wave.cut_at if it read LDS in this turn: the other waves of its group run up to their
        own stores first (reading what they read before them)."""
        b = self.builder
        due = b.and_(b.load(self.lds_read),
                     b.icmp_unsigned(">=", b.load(self.executed), b.load(self.field("cut_at"), typ=I64)))
        self._leave_if(due, SG_TURN, address, "turn", "store")

    def _leave_if(self, due, status, resume, leaving, staying):
        """Where `due` holds, leave the wave function with `status`, to resume at `resume`;
        code after this goes on in a new block (named `staying`, laid out first: the common
        path) where it does not."""
        b = self.builder
        stay = self.new_block(staying)
        out = self.new_block(leaving)
        b.cbranch(due, out, stay)
        b.position_at_end(out)
        self.leave(status, resume)
        b.position_at_end(stay)

    def _issue(self, handler, inst):
        """The instruction under each MODE that reaches it: one copy per MODE, chosen by the
        wave's MODE at run time where several reach (a function called under two MODEs)."""
        modes = self.program.modes[inst.address]
        if not isinstance(modes, tuple) or ends_block(inst):    # control does not read MODE
            self.mode = modes if not isinstance(modes, tuple) else modes[0]
            handler(self, inst)
            self._track_mode(inst, self.mode)
            return
        b = self.builder
        merged = self.new_block("mode_joined")
        copies = [self.new_block(f"mode_{mode:x}") for mode in modes]
        switch = b.switch(b.load(self.mode_slot), copies[-1])
        for mode, block in zip(modes, copies):
            switch.add_case(const(I32, mode), block)
            b.position_at_end(block)
            self.mode = mode
            handler(self, inst)
            self._track_mode(inst, mode)
            b.branch(merged)
        b.position_at_end(merged)

    def _track_mode(self, inst, mode):
        """Where MODE varies, the wave's MODE is state (stored at exits, so a resumed wave
        keeps it): each write of MODE stores the value it leaves."""
        after = mode_after(inst, mode, self.program.setreg_values.get(inst.address))
        if self.mode_slot is not None and after != mode:
            self.builder.store(const(I32, after), self.mode_slot)

    def _count_lanes(self, instructions):
        b = self.builder
        if instructions <= 0 or b.block.is_terminated:
            return
        add = b.mul(self.popcount(self.exec_bits()), const(I64, instructions))
        b.store(b.add(b.load(self.lane_count), add), self.lane_count)

    def _finish(self):
        self._measure_frame()
        pro = self.pro
        pro.store(const(I32, SG_END), self.status)
        resume = pro.load(self.field("resume", pro), typ=I32)
        entry = self.blocks[self.program.entry]
        switch = pro.switch(resume, entry)
        for rid, address in enumerate(self.program.resume_points):
            if rid:
                switch.add_case(const(I32, rid), self.blocks[address])
        for k, block in enumerate(self.callouts):
            switch.add_case(const(I32, self.callout_resume(k)), block)
        self.epi.ret(self.epi.load(self.status))
        # Blocks left open after a fault (dead code) end unreachable.
        for bb in self.fn.blocks:
            if not bb.is_terminated:
                ir.IRBuilder(bb).unreachable()

    def _measure_frame(self):
        """Called with a null wave, the function returns the bytes its frame takes below its
        frame address (registers, spills, call arguments) and touches nothing else: the stack
        a thread needs to run it (kernels compiled at -O0, whose every spilled value has a
        slot of its own, take megabytes)."""
        f = self.frame
        measure = self.fn.append_basic_block("measure_frame")
        f.cbranch(f.icmp_unsigned("==", self.wave, ir.Constant(PTR, None)), measure, self.prologue)
        f.position_at_end(measure)
        top = f.call(self.intrinsic("llvm.frameaddress.p0", PTR, [I32]), [const(I32, 0)])
        bottom = f.call(self.intrinsic("llvm.stacksave.p0", PTR, []), [])
        size = f.sub(f.ptrtoint(top, I64), f.ptrtoint(bottom, I64))
        # Reported in KiB, rounded up, so that any frame fits the i32 result.
        f.ret(f.trunc(f.lshr(f.add(size, const(I64, 1023)), const(I64, 10)), I32))


def _mask_vector(bits, vector_type):
    """The <lanes x i1> that `bits` is the bitcast of, or None: seen directly (wave32: a mask
    register's value as last stored) or through its two dwords joined again (wave64:
    mask_bits of the halves write_scalar stored)."""
    def op(value, name):
        return value.operands if isinstance(value, ir.Instruction) and value.opname == name else None
    whole = op(bits, "bitcast")
    if whole is not None:
        return whole[0] if whole[0].type == vector_type else None
    joined = op(bits, "or")
    if joined is None:
        return None
    low, high = joined
    low, shifted = op(low, "zext"), op(high, "shl")
    high = op(shifted[0], "zext") if shifted and _is_32(shifted[1]) else None
    low_trunc = op(low[0], "trunc") if low else None
    high_trunc = op(high[0], "trunc") if high else None
    high_shift = op(high_trunc[0], "lshr") if high_trunc else None
    if not (low_trunc and high_shift and _is_32(high_shift[1])) or low_trunc[0] is not high_shift[0]:
        return None
    return _mask_vector(low_trunc[0], vector_type)


def _is_32(value):
    return isinstance(value, ir.Constant) and value.constant == 32


def _dwords(b, bits):
    """The low and high dwords of the i64 `bits`."""
    return b.trunc(bits, I32), b.trunc(b.lshr(bits, const(I64, 32)), I32)


def _run(insts, i):
    """Instructions from index i up to the next EXEC writer after it (exclusive): those
    that issue with the EXEC in force after instruction i."""
    j = i + 1
    while j < len(insts) and not routing.writes_exec(insts[j]):
        j += 1
    return j - i


def translate(program, lanes, nvgpr, name, pace=None):
    """The Translation of a Program as function `name` (raises Untranslatable); pace(), if
    given, is called after each block (the translator thread's: core/isa/native/
    translator.py)."""
    return Kernel(program, lanes, nvgpr, name).translate(pace)
