"""`softgpu isa-report`: every gfx1030 opcode and what SoftGPU does with it.

Each opcode of the generated tables (core/isa/opcodes_gfx1030.py) is one of:
- tested: the engine executes it, and it occurs in a kernel the test suite runs and
  checks against numpy (tests/kernels, every -O0/-O2, wave32/wave64 build);
- implemented: the engine executes it, but no suite kernel contains it;
- missing: it faults as ILLEGAL_INSTRUCTION, naming itself.
Coverage is static (the suite's code objects, decoded), so "tested" means "in a checked
kernel", not "on every path of it". A second column says what the native tier does with it:
translated (to native code), interpreter only (a kernel using it runs on the interpreter),
or missing.
"""
import collections
import io
import json
import sys

from elftools.elf.elffile import ELFFile

from core.cli import command
from core.isa.decoder import decode_all
from core.isa.interp.registry import implemented
from core.isa.opcodes_gfx1030 import TABLES

STATUSES = ("tested", "implemented", "missing")
TIERS = ("translated", "interpreter only", "missing")


def opcodes():
    """(encoding, opcode, mnemonic) for every gfx1030 opcode."""
    for encoding, table in sorted(TABLES.items()):
        for opcode, entry in sorted(table.items()):
            yield encoding, opcode, entry["name"]


def mnemonics_in(path):
    with open(path, "rb") as f:
        elf = ELFFile(io.BytesIO(f.read()))
        text = elf.get_section_by_name(".text")
        if text is None:
            return set()
        return {inst.mnemonic for inst in decode_all(text.data(), text["sh_addr"])}


def suite_coverage():
    """Mnemonics in the kernel suite's code objects (built with clang-15 if not cached)."""
    from tests.kernels.suite import code_objects   # the checkout's test suite
    covered = set()
    for path in code_objects():
        covered |= mnemonics_in(path)
    return covered


def classify(executable, covered, translated=frozenset()):
    rows = []
    for encoding, opcode, mnemonic in opcodes():
        status = ("missing" if mnemonic not in executable
                  else "tested" if mnemonic in covered else "implemented")
        native = ("translated" if mnemonic in translated
                  else "interpreter only" if mnemonic in executable else "missing")
        rows.append({"encoding": encoding, "opcode": opcode, "mnemonic": mnemonic, "status": status,
                     "native": native})
    return rows


@command("isa-report", help="list every gfx1030 opcode: tested, implemented, or missing")
def declare(parser):
    parser.add_argument("--json", action="store_true", help="one JSON object per opcode")
    parser.add_argument("--status", choices=STATUSES, help="list only opcodes with this status")
    return run


def run(args):
    from core.isa.native.families import translated
    rows = classify(implemented(), suite_coverage(), translated())
    shown = [r for r in rows if args.status in (None, r["status"])]
    for row in shown:
        print(json.dumps(row) if args.json else
              f"{row['encoding']:8} {row['opcode']:4} {row['mnemonic']:36} {row['status']:12} {row['native']}")
    # The summary goes to stderr, so stdout stays one row per opcode in both formats.
    totals = collections.Counter(r["status"] for r in rows)
    by_family = collections.defaultdict(collections.Counter)
    for r in rows:
        by_family[r["encoding"]][r["status"]] += 1
    print(f"\n{len(rows)} opcodes: " + ", ".join(f"{totals[s]} {s}" for s in STATUSES), file=sys.stderr)
    tiers = collections.Counter(r["native"] for r in rows)
    print("native tier: " + ", ".join(f"{tiers[t]} {t}" for t in TIERS), file=sys.stderr)
    for family, counts in sorted(by_family.items()):
        print(f"  {family:8} " + ", ".join(f"{counts[s]} {s}" for s in STATUSES), file=sys.stderr)
    return 0
