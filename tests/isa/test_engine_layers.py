"""The engine's layers, as its imports show them: the facts about instructions
(core/isa/semantics/) belong to neither tier, and the native tier reaches into the
interpreter (the oracle it is checked against) only to hand instructions over to it and for
the dispatch state it hands over with.

A semantics module importing a tier, or the native tier taking another interpreter module
(its operand plans, lane plans, memory tables), would make the oracle share the code it is
meant to check; each test below names the import that breaks the rule.
"""
import ast
import os

from tests.support.paths import ROOT

ISA = os.path.join(ROOT, "core", "isa")
TIERS = ("core.isa.interp", "core.isa.native")
# What the native tier may take from the interpreter: its handler lookup (callouts), and the
# wave state and dispatch it hands instructions over with.
CALLOUT_MODULES = {"core.isa.interp.registry", "core.isa.interp.handlers", "core.isa.interp.dispatch",
                   "core.isa.interp.state", "core.isa.interp.chunk"}


def _imports(folder):
    """(file, imported module, names taken) for every import of every module under folder."""
    found = []
    for where, _dirs, files in os.walk(folder):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(where, name)
            with open(path) as f:
                tree = ast.parse(f.read(), path)
            rel = os.path.relpath(path, ROOT)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    found.append((rel, node.module, [a.name for a in node.names]))
                elif isinstance(node, ast.Import):
                    found.extend((rel, a.name, []) for a in node.names)
    return found


def _within(module, package):
    return module == package or module.startswith(package + ".")


def test_semantics_imports_neither_tier():
    found = _imports(os.path.join(ISA, "semantics"))
    assert found, "core/isa/semantics has no imports to check: the folder moved?"
    wrong = [(f, m) for f, m, _ in found if any(_within(m, tier) for tier in TIERS)]
    assert wrong == []


def test_native_tier_takes_only_callout_modules_of_the_interpreter():
    found = _imports(os.path.join(ISA, "native"))
    taken = {m for _, m, _ in found if _within(m, "core.isa.interp")}
    assert taken, "the native tier no longer hands anything over: update CALLOUT_MODULES"
    assert taken <= CALLOUT_MODULES, sorted(taken - CALLOUT_MODULES)



def test_native_tier_takes_no_private_name_of_the_interpreter():
    """A private name (`_dim3`, `_dpp16_plan`) is the interpreter's own way of doing a thing:
    a fact both tiers need belongs in core/isa/semantics instead."""
    found = _imports(os.path.join(ISA, "native"))
    private = [(f, m, n) for f, m, names in found if _within(m, "core.isa.interp")
               for n in names if n.startswith("_")]
    assert private == []
