"""What the tests of clang-21's builds (the ROCm 6.4 root's compiler) share across targets: the
suite's references as clang-21 and ROCm 6.4's device libraries compute them, a build of a kernel
source, the decoder read against llvm-objdump-21, `isa-report`'s verdict over builds, and a suite
case run on a board's interpreter and native tier with the differential comparison."""
import os
import re

from elftools.elf.elffile import ELFFile

from core.isa.decoder import decode_all
from core.isa.disasm import format_instruction
from core.isa.report import classify, coverage_of
from tests.isa.test_decoder_kernels import OWN_KERNELS
from tests.kernels.checks import c_round
from tests.support import rocm64
from tests.support.differential import assert_same_run, order_dependent, run_on
from tests.support.kernels import KERNELS
from tests.support.suite_run import output_buffers

LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}):")


def _float_round_by_llvm21(args, expected):
    """clang-21 lowers round() as C defines it (clang-15 turned round(-0.25) into +0.0)."""
    expected[1][:, 2] = c_round(args[0])


def _rounding_signs_by_llvm21(args, expected):
    expected[3][:, 4] = c_round(args[0])
    expected[4][:, 4] = c_round(args[1])


def _double_convert_by_llvm21(args, expected):
    expected[4][:, 3] = c_round(args[0])


def _local_linear_id_by_llvm21(args, expected):
    """ROCm 6.4's device libraries compute get_local_linear_id from the actual local sizes, as
    the OpenCL spec says (ROCm 5.2's took the packet's sizes, also in partial groups); the
    columns of ndrange_2d/ndrange_3d (tests/kernels/suite.py) give the ids and sizes."""
    table = expected[0]
    if table.shape[1] == 12:        # ndrange_2d: per dimension lid, group, size, ...; col 5 adds the id
        lid0, size0, lid1 = table[:, 0], table[:, 2], table[:, 6]
        table[:, 5] = table[:, 5] % 1000 + 1000 * (lid1 * size0 + lid0)
    else:                           # ndrange_3d: lid + 100 * group, size + 100 * enqueued, ...
        lid, size = table[:, 0:9:3] % 100, table[:, 1:9:3] % 100
        table[:, 9] = (lid[:, 2] * size[:, 1] + lid[:, 1]) * size[:, 0] + lid[:, 0] + 3000


# The suite's references that follow clang-15's lowering or ROCm 5.2's device libraries, as
# clang-21 builds with ROCm 6.4's compute them (the same builds run right on both tiers).
CLANG21_REFERENCES = {"float_round": _float_round_by_llvm21,
                      "rounding_signs": _rounding_signs_by_llvm21,
                      "double_convert": _double_convert_by_llvm21,
                      "ndrange_2d": _local_linear_id_by_llvm21,
                      "ndrange_3d": _local_linear_id_by_llvm21}


def source_path(tmp_path, source):
    """The path of a kernel source: tests/kernels', or one of OWN_KERNELS written out."""
    if source not in OWN_KERNELS:
        return os.path.join(KERNELS, source)
    path = str(tmp_path / source)
    with open(path, "w") as f:
        f.write(OWN_KERNELS[source])
    return path


def build(target, path, opt, *extra):
    """clang-21's code object (v5) of the source for the target."""
    return rocm64.clang21(path, target, opt, "-mcode-object-version=5", *extra,
                          hip=path.endswith(".hip"))


def misread(built, target, wave64):
    """[(address, llvm-objdump-21's text, the decoder's)] of every instruction the decoder reads
    otherwise than llvm-objdump-21 does (reading VCC and masks as wave64 or wave32 code has
    them); an address only one of them has counts too."""
    with open(built, "rb") as f:
        text = ELFFile(f).get_section_by_name(".text")
        code, base = text.data(), text["sh_addr"]
    expected = {int(m.group(2), 16): m.group(1)
                for m in map(LINE.match, rocm64.objdump(built, target).splitlines()) if m}
    decoded = {i.address: format_instruction(i) for i in decode_all(code, base, wave64, target)}
    return [(hex(a), expected.get(a), decoded.get(a)) for a in sorted(expected.keys() | decoded.keys())
            if decoded.get(a) != expected.get(a)]


def isa_report_gaps(paths, target):
    """(how many opcodes the builds emit, the `isa-report --target` rows of those not tested on
    the interpreter or missing on the native tier)."""
    from core.isa.interp.handlers import implemented
    from core.isa.native.routing import handed_over, translated
    covered = coverage_of(paths, target)
    rows = classify(implemented(), covered, target, translated(), handed_over())
    emitted = [r for r in rows if r["mnemonic"] in covered]
    return len(emitted), [r for r in emitted if r["status"] != "tested" or r["native"] == "missing"]


def run_case_on_both_tiers(session, target, case, opt, wave, tiers, not_translated=None,
                           reference=None):
    """Runs the suite case's clang-21 build on the session's board of the target: the
    interpreter's results match numpy; with tiers == "both" the native tier's do too and are
    the interpreter's bit for bit (unless the case's results depend on the order of atomics).
    not_translated names the instruction the native tier is declared to leave to the
    interpreter, which must be why it did; reference(args, expected) corrects the case's
    numpy reference for the target."""
    path = build(target, os.path.join(KERNELS, case.source), opt, *case.extra)
    args, expected = case.inputs(wave)
    if case.name in CLANG21_REFERENCES:
        CLANG21_REFERENCES[case.name](args, expected)
    if reference is not None:
        reference(args, expected)
    oracle, oracle_stats, _ = run_on(session, case, path, wave, "interp")
    case.check(expected, output_buffers(path, case, oracle))
    if tiers == "interp":
        return
    native, native_stats, fallback = run_on(session, case, path, wave, "native")
    if not_translated:
        assert fallback is not None and not_translated in fallback.reason, "translated now: undeclare it"
    else:
        assert fallback is None, f"the native tier left it to the interpreter: {fallback.reason}"
    case.check(expected, output_buffers(path, case, native))
    if not order_dependent(case, wave):
        assert_same_run(path, target, native, native_stats, oracle, oracle_stats)
