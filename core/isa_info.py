"""Instruction set architectures and wavefronts, as hsa_isa_* and hsa_wavefront_* see them.

Holds three invariants:
- an ISA name resolves only if the newest ROCr's registry knows it (core/target.py owns
  that registry and the target rules): "amdgcn-amd-amdhsa--" + a target id, with target
  features (":sramecc±", ":xnack±", in that order) only where the target supports them
  ("amdgcn-amd-amdhsa--gfx1030:xnack-" is unknown, as in ROCr), generic targets included;
- every registered ISA has one handle per session (the session's HandleTable), so ISA
  handles, like all handles, are stale after hsa_shut_down;
- compatibility is core.target.compatible, the one copy of ROCr's rule.
"""
from core import target as targets
from core.errors import InvalidIsa, InvalidIsaName, InvalidWavefront
from core.handles import HandleTable, KIND_ISA, KIND_WAVEFRONT

ISA_NAME_PREFIX = targets.ISA_PREFIX
known_isa_names = targets.known_isa_names


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

    def __init__(self, target):
        self.target = target
        self.name = target.isa_name
        self.wavefronts = []
        self.waves_per_cu = 40    # ROCr's CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT
        self.handle = None

    @property
    def processor(self):
        return self.target.processor

    def compatible_with(self, agent_isa):
        """hsa_isa_compatible: may code built for self run on an agent of agent_isa? (ROCr
        passes no generic version here, so a generic ISA is compatible with nothing.)"""
        return targets.compatible(self.target, agent_isa.target)


class IsaRegistry:
    """The session's ISAs and wavefronts, resolvable by handle and by name.

    wavefront_sizes: {ISA name: the sizes hsa_isa_iterate_wavefronts lists for it (first =
    default)} for the profile's GPU ISAs; every other ISA lists the single wavefront ROCr's
    registry gives its processor.
    """

    def __init__(self, wavefront_sizes=None):
        wavefront_sizes = wavefront_sizes or {}
        self.isas = HandleTable(KIND_ISA, InvalidIsa)
        self.wavefronts = HandleTable(KIND_WAVEFRONT, InvalidWavefront)
        self._by_name = {}
        self._by_size = {}
        for target in targets.registry_targets():
            isa = Isa(target)
            name = isa.name
            sizes = wavefront_sizes.get(name, (target.row.wavefront_size,))
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
