"""Memory pools (and regions): the memory each agent exposes, laid out as ROCr 5.x does.

Holds four invariants:
- a region and a memory pool are one object behind one handle, as in ROCr, so
  `hsa_region_t{pool.handle}` and `hsa_amd_memory_pool_t{region.handle}` both work;
- the layout is ROCr's on a dGPU machine: the CPU agent has a fine-grained pool, a
  fine-grained kernarg pool and a coarse-grained pool (all three backed by system
  memory), each GPU a coarse-grained device-local pool and a group (LDS) pool;
- every attribute answers from the profile (sizes) or from ROCr's rules (flags,
  granule, access, links), never from the host machine;
- a pool never hands out more than its budget: the three system pools share one
  budget (they are views of the same host memory), each device pool has its own.
"""
import threading

from core.errors import OutOfResources
from softgpu_shim.hsa_abi import (HsaAmdMemoryPoolGlobalFlag as PoolFlag,
                                  HsaAmdMemoryPoolAccess as Access,
                                  HsaAmdLinkInfoType as LinkType)

PAGE = 4096
# ROCr reports this LDS size when the profile does not name one: 64 KiB per workgroup
# on every gfx9/gfx10 part.
DEFAULT_LDS_BYTES = 64 * 1024

SYSTEM_FINE = "system_fine"
SYSTEM_KERNARG = "system_kernarg"
SYSTEM_COARSE = "system_coarse"
DEVICE = "device"
GROUP = "group"

_FLAGS = {
    SYSTEM_FINE: PoolFlag.FINE_GRAINED,
    SYSTEM_KERNARG: PoolFlag.KERNARG_INIT | PoolFlag.FINE_GRAINED,
    SYSTEM_COARSE: PoolFlag.COARSE_GRAINED,
    DEVICE: PoolFlag.COARSE_GRAINED,
    GROUP: 0,
}


class Budget:
    """Bytes a set of pools may hand out together; thread safe."""

    def __init__(self, size):
        self.size = size
        self.used = 0
        self._lock = threading.Lock()

    def take(self, size):
        with self._lock:
            if self.used + size > self.size:
                raise OutOfResources(f"pool exhausted: {size} bytes requested, "
                                     f"{self.size - self.used} of {self.size} free")
            self.used += size

    def give(self, size):
        with self._lock:
            self.used -= size


class Link:
    """What hsa_amd_agent_memory_pool_get_info reports for one agent -> pool path."""

    def __init__(self, hops, link_type=LinkType.PCIE, numa_distance=0, atomics=False,
                 coherent=False, latency=(0, 0), bandwidth=(0, 0)):
        self.hops = hops
        self.link_type = link_type
        self.numa_distance = numa_distance
        self.atomic_32 = self.atomic_64 = atomics
        self.coherent = coherent
        self.min_latency, self.max_latency = latency
        self.min_bandwidth, self.max_bandwidth = bandwidth


NO_LINK = Link(0, link_type=LinkType.HYPERTRANSPORT)


class Pool:
    def __init__(self, kind, owner, size, budget, base=0, bus_width=0, max_clock_mhz=0):
        self.kind = kind
        self.owner = owner                # the agent the pool belongs to
        self.size = size
        self.budget = budget              # None for the group segment: nothing to allocate
        self.base = base
        self.bus_width = bus_width
        self.max_clock_mhz = max_clock_mhz
        self.handle = None
        self.allocated = 0                # bytes of live allocations from this pool

    @property
    def is_system(self):
        return self.kind in (SYSTEM_FINE, SYSTEM_KERNARG, SYSTEM_COARSE)

    @property
    def is_local(self):
        return self.kind == DEVICE

    @property
    def is_group(self):
        return self.kind == GROUP

    @property
    def global_flags(self):
        return int(_FLAGS[self.kind])

    @property
    def alloc_allowed(self):
        return self.is_system or self.is_local

    @property
    def granule(self):
        return PAGE if self.alloc_allowed else 0

    alignment = granule

    @property
    def alloc_max_size(self):
        # ROCr: the largest page-aligned size the backing memory holds; 0 for LDS.
        return self.size // PAGE * PAGE if self.alloc_allowed else 0

    @property
    def accessible_by_all(self):
        return self.is_system

    @property
    def host_accessible(self):
        return self.is_system

    def access(self, agent, link):
        """ROCr's hsa_amd_memory_pool_access_t for `agent` reaching this pool over `link`."""
        if agent is self.owner:
            return Access.ALLOWED_BY_DEFAULT
        if link.hops < 1:
            return Access.NEVER_ALLOWED
        if self.is_system:
            return Access.DISALLOWED_BY_DEFAULT if agent.is_gpu else Access.ALLOWED_BY_DEFAULT
        if self.is_local:
            # Device-local coarse-grained memory: reachable once allowed, over any link.
            return Access.DISALLOWED_BY_DEFAULT
        return Access.NEVER_ALLOWED

    def charge(self, size):
        self.budget.take(size)
        self.allocated += size

    def refund(self, size):
        self.budget.give(size)
        self.allocated -= size


def _memory(profile, key, fallback):
    return profile.data.get("memory", {}).get(key, fallback)


def _agent_field(agent, profile, key, fallback):
    """A GPU's field: its profile section, that section's "memory", or the profile's "memory"."""
    for section in (agent.spec, agent.spec.get("memory", {}), profile.data.get("memory", {})):
        if key in section:
            return section[key]
    return fallback


def build(profile, agents, device_base):
    """Every pool of every agent, in ROCr's order: {agent: [Pool, ...]}.

    Sizes: profile.memory.system_bytes for the system pools and device_bytes for each
    GPU's device pool (Profile.arena_bytes is their sum); lds_bytes, memory_width_bits and
    memory_max_clock_mhz come from the GPU's profile section (64 KiB LDS when absent).
    """
    system = Budget(_memory(profile, "system_bytes", 0))
    pools = {}
    cpu = agents.cpu
    pools[cpu] = [Pool(kind, cpu, system.size, system)
                  for kind in (SYSTEM_FINE, SYSTEM_KERNARG, SYSTEM_COARSE)]
    for gpu in agents.gpus:
        device = Budget(_memory(profile, "device_bytes", 0))
        width = _agent_field(gpu, profile, "memory_width_bits", 0)
        clock = _agent_field(gpu, profile, "memory_max_clock_mhz", 0)
        pools[gpu] = [Pool(DEVICE, gpu, device.size, device, base=device_base,
                           bus_width=width, max_clock_mhz=clock),
                      Pool(GROUP, gpu, _agent_field(gpu, profile, "lds_bytes", DEFAULT_LDS_BYTES), None)]
    return pools


def link_between(agent, owner, profile):
    """The link from `agent` to memory owned by `owner` (ROCr: at most one hop is reported).

    Between distinct agents SoftGPU models one PCIe hop, as a discrete gfx1030 board has;
    profile.links.pcie may give its latency/bandwidth/NUMA distance.
    """
    if agent is owner:
        return NO_LINK
    pcie = profile.data.get("links", {}).get("pcie", {})
    return Link(1, LinkType.PCIE, numa_distance=pcie.get("numa_distance", 20), atomics=True,
                coherent=False,
                latency=(pcie.get("min_latency_ns", 0), pcie.get("max_latency_ns", 0)),
                bandwidth=(pcie.get("min_bandwidth_mbps", 0), pcie.get("max_bandwidth_mbps", 0)))
