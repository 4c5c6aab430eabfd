"""Instruction set architectures and wavefronts, as hsa_isa_* and hsa_wavefront_* see them.

Holds three invariants:
- an ISA name resolves only if ROCr's registry knows it: ROCr 5.2's, plus gfx1036 and the
  RDNA3 targets gfx1100-gfx1103 later ROCrs added (5.3, 5.5): "amdgcn-amd-amdhsa--" + a
  target id, with target features (":sramecc±", ":xnack±", in that order) only where the
  target supports them ("amdgcn-amd-amdhsa--gfx1030:xnack-" is unknown, as in ROCr);
- every registered ISA has one handle per session (the session's HandleTable), so ISA
  handles, like all handles, are stale after hsa_shut_down;
- compatibility is ROCr's rule: same processor, and a code object's explicit feature
  setting (+ or -) must equal the agent's.
"""
from core.errors import InvalidIsa, InvalidIsaName, InvalidWavefront
from core.handles import HandleTable, KIND_ISA, KIND_WAVEFRONT

ISA_NAME_PREFIX = "amdgcn-amd-amdhsa--"

# (processor, sramecc supported, xnack supported): the targets ROCr 5.2's IsaRegistry lists.
KNOWN_PROCESSORS = (
    ("gfx700", False, False), ("gfx701", False, False), ("gfx702", False, False),
    ("gfx801", False, True), ("gfx802", False, False), ("gfx803", False, False),
    ("gfx805", False, False), ("gfx810", False, True),
    ("gfx900", False, True), ("gfx902", False, True), ("gfx904", False, True),
    ("gfx906", True, True), ("gfx908", True, True), ("gfx909", False, True),
    ("gfx90a", True, True), ("gfx90c", False, True),
    ("gfx1010", False, True), ("gfx1011", False, True), ("gfx1012", False, True),
    ("gfx1013", False, True),
    ("gfx1030", False, False), ("gfx1031", False, False), ("gfx1032", False, False),
    ("gfx1033", False, False), ("gfx1034", False, False), ("gfx1035", False, False),
    ("gfx1036", False, False),
    ("gfx1100", False, False), ("gfx1101", False, False), ("gfx1102", False, False),
    ("gfx1103", False, False),
)

# A feature's setting in a target id: "any" when the name leaves it open.
ANY, ON, OFF, UNSUPPORTED = "any", "on", "off", "unsupported"


def _settings(supported):
    return (ANY, OFF, ON) if supported else (UNSUPPORTED,)


def _suffix(feature, setting):
    return {ON: f":{feature}+", OFF: f":{feature}-"}.get(setting, "")


def known_isa_names():
    """Every ISA name hsa_isa_from_name accepts, in registry order."""
    return [name for name, _, _, _ in _known_isas()]


def _known_isas():
    for processor, sramecc_ok, xnack_ok in KNOWN_PROCESSORS:
        for sramecc in _settings(sramecc_ok):
            for xnack in _settings(xnack_ok):
                name = ISA_NAME_PREFIX + processor + _suffix("sramecc", sramecc) + _suffix("xnack", xnack)
                yield name, processor, sramecc, xnack


class Wavefront:
    def __init__(self, size):
        self.size = size
        self.handle = None


class Isa:
    """One registry entry. Limits are ROCr's, identical for every GCN/RDNA target."""

    WORKGROUP_MAX_DIM = (1024, 1024, 1024)
    WORKGROUP_MAX_SIZE = 1024
    GRID_MAX_DIM = (0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
    GRID_MAX_SIZE = 0xFFFFFFFFFFFFFFFF
    FBARRIER_MAX_SIZE = 32

    def __init__(self, name, processor, sramecc, xnack):
        self.name = name
        self.processor = processor
        self.sramecc = sramecc
        self.xnack = xnack
        self.wavefronts = []
        self.waves_per_cu = 40    # ROCr's CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT
        self.handle = None

    @property
    def wavefront_size(self):
        return self.wavefronts[0].size

    def compatible_with(self, agent_isa):
        """May a code object built for self run on an agent whose ISA is agent_isa?"""
        if self.processor != agent_isa.processor:
            return False
        return all(mine in (ANY, UNSUPPORTED) or mine == theirs
                   for mine, theirs in ((self.sramecc, agent_isa.sramecc), (self.xnack, agent_isa.xnack)))


class IsaRegistry:
    """The session's ISAs and wavefronts, resolvable by handle and by name.

    wavefront_sizes: {ISA name: the sizes hsa_isa_iterate_wavefronts lists for it (first =
    default)} for the profile's GPU ISAs; every other ISA lists ROCr's single 64-lane
    wavefront.
    """

    def __init__(self, wavefront_sizes=None):
        wavefront_sizes = wavefront_sizes or {}
        self.isas = HandleTable(KIND_ISA, InvalidIsa)
        self.wavefronts = HandleTable(KIND_WAVEFRONT, InvalidWavefront)
        self._by_name = {}
        self._by_size = {}
        for name, processor, sramecc, xnack in _known_isas():
            isa = Isa(name, processor, sramecc, xnack)
            sizes = wavefront_sizes.get(name, (64,))
            isa.wavefronts = [self._wavefront(size) for size in sizes]
            isa.handle = self.isas.add(isa)
            self._by_name[name] = isa

    def _wavefront(self, size):
        if size not in self._by_size:
            wavefront = Wavefront(size)
            wavefront.handle = self.wavefronts.add(wavefront)
            self._by_size[size] = wavefront
        return self._by_size[size]

    def from_name(self, name):
        isa = self._by_name.get(name)
        if isa is None:
            raise InvalidIsaName(f"{name!r} is not an ISA this runtime knows "
                                 f"(expected e.g. {ISA_NAME_PREFIX}gfx1030)")
        return isa

    def get(self, handle):
        return self.isas.get(handle)

    def wavefront(self, handle):
        return self.wavefronts.get(handle)

    def close(self):
        for table in (self.isas, self.wavefronts):
            for handle, _ in table:
                table.remove(handle)
        self._by_name.clear()
        self._by_size.clear()
