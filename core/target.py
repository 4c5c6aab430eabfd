"""Targets: the one place that knows what a GPU target is, for the loader, the ISA registry
and ROCr's ISA answers.

A Target is a processor with its two feature settings (sramecc, xnack: "on", "off", "any" or
"unsupported"). It comes from a code object's ELF header (`from_e_flags`), from an ISA name
(`parse_isa_name`) or from the registry (`registry_targets`), and prints as ROCr names ISAs
(`isa_name`). The engine's per-processor tables (core/isa/targets.py) are looked up by the
processor a kernel runs as (`run_as`).

Holds these invariants:
- the registry is the newest ROCr's (its IsaRegistry): one entry per processor and per
  feature setting the processor supports, with ROCr's version numbers, wavefront size and
  generic family; a generic target (gfx9-generic ... gfx12-generic) is registered once per
  feature setting, as ROCr registers it from the first processor naming it;
- a code object's target comes from its ELF header alone (EI_ABIVERSION picks the code
  object version, e_flags the machine and features by that version's rules, and from v6
  on the generic version in e_flags bits 24-31), so it is known before any loading;
- compatibility is ROCr's Isa::IsCompatible: a feature the code pins (on/off) must equal
  the agent's; a generic code object runs on an agent whose processor belongs to its
  family, and only from ROCr's minimum generic version on (so hsa_isa_compatible, which
  passes no generic version, calls no generic ISA compatible); any other code object needs
  the agent's exact processor version.
"""
from collections import namedtuple

from core.errors import InvalidCodeObject

ISA_PREFIX = "amdgcn-amd-amdhsa--"
ANY, ON, OFF, UNSUPPORTED = "any", "on", "off", "unsupported"


# Records are collections.namedtuple, not dataclasses nor typing.NamedTuple: hsa_init reads
# this module, and those two imported inspect and typing (~8 ms of a 70 ms hsa_init).
# name; version (major, minor, stepping), ROCr's Isa::Version; sramecc, xnack: the feature
# exists on this processor; wavefront_size: the size ROCr's registry lists for it; generic:
# its generic family's processor name, or "".
Processor = namedtuple("Processor", "name version sramecc xnack wavefront_size generic")


def _rows():
    # The newest ROCr's IsaRegistry (core/runtime/isa.cpp), in its order.
    table = (
        ("gfx700", 7, 0, 0, 0, 0, 64, ""), ("gfx701", 7, 0, 1, 0, 0, 64, ""),
        ("gfx702", 7, 0, 2, 0, 0, 64, ""), ("gfx801", 8, 0, 1, 0, 1, 64, ""),
        ("gfx802", 8, 0, 2, 0, 0, 64, ""), ("gfx803", 8, 0, 3, 0, 0, 64, ""),
        ("gfx805", 8, 0, 5, 0, 0, 64, ""), ("gfx810", 8, 1, 0, 0, 1, 64, ""),
        ("gfx900", 9, 0, 0, 0, 1, 64, "gfx9-generic"), ("gfx902", 9, 0, 2, 0, 1, 64, "gfx9-generic"),
        ("gfx904", 9, 0, 4, 0, 1, 64, "gfx9-generic"), ("gfx906", 9, 0, 6, 1, 1, 64, "gfx9-generic"),
        ("gfx908", 9, 0, 8, 1, 1, 64, ""), ("gfx909", 9, 0, 9, 0, 1, 64, "gfx9-generic"),
        ("gfx90a", 9, 0, 10, 1, 1, 64, ""), ("gfx90c", 9, 0, 12, 0, 1, 64, "gfx9-generic"),
        ("gfx942", 9, 4, 2, 1, 1, 64, "gfx9-4-generic"), ("gfx950", 9, 5, 0, 1, 1, 64, "gfx9-4-generic"),
        ("gfx1010", 10, 1, 0, 0, 1, 32, "gfx10-1-generic"), ("gfx1011", 10, 1, 1, 0, 1, 32, "gfx10-1-generic"),
        ("gfx1012", 10, 1, 2, 0, 1, 32, "gfx10-1-generic"), ("gfx1013", 10, 1, 3, 0, 1, 32, "gfx10-1-generic"),
        ("gfx1030", 10, 3, 0, 0, 0, 32, "gfx10-3-generic"), ("gfx1031", 10, 3, 1, 0, 0, 32, "gfx10-3-generic"),
        ("gfx1032", 10, 3, 2, 0, 0, 32, "gfx10-3-generic"), ("gfx1033", 10, 3, 3, 0, 0, 32, "gfx10-3-generic"),
        ("gfx1034", 10, 3, 4, 0, 0, 32, "gfx10-3-generic"), ("gfx1035", 10, 3, 5, 0, 0, 32, "gfx10-3-generic"),
        ("gfx1036", 10, 3, 6, 0, 0, 32, "gfx10-3-generic"),
        ("gfx1100", 11, 0, 0, 0, 0, 32, "gfx11-generic"), ("gfx1101", 11, 0, 1, 0, 0, 32, "gfx11-generic"),
        ("gfx1102", 11, 0, 2, 0, 0, 32, "gfx11-generic"), ("gfx1103", 11, 0, 3, 0, 0, 32, "gfx11-generic"),
        ("gfx1150", 11, 5, 0, 0, 0, 32, "gfx11-generic"), ("gfx1151", 11, 5, 1, 0, 0, 32, "gfx11-generic"),
        ("gfx1152", 11, 5, 2, 0, 0, 32, "gfx11-generic"), ("gfx1153", 11, 5, 3, 0, 0, 32, "gfx11-generic"),
        ("gfx1200", 12, 0, 0, 0, 0, 32, "gfx12-generic"), ("gfx1201", 12, 0, 1, 0, 0, 32, "gfx12-generic"),
    )
    rows = {}
    for name, major, minor, stepping, sramecc, xnack, wave, generic in table:
        rows[name] = Processor(name, (major, minor, stepping), bool(sramecc), bool(xnack), wave, generic)
        if generic and generic not in rows:
            # ROCr registers a generic from the first processor naming it: that processor's
            # major version and features; its minor version is the one a dotted name carries
            # (none do), else 0xFF, as is its stepping.
            rows[generic] = Processor(generic, (major, 0xFF, 0xFF), bool(sramecc), bool(xnack), wave, "")
    return rows


