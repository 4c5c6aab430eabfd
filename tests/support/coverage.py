"""The test suite's opcode coverage that `softgpu isa-report` ships (core/isa/coverage.json).

`python3 -m tests.support.coverage` rewrites the file from the suite's builds of every
target (built if not cached); tests/isa/test_isa_report.py fails while it is out of date.
"""
import json

from core.isa import report


def suite_coverage(target="gfx1030"):
    """Mnemonics in the kernel suite's code objects for `target`."""
    from tests.kernels.suite import code_objects
    return report.coverage_of(code_objects(target), target)


def coverage_file_text():
    from tests.kernels.suite import TARGETS     # the targets clang-15 builds the suite for
    return json.dumps({t: sorted(suite_coverage(t)) for t in sorted(TARGETS)}, indent=1) + "\n"


if __name__ == "__main__":
    with open(report.COVERAGE, "w") as f:
        f.write(coverage_file_text())
    print(f"wrote {report.COVERAGE}")
