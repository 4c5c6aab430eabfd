"""The product's imports keep its layers (ci/check_layers.py): the engine and the loader import
nothing of the runtime or the ABI edge, no product module imports the tests, and the native
tier takes no private name of the interpreter."""
import importlib.util
import os

import pytest

from tests.support.paths import ROOT


def _check():
    spec = importlib.util.spec_from_file_location("check_layers", os.path.join(ROOT, "ci", "check_layers.py"))
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    return check


def test_the_tree_keeps_its_layers():
    assert _check().problems() == []


def _tree(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


BASE = {"core/__init__.py": "", "core/isa/__init__.py": "", "core/isa/interp/__init__.py": "",
        "core/isa/native/__init__.py": "", "core/signals.py": "", "core/errors.py": "",
        "core/isa/interp/lanes.py": "", "softgpu_shim/__init__.py": "", "softgpu_shim/glue.py": "",
        "softgpu_shim/shim.h": "", "core/isa/native/runner.h": ""}


@pytest.mark.parametrize("module, text, broken", [
    # Down the layers, or within one: allowed.
    ("core/queues.py", "from core.isa import interp\nfrom core import errors\n", False),
    ("core/isa/interp/control.py", "from core import errors\n", False),
    ("core/isa/native/handover.py", "from core.isa.interp.lanes import plan\n", False),
    ("softgpu_shim/api.py", "from core import signals\n", False),
    # Back up: the engine reaching the runtime or the edge, at module level or in a function.
    ("core/isa/interp/control.py", "from core import signals\n", True),
    ("core/isa/interp/control.py", "def f():\n    from core import signals\n", True),
    ("core/isa/faults.py", "import softgpu_shim.glue\n", True),
    ("core/errors.py", "from softgpu_shim import glue\n", True),
    # The oracle below the native tier.
    ("core/isa/interp/lanes2.py", "from core.isa.native import lanes\n", True),
    # Product code importing the tests.
    ("benchmarks/bench.py", "from tests.support.launch import launch\n", True),
    ("core/harness.py", "import tests.kernels\n", True),
    # A private name of the interpreter in the native tier.
    ("core/isa/native/lanes.py", "from core.isa.interp.lanes import _dpp8_plan\n", True),
    # C includes, found as the build finds them (beside the file, then its include folders):
    # the edge includes the runner's header; the runner includes nothing of the edge.
    ("softgpu_shim/processor.c", '#include "shim.h"\n#include "runner.h"\n', False),
    ("core/isa/native/runner.c", '#include <stdint.h>\n#include "runner.h"\n', False),
    ("core/isa/native/runner.c", '#include "runner.h"\n  #  include "shim.h"\n', True),
])
def test_a_rule_is_broken_exactly_when_an_import_runs_against_it(tmp_path, module, text, broken):
    root = _tree(tmp_path, {**BASE, module: text})
    found = _check().problems(root)
    assert bool(found) == broken, found
    if broken:
        assert found[0].startswith(module + ":")
