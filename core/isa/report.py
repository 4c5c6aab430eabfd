"""`softgpu isa-report [--target T]`: every opcode of a target and what SoftGPU does with it.

Each opcode of the target's generated tables (core/isa/opcodes_<target>.py; gfx11's VOPD
halves included) is one of:
- tested: the engine executes it, and it occurs in a kernel the test suite runs and
  checks against numpy for that target (tests/kernels, every -O0/-O2 build the suite runs
  there: the package ships their mnemonics in coverage.json, which a test keeps equal to
  the suite's builds), or, when code objects are given, in one of those;
- implemented: the engine executes it, but no such kernel contains it;
- missing: it faults as ILLEGAL_INSTRUCTION, naming itself.
An opcode executes when the engine has semantics for the operation it names
(core.isa.targets.semantic_name: gfx11's ds_load_b32 is gfx1030's ds_read_b32, a VOPD half
v_dual_mul_f32 is v_mul_f32). Coverage is static (the suite's code objects, decoded), so
"tested" means "in a checked kernel", not "on every path of it". A second column says what
the native tier does with it: translated (to native code); translated (interpreter callout):
a kernel using it runs translated and hands just this instruction to the interpreter's
handler (core/isa/native/handover.py); interpreter only (a kernel using it runs wholly on the
interpreter); or missing. (A DS instruction on GDS is a callout whatever its opcode's row
says.) The native tier translates the code of every target the engine serves
(core.isa.targets), so the column means the same on each.
"""
import io
import json
import os

from elftools.elf.elffile import ELFFile

from core.isa import targets
from core.isa.decoder import decode_all

STATUSES = ("tested", "implemented", "missing")
CALLOUT = "translated (interpreter callout)"
TIERS = ("translated", CALLOUT, "interpreter only", "missing")


def opcodes(target="gfx1030"):
    """(encoding, opcode, mnemonic) for every opcode of `target`."""
    for encoding, table in sorted(targets.get(target).opcodes.TABLES.items()):
        for opcode, entry in sorted(table.items()):
            yield encoding, opcode, entry["name"]


def _operation(mnemonic, target):
    """The engine's name of the operation an opcode of `target` performs."""
    if mnemonic.startswith("v_dual_"):
        mnemonic = "v_" + mnemonic.removeprefix("v_dual_")
    return targets.semantic_name(mnemonic, target)


def mnemonics_in(path, target="gfx1030"):
    with open(path, "rb") as f:
        elf = ELFFile(io.BytesIO(f.read()))
    text = elf.get_section_by_name(".text")
    if text is None:
        return set()
    found = set()
    wave64 = targets.get(target).wave_sizes == (64,)
    for inst in decode_all(text.data(), text["sh_addr"], wave64, target):
        found.add(inst.mnemonic)
        found.update(half.mnemonic for half in inst.halves)
    return found


# {target: sorted mnemonics of the test suite's kernels}: written by tests/support/coverage.py.
COVERAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coverage.json")


def coverage_of(paths, target="gfx1030"):
    """Mnemonics in the code object files `paths`, decoded for `target`."""
    covered = set()
    for path in paths:
        covered |= mnemonics_in(path, target)
    return covered


def shipped_coverage(target="gfx1030"):
    """Mnemonics in the test suite's kernels for `target`, as the package ships them."""
    with open(COVERAGE) as f:
        return set(json.load(f).get(target, ()))


def classify(executable, covered, target="gfx1030", translated=frozenset(), handed_over=frozenset()):
    rows = []
    for encoding, opcode, mnemonic in opcodes(target):
        operation = _operation(mnemonic, target)
        runs = operation in executable
        status = "missing" if not runs else "tested" if mnemonic in covered else "implemented"
        native = ("translated" if operation in translated
                  else CALLOUT if operation in handed_over
                  else "interpreter only" if runs else "missing")
        rows.append({"encoding": encoding, "opcode": opcode, "mnemonic": mnemonic, "status": status,
                     "native": native})
    return rows