PROCESSORS = _rows()
# ROCr's GetSupportedGenericVersions: the lowest generic version it loads for each family.
GENERIC_MIN_VERSION = {name: 1 for name in ("gfx9-generic", "gfx9-4-generic", "gfx10-1-generic",
                                            "gfx10-3-generic", "gfx11-generic", "gfx12-generic")}

# EF_AMDGPU_MACH_* values (e_flags & 0xff) ROCr's GetMachInfo names (LLVM's AMDGPUUsage "AMDGPU
# ELF Header"). Machines it names but does not register (gfx600 ...) are known machines
# whose ISA ROCr has no entry for; the others are not AMDGPU machines ROCr knows at all.
MACHINES = {
    0x20: "gfx600", 0x21: "gfx601", 0x22: "gfx700", 0x23: "gfx701", 0x24: "gfx702",
    0x25: "gfx703", 0x26: "gfx704", 0x28: "gfx801", 0x29: "gfx802", 0x2a: "gfx803",
    0x2b: "gfx810", 0x2c: "gfx900", 0x2d: "gfx902", 0x2e: "gfx904", 0x2f: "gfx906",
    0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x33: "gfx1010", 0x34: "gfx1011",
    0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033",
    0x3a: "gfx602", 0x3b: "gfx705", 0x3c: "gfx805", 0x3d: "gfx1035", 0x3e: "gfx1034",
    0x3f: "gfx90a", 0x41: "gfx1100", 0x42: "gfx1013", 0x43: "gfx1150", 0x44: "gfx1103",
    0x45: "gfx1036", 0x46: "gfx1101", 0x47: "gfx1102", 0x48: "gfx1200", 0x4a: "gfx1151",
    0x4c: "gfx942", 0x4e: "gfx1201", 0x4f: "gfx950", 0x51: "gfx9-generic",
    0x52: "gfx10-1-generic", 0x53: "gfx10-3-generic", 0x54: "gfx11-generic", 0x55: "gfx1152",
    0x58: "gfx1153", 0x59: "gfx12-generic", 0x5f: "gfx9-4-generic",
}
EF_AMDGPU_MACH = 0xFF
# Code object v3 (ELF ABI version 1): one bit per feature, set = on, clear = any.
EF_AMDGPU_FEATURE_XNACK_V3 = 0x100
EF_AMDGPU_FEATURE_SRAMECC_V3 = 0x200
# Code object v4+ (ABI versions 2-4): two-bit fields.
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
_V4_SETTING = {0: UNSUPPORTED, 1: ANY, 2: OFF, 3: ON}
# Code object v6: the generic version of a generic target's code (0: none).
EF_AMDGPU_GENERIC_VERSION_SHIFT = 24

# EI_ABIVERSION of ELFOSABI_AMDGPU_HSA objects -> code object version.
CODE_OBJECT_VERSIONS = {1: 3, 2: 4, 3: 5, 4: 6}


