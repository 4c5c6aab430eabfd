"""Check the product code's imports against its layers; print what breaks them, exit 1 if any.

Holds these rules, over every import of the product's Python files (at module level or
inside a function alike; tests are no product code) and every quoted #include of its C files:
- an import never runs from a lower layer to a higher one (LAYERS, bottom first); a C file's
  layer is its folder's (core/isa/native/runner.c is the native tier's), and an include is
  found as the build finds it: beside the including file, then in C_INCLUDE_DIRS;
- no product module imports the tests (TEST_RUNNERS run them, and may);
- the native tier takes no private (underscore) name of the interpreter: what both tiers
  share is a record in core/isa/semantics.

Run: python3 ci/check_layers.py
"""
import ast
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = ("core", "softgpu_shim", "benchmarks", "ci", "examples", "build_shim.py")
# The benchmarks that time the kernel suite's own kernels (cold start; translation over the
# suite's largest kernels): the suite's list of cases is their workload.
TEST_RUNNERS = ("benchmarks.cold_start", "benchmarks.native_bench")
# Where build_shim.py's compiler looks for a quoted include besides the including file's folder.
C_INCLUDE_DIRS = ("softgpu_shim/include", "softgpu_shim", "core/isa/native")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# Bottom first. A module belongs to the layer of the longest prefix that names it.
LAYERS = (
    ("base", ("core.errors", "core.hsa_abi", "core.hsa_enums", "core.settings", "core.profile_files",
              "core.location", "core.target", "core.toolchain", "core.handles", "core.stats",
              "core.timeline", "core.host_cpu", "core.trace", "core.progress", "core.native",
              "core.disk_cache")),
    ("isa", ("core.isa",)),                       # decoder, semantics records, targets, plan
    ("interp", ("core.isa.interp",)),             # the oracle
    ("native", ("core.isa.native",)),             # may call the interpreter's handlers
    ("engine", ("core.isa.launch", "core.isa.report", "core.isa.tiering")),   # chooses a tier
    ("loader", ("core.loader",)),
    ("runtime", ("core",)),
    ("edge", ("softgpu_shim",)),
    ("tools", ("core.cli", "benchmarks", "ci", "examples", "build_shim")),
)


def layer_of(module):
    best = None
    for rank, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                    best is None or len(prefix) > len(best[2])):
                best = (rank, name, prefix)
    return best


def product_modules(root):
    """{module name: path} of every product Python file under `root`."""
    modules = {}
    for top in PRODUCT:
        path = os.path.join(root, top)
        if not os.path.exists(path):
            continue
        walk = [(os.path.dirname(path), [], [top])] if top.endswith(".py") else os.walk(path)
        for folder, dirs, files in walk:
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for file in files:
                if file.endswith(".py"):
                    full = os.path.join(folder, file)
                    parts = os.path.relpath(full, root)[:-3].split(os.sep)
                    if parts[-1] == "__init__":
                        parts.pop()
                    modules[".".join(parts)] = full
    return modules


def c_sources(root):
    """{path relative to root: the module name of its folder} of every product C file."""
    found = {}
    for top in ("core", "softgpu_shim"):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for file in files:
                if file.endswith((".c", ".h")):
                    relative = os.path.relpath(os.path.join(folder, file), root)
                    found[relative] = os.path.dirname(relative).replace(os.sep, ".")
    return found


def includes(root, path):
    """(line, path relative to root) of every quoted include of `path` the build resolves."""
    with open(os.path.join(root, path)) as f:
        text = f.read()
    for match in INCLUDE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        for folder in (os.path.dirname(path), *C_INCLUDE_DIRS):
            candidate = os.path.normpath(os.path.join(folder, match.group(1)))
            if os.path.exists(os.path.join(root, candidate)):
                yield line, candidate
                break


def imports(module, path):
    """(line, imported module, names taken) of every import in the file, made absolute."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            yield node.lineno, base, tuple(alias.name for alias in node.names)


def problems(root=ROOT):
    """One line a broken rule: file:line and what it imports."""
    modules = product_modules(root)
    found = []
    for module, path in sorted(modules.items()):
        here = layer_of(module)
        where = os.path.relpath(path, root)
        for line, target, names in imports(module, path):
            if (target == "tests" or target.startswith("tests.")) and module not in TEST_RUNNERS:
                found.append(f"{where}:{line}: imports the tests ({target})")
                continue
            # `from core import signals` names the module core.signals.
            targets = [f"{target}.{name}" for name in names if f"{target}.{name}" in modules] or [target]
            for name in targets:
                there = layer_of(name)
                if here and there and there[0] > here[0]:
                    found.append(f"{where}:{line}: {here[1]} imports {name} of the higher layer {there[1]}")
            if here and here[1] == "native" and layer_of(target) and layer_of(target)[1] == "interp":
                private = [name for name in names if name.startswith("_")]
                if private:
                    found.append(f"{where}:{line}: the native tier takes private {', '.join(private)} of {target}")
    sources = c_sources(root)
    for path, module in sorted(sources.items()):
        here = layer_of(module)
        for line, target in includes(root, path):
            there = layer_of(sources.get(target, ""))
            if here and there and there[0] > here[0]:
                found.append(f"{path}:{line}: {here[1]} includes {target} of the higher layer {there[1]}")
    return found


def main():
    found = problems()
    for problem in found:
        print(problem)
    print(f"{len(found)} import(s) against the layers")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
