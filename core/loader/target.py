"""Targets: what processor and features a code object was built for, and whether an agent runs it.

Holds two invariants:
- a code object's target comes from its ELF header alone (e_flags machine and feature
  bits, read by the code object version's rules), so it is known before any loading;
- compatibility is ROCr's rule: same processor, and every feature the code object pins
  (xnack/sramecc on or off) matches the agent's; a feature left "any" matches anything.
"""
from dataclasses import dataclass

from core.errors import InvalidCodeObject

ISA_PREFIX = "amdgcn-amd-amdhsa--"

# EF_AMDGPU_MACH_* values (e_flags & 0xff), from LLVM's AMDGPUUsage "AMDGPU ELF Header".
MACHINES = {
    0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702",
    0x25: "gfx703", 0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2a: "gfx803",
    0x2b: "gfx810", 0x2c: "gfx900", 0x2d: "gfx902", 0x2e: "gfx904", 0x2f: "gfx906",
    0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x33: "gfx1010", 0x34: "gfx1011",
    0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033",
    0x3a: "gfx602", 0x3b: "gfx705", 0x3c: "gfx805", 0x3d: "gfx1035", 0x3e: "gfx1034",
    0x3f: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100", 0x42: "gfx1013", 0x44: "gfx1103",
    0x45: "gfx1036", 0x46: "gfx1101", 0x47: "gfx1102",
}
EF_AMDGPU_MACH = 0xFF

# Code object v3 (ELF ABI version 1): one bit per feature, set = on, clear = any.
EF_AMDGPU_FEATURE_XNACK_V3 = 0x100
EF_AMDGPU_FEATURE_SRAMECC_V3 = 0x200
# Code object v4+ (ABI versions 2, 3): two-bit fields.
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
_V4_SETTING = {0: "unsupported", 1: "any", 2: "off", 3: "on"}

# EI_ABIVERSION of ELFOSABI_AMDGPU_HSA objects -> code object version.
CODE_OBJECT_VERSIONS = {1: 3, 2: 4, 3: 5}


@dataclass(frozen=True)
class Target:
    processor: str
    xnack: str          # "on", "off", "any" or "unsupported"
    sramecc: str

    @property
    def isa_name(self):
        """The target id as ROCr names ISAs: amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-."""
        features = "".join(f":{name}{'+' if value == 'on' else '-'}"
                           for name, value in (("sramecc", self.sramecc), ("xnack", self.xnack))
                           if value in ("on", "off"))
        return ISA_PREFIX + self.processor + features


def from_e_flags(e_flags, code_object_version):
    """The Target an ELF header declares; InvalidCodeObject for an unknown machine."""
    mach = e_flags & EF_AMDGPU_MACH
    if mach not in MACHINES:
        raise InvalidCodeObject(f"unknown AMDGPU machine {mach:#x} in e_flags {e_flags:#x}")
    if code_object_version == 3:
        xnack = "on" if e_flags & EF_AMDGPU_FEATURE_XNACK_V3 else "any"
        sramecc = "on" if e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3 else "any"
    else:
        xnack = _V4_SETTING[(e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8]
        sramecc = _V4_SETTING[(e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10]
    return Target(MACHINES[mach], xnack, sramecc)


def parse_isa_name(name):
    """Target of an ISA name (amdgcn-amd-amdhsa--gfx1030[:feature+|-]...), or None if it is not one."""
    if not name.startswith(ISA_PREFIX):
        return None
    processor, *features = name[len(ISA_PREFIX):].split(":")
    settings = {"xnack": "any", "sramecc": "any"}
    for feature in features:
        if feature[:-1] not in settings or feature[-1:] not in "+-":
            return None
        settings[feature[:-1]] = "on" if feature.endswith("+") else "off"
    return Target(processor, settings["xnack"], settings["sramecc"])


def compatible(code_target, agent_target):
    """ROCr's rule for running code built for code_target on an agent of agent_target."""
    if code_target.processor != agent_target.processor:
        return False
    for feature in ("xnack", "sramecc"):
        wanted = getattr(code_target, feature)
        if wanted in ("on", "off") and getattr(agent_target, feature) not in (wanted, "any"):
            return False
    return True
