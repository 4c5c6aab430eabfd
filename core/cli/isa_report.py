"""`softgpu isa-report [--target T] [CODE_OBJECT ...]`: every opcode of a target and what
SoftGPU does with it (core.isa.report says what each status means).

The evidence for "tested" is the test suite's kernels as the package ships them, or the
code objects given (a file that cannot be read or decoded ends the command with one line
naming it and exit status 1).
"""
import collections
import json
import sys

from elftools.common.exceptions import ELFError

from core.cli import Refused, command
from core.isa.decoder import DecodeError
from core.isa import report, targets


@command("isa-report", help="list every opcode of a target: tested, implemented, or missing")
def declare(parser):
    parser.add_argument("--target", choices=sorted(targets.TARGETS), default=targets.DEFAULT.name,
                        help="the processor whose opcodes to list (default %(default)s)")
    parser.add_argument("--json", action="store_true", help="one JSON object per opcode")
    parser.add_argument("--status", choices=report.STATUSES, help="list only opcodes with this status")
    parser.add_argument("code_objects", nargs="*", metavar="CODE_OBJECT",
                        help="count as tested what these code objects hold (default: the test suite's kernels)")
    return run


def run(args):
    from core.isa.interp.handlers import implemented
    from core.isa.native.routing import handed_over, translated
    covered = set() if args.code_objects else report.shipped_coverage(args.target)
    for path in args.code_objects:
        try:
            covered |= report.coverage_of([path], args.target)
        except OSError as error:
            raise Refused(f"{path}: {error.strerror}") from None
        except (ELFError, DecodeError) as error:
            raise Refused(f"{path}: not an AMDGPU code object of {args.target}: {error}") from None
    rows = report.classify(implemented(), covered, args.target, translated(), handed_over())
    shown = [r for r in rows if args.status in (None, r["status"])]
    for row in shown:
        print(json.dumps(row) if args.json else
              f"{row['encoding']:8} {row['opcode']:4} {row['mnemonic']:36} {row['status']:12} {row['native']}")
    # The summary goes to stderr, so stdout stays one row per opcode in both formats.
    totals = collections.Counter(r["status"] for r in rows)
    by_family = collections.defaultdict(collections.Counter)
    for r in rows:
        by_family[r["encoding"]][r["status"]] += 1
    print(f"\n{args.target}: {len(rows)} opcodes: " +
          ", ".join(f"{totals[s]} {s}" for s in report.STATUSES), file=sys.stderr)
    tiers = collections.Counter(r["native"] for r in rows)
    print("native tier: " + ", ".join(f"{tiers[t]} {t}" for t in report.TIERS), file=sys.stderr)
    for family, counts in sorted(by_family.items()):
        print(f"  {family:8} " + ", ".join(f"{counts[s]} {s}" for s in report.STATUSES), file=sys.stderr)
    return 0
