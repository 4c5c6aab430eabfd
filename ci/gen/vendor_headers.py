"""Generate softgpu_shim/include/hsa/*.h: the ABI facts of ROCr's headers, in our own words.

Guarantees: every generated header declares what its ROCr namesake declares on LP64 Linux with
gcc or clang -- typedefs, structs and unions (with their alignment), enums with their values,
function prototypes (no function bodies), and the object-like #define constants whose bodies are numbers, strings,
casts or other such constants -- and nothing else: the declarations are re-emitted from
pycparser's syntax tree by its C generator, so no comment, license text, formatting or
function-like macro of the source survives. Each header includes the same sibling and C
library headers as its namesake, keeps its include guard, and declares C linkage for C++.
The output depends only on the source headers and the source label: a rerun is byte-identical.

Run (the source: a directory holding ROCr's hsa.h..., or a git repository of ROCr):
    python3 ci/gen/vendor_headers.py --git /work/.mirror/ROCm+rocm-systems/repo
    python3 ci/gen/vendor_headers.py DIR --source "ROCr 6.4.3"
    ... --check    compare with the vendored files instead of writing them (exit 1 on a difference)
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

from pycparser import c_ast, c_generator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hsa_headers import HEADERS, header_of, parse, preprocess  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "softgpu_shim", "include", "hsa")
# Where ROCr keeps its public headers in ROCm/rocm-systems.
GIT_INC = "projects/rocr-runtime/runtime/hsa-runtime/inc"

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(?![\w(])", re.M)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([\w./]+)[>"]', re.M)
_GUARD = re.compile(r"^[ \t]*#[ \t]*ifndef[ \t]+(\w+)[ \t]*\n[ \t]*#[ \t]*define[ \t]+\1\b", re.M)
_TOKEN = re.compile(r'\s*(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|"[^"\\]*"|<<|>>|[-+*/%&|^~()!<>?:,])')
_ALIGNED = re.compile(r"struct\s+__attribute__\s*\(\(\s*aligned\s*\(\s*(\d+)\s*\)\s*\)\)\s*(\w+)"
                      r"|__attribute__\s*\(\(\s*aligned\s*\(\s*(\d+)\s*\)\s*\)\)\s*struct\s+(\w+)")
_C_TYPE_WORDS = {"unsigned", "signed", "char", "short", "int", "long"}


def _tokens(body):
    """The tokens of a macro body, or None when it holds anything but constant syntax."""
    tokens, at = [], 0
    body = body.strip()
    while at < len(body):
        match = _TOKEN.match(body, at)
        if not match:
            return None
        tokens.append(match.group(1))
        at = match.end()
    return tokens


def _spell(tokens):
    """Tokens joined in one fixed spelling: no space inside parentheses, one elsewhere."""
    text = ""
    for i, token in enumerate(tokens):
        if i and tokens[i - 1] not in ("(", "~", "!") and token != ")":
            text += " "
        text += token
    return text


def _constants(include, ast, sources):
    """{header: [(name, body)]}: the object-like constants of each header, in source order."""
    defined = {}
    for line in preprocess(include, macros=True).splitlines():
        match = re.match(r"#define (\w+) (.*)$", line)
        if match:
            defined[match.group(1)] = match.group(2)
    names = set(_C_TYPE_WORDS)
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef):
            names.add(node.name)
    names |= {e.name for e in _walk(ast) if isinstance(e, c_ast.Enumerator)}
    candidates = {}
    guards = {match.group(1) for text in sources.values() for match in [_GUARD.search(text)] if match}
    for header, text in sources.items():
        for name in _DEFINE.findall(text):
            if name in defined and not name.startswith("__") and name not in candidates \
                    and name not in guards:
                # Empty bodies too: markers such as HSA_LARGE_MODEL or hsa_ext_images_1_00.
                tokens = _tokens(defined[name])
                if tokens is not None:
                    candidates[name] = (header, tokens)
    # A constant may name other constants: keep those whose every name is known, to a fixpoint.
    kept = {}
    while True:
        more = {n: c for n, c in candidates.items() if n not in kept and all(
            not re.match(r"[A-Za-z_]", t) or t in names or t in kept for t in c[1])}
        if not more:
            break
        kept.update(more)
    out = {header: [] for header in sources}
    for header, text in sources.items():
        for name in _DEFINE.findall(text):
            if name in kept and kept[name][0] == header and (name, _spell(kept[name][1])) not in out[header]:
                out[header].append((name, _spell(kept[name][1])))
    return out


def _walk(node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


def generate(source_dir, label):
    """{file name: text} of the generated headers, from ROCr's headers in `source_dir`."""
    with tempfile.TemporaryDirectory() as include:
        os.mkdir(os.path.join(include, "hsa"))
        sources = {}
        for path in HEADERS:
            name = os.path.basename(path)
            with open(os.path.join(source_dir, name)) as f:
                sources[name] = f.read()
            with open(os.path.join(include, "hsa", name), "w") as f:
                f.write(sources[name])
        ast = parse(include)
        aligned = {}
        for match in _ALIGNED.finditer(preprocess(include, attributes=True)):
            aligned[match.group(2) or match.group(4)] = match.group(1) or match.group(3)
        constants = _constants(include, ast, sources)
    nodes = {name: [] for name in sources}
    for node in ast.ext:
        header = header_of(node)
        # Function bodies (hsa_ext_amd.h's inline flag helpers) are code, not ABI facts.
        if header in nodes and not isinstance(node, c_ast.FuncDef):
            nodes[header].append(node)
    return {name: _header(name, sources[name], nodes[name], constants[name], aligned, label)
            for name in sources}


