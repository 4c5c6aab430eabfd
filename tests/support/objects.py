"""Code objects of the shapes today's ROCm ships, made by real tools, cached like
tests.support.kernels:

- `linked_kernels(sources, mcpu)`: Tensile's way — each OpenCL source compiled to assembly
  by clang-15, assembled to its own object (one NT_AMDGPU_METADATA note each), and all linked
  by ld.lld-15 into one code object that carries one note per source;
- `llvm_kernel(ir, cpu, version)`: LLVM IR compiled by llvmlite's LLVM (which knows code
  object v6 and the generic targets clang-15 does not) and linked by ld.lld-19 (Debian 12's
  lld that reads v6 objects; ci/setup.sh installs it).
"""
import os
import subprocess
import tempfile

from core.toolchain import CompileError, _cached, _source_text, opencl_flags
from tests.support.kernels import _located

LLD_V6 = "ld.lld-19"


def _run(command, **kw):
    done = subprocess.run(command, capture_output=True, **kw)
    if done.returncode:
        raise CompileError(f"{' '.join(command)} failed:\n{done.stderr.decode()}")
    return done


def linked_kernels(sources, mcpu="gfx1030"):
    """Path of one code object linking each source's separately assembled object."""
    texts = [_source_text(_located(s)) for s in sources]

    def build(out):
        with tempfile.TemporaryDirectory() as tmp:
            objects = []
            for n, text in enumerate(texts):
                asm, obj = os.path.join(tmp, f"k{n}.s"), os.path.join(tmp, f"k{n}.o")
                _run(["clang-15", *opencl_flags(mcpu), "-S", "-o", asm, "-"], input=text.encode())
                _run(["clang-15", "-x", "assembler", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}",
                      "-mcode-object-version=4", "-c", "-o", obj, asm])
                objects.append(obj)
            _run(["ld.lld-15", "-shared", "-o", out, *objects])
    return _cached(["linked", mcpu, *texts], build)


def llvm_kernel(ir, cpu, version=6):
    """Path of the code object llvmlite's LLVM makes of `ir` for `cpu` at code object `version`."""
    text = ir + f'\n!llvm.module.flags = !{{!0}}\n!0 = !{{i32 1, !"amdhsa_code_object_version", i32 {version * 100}}}\n'

    def build(out):
        import llvmlite.binding as llvm
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        module = llvm.parse_assembly(text)
        module.verify()
        machine = llvm.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu=cpu, opt=2, reloc="pic")
        with tempfile.TemporaryDirectory() as tmp:
            obj = os.path.join(tmp, "k.o")
            with open(obj, "wb") as f:
                f.write(machine.emit_object(module))
            _run([LLD_V6, "-shared", "-o", out, obj])
    return _cached(["llvm", cpu, str(version), text], build)
