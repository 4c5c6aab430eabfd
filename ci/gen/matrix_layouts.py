"""Generate tests/isa/matrix_layouts.json: where AMD's matrix instruction calculator puts each
element of each MFMA/WMMA instruction's A, B and D matrices (and of a sparse one's index
matrix K), per architecture and wave size, as facts tests/isa/test_matrix_layouts.py holds
the engine's layouts to (sparse: CDNA3's SMFMAC, RDNA4's SWMMAC).

The calculator is AMD's own tool (github.com/ROCm/amd_matrix_instruction_calculator, which
needs `tabulate`); this script imports it from the folder given and asks it, element by
element, for the register and lanes that hold the element. Each layout is stored as the
SHA-256 of its canonical text (one "register:low bit:lanes" line per element, in block, row,
column order; a sparse A's index matrix under "index"), with each instruction's shape; a few
gfx12 layouts the tests place data by are stored whole, as those lines.

Deterministic: the calculator's answers depend only on the instruction and wave size.
Run: python3 ci/gen/matrix_layouts.py CALCULATOR_DIR [output]
"""
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUTPUT = os.path.join(ROOT, "tests", "isa", "matrix_layouts.json")
# The architectures whose instructions SoftGPU's targets run (gfx90a, gfx942, gfx1100, gfx12).
ARCHES = ("cdna2", "cdna3", "rdna3", "rdna4")
# The layouts stored whole, for the tests that place data by AMD's layout.
WHOLE = {("cdna3", "v_smfmac_f32_16x16x32_f16"), ("rdna4", "v_wmma_f16_16x16x16_f16"), ("rdna4", "v_wmma_f32_16x16x16_f16"),
         ("rdna4", "v_wmma_i32_16x16x32_iu4"), ("rdna4", "v_swmmac_f32_16x16x32_f16"),
         ("rdna4", "v_swmmac_i32_16x16x32_iu8")}
# "v3.[15:8]", "v[5:4]" (a register pair: its low register), "v3"
_REGISTER = re.compile(r"^v(?:\[\d+:)?(\d+)\]?(?:\.\[\d+:(\d+)\])?$")
BITS = {"fp64": 64, "fp32": 32, "xf32": 32, "int32": 32, "fp16": 16, "bf16": 16, "int8": 8,
        "iu8": 8, "amd_fp8": 8, "amd_bf8": 8, "fp8": 8, "bf8": 8, "iu4": 4}


def locate(calc, matrix, i, j, k, block):
    """(register, low bit, lanes) of one element, as the calculator answers."""
    _, register, lanes = calc._get_reg_lanes(matrix, i, j, k, block, 0, 0, 0, 0)
    m = _REGISTER.match(register.strip())
    if not m:
        raise ValueError(f"unreadable register {register!r}")
    return int(m.group(1)), int(m.group(2) or 0), sorted(int(lane) for lane in lanes)


def elements(info, matrix):
    """(i, j, k, block) of every element of a matrix, in canonical order."""
    rows = info["n"] if matrix == "b" else info["m"]
    inner = info["n"] if matrix == "d" else info["k"]
    for block in range(info["blocks"]):
        for r in range(rows):
            for c in range(inner):
                yield {"a": (r, 0, c), "k": (r, 0, c), "b": (0, r, c), "d": (r, c, 0)}[matrix] + (block,)


def canonical(places):
    return "\n".join(f"{reg}:{bit}:{','.join(map(str, lanes))}" for reg, bit, lanes in places)


def main():
    sys.path.insert(0, sys.argv[1])
    import matrix_calculator as calculator
    out = {"source": "ROCm/amd_matrix_instruction_calculator " + calculator.VERSION, "layouts": {}}
    for arch in ARCHES:
        for name, info in sorted(calculator.dict_insts[arch].items()):
            waves = (64,) if arch.startswith("cdna") else (32, 64)
            for wave in waves:
                kind = (calculator.InstCalcGfx9 if arch.startswith("cdna") else
                        calculator.InstCalcGfx11 if arch == "rdna3" else calculator.InstCalcGfx12)
                calc = kind(name, info, wave)
                entry = {"m": info["m"], "n": info["n"], "k": info["k"], "blocks": info["blocks"],
                         "in_bits": BITS[info["in_type"]], "out_bits": BITS[info["out_type"]]}
                entry["sparse"] = bool(info.get("sparse"))
                for matrix in ("a", "b", "d") + (("k",) if entry["sparse"] else ()):
                    text = canonical(locate(calc, matrix, *e) for e in elements(info, matrix))
                    key = "index" if matrix == "k" else matrix      # "k" is the shape's K
                    entry[key] = hashlib.sha256(text.encode()).hexdigest()
                    if (arch, name) in WHOLE:
                        entry[key + "_places"] = text.split("\n")
                out["layouts"][f"{arch} {name} wave{wave}"] = entry
    with open(sys.argv[2] if len(sys.argv) > 2 else OUTPUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
