"""A C program that prints the ABI facts of a set of HSA headers, made from their syntax tree.

Guarantees: the program names every struct, union and enum the given headers declare (through
their typedef names or tags) and every function they declare; compiled against any headers
that declare the same names it prints one line per fact -- "size T\\tN", "align T\\tN", for each
member "offset T.m" and "size T.m" (bit-fields: "bits T.m", the bytes its all-ones value
sets), for each enumerator "enum NAME" with its value -- and it restates every function
prototype of the given headers, so headers whose prototypes disagree with them do not
compile. Two builds' outputs compare with `differences`. The program is the same text for
the same headers.

Run: python3 ci/gen/abi_probe.py INCLUDE_DIR > probe.c   (INCLUDE_DIR holds hsa/hsa.h ...)
"""
import os
import sys

from pycparser import c_ast, c_generator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hsa_headers import HEADERS, header_of, parse, tag_of  # noqa: E402


def _record(node):
    """The struct or union a declaration's type defines or names, or None."""
    return tag_of(node, (c_ast.Struct, c_ast.Union))


def _enum(node):
    return tag_of(node, (c_ast.Enum,))


def _members(record, bodies, prefix=""):
    """(designator, "bits" | "flexible" | "plain") of every named member, through anonymous and inline records."""
    decls = record.decls if record.decls is not None else bodies.get(record.name, ())
    for field in decls or ():
        inner = _record(field)
        if field.name is None and inner is not None:
            yield from _members(inner, bodies, prefix)
            continue
        kind = "bits" if field.bitsize is not None else \
            "flexible" if isinstance(field.type, c_ast.ArrayDecl) and field.type.dim is None else "plain"
        yield prefix + field.name, kind
        if inner is not None and inner.name is None:
            yield from _members(inner, bodies, prefix + field.name + ".")


def probes(include, headers=HEADERS):
    """{fact: C statement printing it} for every fact of `headers` under `include`, in
    declaration order; a function's fact ("prototype f") is its restated prototype."""
    headers = [h for h in headers if os.path.exists(os.path.join(include, h))]
    nodes = [node for node in parse(include, headers).ext if header_of(node)]
    # Bodies of tagged records, for typedefs that name a record defined elsewhere.
    bodies = {}
    for node in nodes:
        record = _record(node) if isinstance(node, (c_ast.Decl, c_ast.Typedef)) else None
        if record is not None and record.name and record.decls is not None:
            bodies[record.name] = record.decls
    out, generator = {}, c_generator.CGenerator()
    for node in nodes:
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
            out[f"prototype {node.name}"] = generator.visit(node) + ";"
            continue
        if not isinstance(node, (c_ast.Decl, c_ast.Typedef)):
            continue
        record, enum = _record(node), _enum(node)
        if enum is not None and enum.values is not None:
            for e in enum.values.enumerators:
                out[f"enum {e.name}"] = f'printf("enum {e.name}\\t%lld\\n", (long long){e.name});'
        if isinstance(node, c_ast.Typedef) and (record is not None or enum is not None) \
                and isinstance(node.type, c_ast.TypeDecl):
            name = node.name
        elif (record or enum) is not None and (record or enum).name and node.name is None:
            keyword = "union" if isinstance(record, c_ast.Union) else "enum" if enum else "struct"
            name = f"{keyword} {(record or enum).name}"
        else:
            continue
        if f"size {name}" in out or (record is not None and record.decls is None and record.name not in bodies):
            continue
        out[f"size {name}"] = f'printf("size {name}\\t%zu\\n", sizeof({name}));'
        out[f"align {name}"] = f'printf("align {name}\\t%zu\\n", _Alignof({name}));'
        for member, kind in _members(record, bodies) if record is not None else ():
            label = f"{name}.{member}"
            if kind == "bits":
                out[f"bits {label}"] = (f"{{ {name} v; memset(&v, 0, sizeof v); v.{member} = -1; "
                                        f'bits("bits {label}", (const unsigned char *)&v, sizeof v); }}')
                continue
            out[f"offset {label}"] = f'printf("offset {label}\\t%zu\\n", offsetof({name}, {member}));'
            if kind == "plain":  # a flexible array member has no size
                out[f"size {label}"] = f'printf("size {label}\\t%zu\\n", sizeof((({name} *)0)->{member}));'
    return out


def program(include, headers=HEADERS, only=None):
    """The C source of the probe for `headers` under `include`; with `only`, of those facts."""
    found = probes(include, headers)
    keep = [k for k in found if only is None or k in only]
    out = ["#include <stddef.h>", "#include <stdio.h>", "#include <string.h>"]
    out += [f"#include <{h}>" for h in headers if os.path.exists(os.path.join(include, h))]
    out += ["", "/* The probed headers' prototypes: a disagreeing declaration does not compile. */"]
    out += [found[k] for k in keep if k.startswith("prototype ")]
    out += ["", "static void bits(const char *name, const unsigned char *p, size_t n) {",
            "    printf(\"%s\\t\", name);", "    for (size_t i = 0; i < n; i++) printf(\"%02x\", p[i]);",
            "    printf(\"\\n\");", "}", "", "int main(void) {"]
    out += ["    " + found[k] for k in keep if not k.startswith("prototype ")]
    out += ["    return 0;", "}", ""]
    return "\n".join(out)


def facts(output):
    """{fact: value} of a probe's output."""
    return dict(line.rsplit("\t", 1) for line in output.splitlines() if line)


def differences(expected, actual):
    """The facts of `expected` (a probe's output) that `actual` lacks or states otherwise."""
    want, have = facts(expected), facts(actual)
    return sorted(f"{k}: {v} != {have.get(k)}" for k, v in want.items() if have.get(k) != v)


if __name__ == "__main__":
    sys.stdout.write(program(sys.argv[1]))