class Target(namedtuple("Target", "processor sramecc xnack", defaults=(ANY, ANY))):
    """A processor and its sramecc and xnack settings (ANY, ON, OFF or UNSUPPORTED)."""
    __slots__ = ()

    @property
    def isa_name(self):
        """The target id as ROCr names ISAs: amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-."""
        return ISA_PREFIX + self.processor + "".join(
            f":{name}{'+' if value == ON else '-'}"
            for name, value in (("sramecc", self.sramecc), ("xnack", self.xnack)) if value in (ON, OFF))

    @property
    def row(self):
        """The registry row of its processor, or None for a processor ROCr does not register."""
        return PROCESSORS.get(self.processor)

    @property
    def is_generic(self):
        return self.processor in GENERIC_MIN_VERSION

    @property
    def major(self):
        return self.row.version[0]


def from_e_flags(e_flags, code_object_version):
    """(Target, generic version) an ELF header declares; InvalidCodeObject for a machine ROCr
    does not know. The generic version is 0 below v6 and for non-generic machines."""
    mach = e_flags & EF_AMDGPU_MACH
    if mach not in MACHINES:
        raise InvalidCodeObject(f"unknown AMDGPU machine {mach:#x} in e_flags {e_flags:#x}")
    if code_object_version == 3:
        xnack = ON if e_flags & EF_AMDGPU_FEATURE_XNACK_V3 else ANY
        sramecc = ON if e_flags & EF_AMDGPU_FEATURE_SRAMECC_V3 else ANY
    else:
        xnack = _V4_SETTING[(e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8]
        sramecc = _V4_SETTING[(e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10]
    generic_version = e_flags >> EF_AMDGPU_GENERIC_VERSION_SHIFT & 0xFF if code_object_version >= 6 else 0
    return Target(MACHINES[mach], sramecc=sramecc, xnack=xnack), generic_version


def parse_isa_name(name):
    """Target of an ISA name (amdgcn-amd-amdhsa--gfx1030[:feature+|-]...), or None if it is not one."""
    if not name.startswith(ISA_PREFIX):
        return None
    processor, *features = name[len(ISA_PREFIX):].split(":")
    settings = {"xnack": ANY, "sramecc": ANY}
    for feature in features:
        if feature[:-1] not in settings or feature[-1:] not in "+-":
            return None
        settings[feature[:-1]] = ON if feature.endswith("+") else OFF
    return Target(processor, sramecc=settings["sramecc"], xnack=settings["xnack"])


def registry_targets():
    """Every Target ROCr's registry holds, processor by processor, features in ROCr's order."""
    for row in PROCESSORS.values():
        for sramecc in (ANY, OFF, ON) if row.sramecc else (UNSUPPORTED,):
            for xnack in (ANY, OFF, ON) if row.xnack else (UNSUPPORTED,):
                yield Target(row.name, sramecc=sramecc, xnack=xnack)


def known_isa_names():
    """Every ISA name hsa_isa_from_name accepts."""
    return [t.isa_name for t in registry_targets()]


def registered(code_target):
    """The registry's Target for an ISA name's target (ROCr's IsaFromName), or None."""
    return _BY_NAME.get(code_target.isa_name)


def incompatibility(code, agent, generic_version=0):
    """ROCr's Isa::IsCompatible for code built for `code` on an agent of ISA `agent` (both
    registry targets; an agent's features are never "any" in ROCr, and a profile's are not):
    None when compatible, else one line naming why not (for the loader's trace and error)."""
    for feature in ("sramecc", "xnack"):
        wanted = getattr(code, feature)
        if wanted in (ON, OFF) and getattr(agent, feature) != wanted:
            return f"the code needs {feature} {wanted}, the agent has it {getattr(agent, feature)}"
    if code.is_generic:
        if agent.row is None or agent.row.generic != code.processor:
            family = agent.row.generic if agent.row is not None and agent.row.generic else "no generic family"
            return f"{agent.processor} belongs to {family}, not {code.processor}"
        if generic_version < GENERIC_MIN_VERSION[code.processor]:
            return (f"generic version {generic_version} is below {GENERIC_MIN_VERSION[code.processor]}, "
                    f"the lowest ROCr loads for {code.processor}")
        return None
    if code.row is None or agent.row is None or code.row.version != agent.row.version:
        return f"processor {code.processor} is not {agent.processor}"
    return None


def compatible(code, agent, generic_version=0):
    """incompatibility's yes/no."""
    return incompatibility(code, agent, generic_version) is None


def run_as(code, agent):
    """The processor whose machine code a kernel of `code` is, on an agent of Target `agent`:
    a generic object's code runs as the agent's own processor (the generic subset is valid
    machine code of each member), any other as the processor it was built for."""
    return agent.processor if code.is_generic and agent is not None else code.processor


_BY_NAME = {t.isa_name: t for t in registry_targets()}