def _header(name, source, nodes, constants, aligned, label):
    guard = _GUARD.search(source)
    guard = guard.group(1) if guard else "SOFTGPU_GENERATED_" + re.sub(r"\W", "_", name.upper())
    lines = [f"/* Generated by ci/gen/vendor_headers.py: the ABI facts of ROCr's {name} ({label}).",
             "   Do not edit; regenerate. */",
             f"#ifndef {guard}", f"#define {guard}", ""]
    for quote, included in _INCLUDE.findall(source):
        lines.append(f"#include <{included}>" if quote == "<" else f'#include "{included}"')
    lines.append("")
    lines += [f"#define {n} {body}".rstrip() for n, body in constants]
    lines += ["", "#ifdef __cplusplus", 'extern "C" {', "#endif", ""]
    text = c_generator.CGenerator().visit(c_ast.FileAST(nodes))
    for tag, alignment in sorted(aligned.items()):
        # The syntax tree drops attributes; alignment is layout, so it is put back.
        text = re.sub(rf"\bstruct {tag}(\s*\{{)", rf"struct __attribute__((aligned({alignment}))) {tag}\1", text)
    lines += [text.rstrip("\n"), "", "#ifdef __cplusplus", "}", "#endif", "#endif", ""]
    return "\n".join(lines)


def _from_git(repo, rev, into):
    commit = subprocess.run(["git", "-C", repo, "rev-parse", rev], capture_output=True, text=True,
                            check=True).stdout.strip()
    for path in HEADERS:
        name = os.path.basename(path)
        text = subprocess.run(["git", "-C", repo, "show", f"{commit}:{GIT_INC}/{name}"],
                              capture_output=True, check=True).stdout
        with open(os.path.join(into, name), "wb") as f:
            f.write(text)
    return f"ROCm/rocm-systems {commit}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source_dir", nargs="?", help="a directory holding ROCr's hsa.h, hsa_ext_amd.h, ...")
    ap.add_argument("--git", help="a git repository of ROCm/rocm-systems (headers under " + GIT_INC + ")")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--source", help="how the banner names the source (default: the commit)")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--check", action="store_true", help="compare with --out instead of writing")
    args = ap.parse_args(argv)
    if bool(args.git) == bool(args.source_dir):
        ap.error("give either a source directory or --git REPO")
    with tempfile.TemporaryDirectory() as tmp:
        if args.git:
            label = _from_git(args.git, args.rev, tmp)
            source_dir = tmp
        else:
            source_dir = args.source_dir
            label = os.path.abspath(source_dir)
        files = generate(source_dir, args.source or label)
    differ = []
    for name, text in sorted(files.items()):
        path = os.path.join(args.out, name)
        if args.check:
            try:
                with open(path) as f:
                    if f.read() != text:
                        differ.append(name)
            except FileNotFoundError:
                differ.append(name)
        else:
            with open(path, "w") as f:
                f.write(text)
    if differ:
        print("differs from the generator's output: " + ", ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
