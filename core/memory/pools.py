"""Memory pools (and regions): the memory each agent exposes, laid out as ROCr 5.x does.

Holds these invariants:
- a region and a memory pool are one object behind one handle, as in ROCr, so
  `hsa_region_t{pool.handle}` and `hsa_amd_memory_pool_t{region.handle}` both work;
- the layout is the newest ROCr's on a dGPU machine: the CPU agent has a fine-grained
  pool, a fine-grained kernarg pool and a coarse-grained pool (all three backed by system
  memory), each GPU a coarse-grained device-local pool, an extended-scope fine-grained
  device-local pool (ROCr 6.2+, on every ISA but gfx12.0; the two share the board's
  memory) and a group (LDS) pool;
- every attribute answers from the profile (sizes, LDS, memory bus) or from ROCr's rules
  (flags, granule, access, links), never from the host machine;
- a pool never hands out more than its budget: the three system pools share one
  budget (they are views of the same host memory), each device pool has its own.
"""
import threading

from core.errors import OutOfResources
from core.hsa_abi import (HsaAmdMemoryPoolGlobalFlag as PoolFlag,
                          HsaAmdMemoryPoolAccess as Access,
                          HsaAmdLinkInfoType as LinkType)

PAGE = 4096
# ROCr's fragment allocator carves device-local allocations out of 2 MiB blocks, the
# granule later releases recommend for them (HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_REC_GRANULE).
DEVICE_BLOCK = 2 << 20

SYSTEM_FINE = "system_fine"
SYSTEM_KERNARG = "system_kernarg"
SYSTEM_COARSE = "system_coarse"
DEVICE = "device"
# Device memory whose device-scope atomics act at system scope (HIP's uncached device memory).
DEVICE_EXTENDED = "device_extended_fine"
GROUP = "group"

_FLAGS = {
    SYSTEM_FINE: PoolFlag.FINE_GRAINED,
    SYSTEM_KERNARG: PoolFlag.KERNARG_INIT | PoolFlag.FINE_GRAINED,
    SYSTEM_COARSE: PoolFlag.COARSE_GRAINED,
    DEVICE: PoolFlag.COARSE_GRAINED,
    DEVICE_EXTENDED: PoolFlag.EXTENDED_SCOPE_FINE_GRAINED,
    GROUP: 0,
}


class Budget:
    """Bytes a set of pools may hand out together; `lock` guards it and their counters."""

    def __init__(self, size):
        self.size = size
        self.used = 0
        self.lock = threading.Lock()


class Link:
    """What hsa_amd_agent_memory_pool_get_info reports for one agent -> pool path."""

    def __init__(self, hops, link_type, numa_distance=0, atomics=False, coherent=False):
        self.hops = hops
        self.link_type = link_type
        self.numa_distance = numa_distance
        self.atomic_32 = self.atomic_64 = atomics
        self.coherent = coherent
        self.min_latency = self.max_latency = 0
        self.min_bandwidth = self.max_bandwidth = 0


# ROCr's "no link" (an agent and its own memory): all zeros, type 0.
NO_LINK = Link(0, LinkType.HYPERTRANSPORT)


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
        return self.kind in (DEVICE, DEVICE_EXTENDED)

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
    def recommended_granule(self):
        return DEVICE_BLOCK if self.is_local else self.granule

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
        budget = self.budget
        with budget.lock:
            if budget.used + size > budget.size:
                raise OutOfResources(f"{self.kind} pool exhausted: {size} bytes requested, "
                                     f"{budget.size - budget.used} of {budget.size} free")
            budget.used += size
            self.allocated += size

    def refund(self, size):
        with self.budget.lock:
            self.budget.used -= size
            self.allocated -= size


def build(agents, device_base):
    """Every pool of every agent, in ROCr's order: {agent: [Pool, ...]}.

    Sizes come from the agents (profile memory.system_bytes for the CPU, device_bytes
    for each GPU), the LDS size and memory bus from each GPU's profile section.
    """
    cpu = agents.cpu
    system = Budget(cpu.memory_bytes)
    pools = {cpu: [Pool(kind, cpu, system.size, system)
                   for kind in (SYSTEM_FINE, SYSTEM_KERNARG, SYSTEM_COARSE)]}
    for gpu in agents.gpus:
        device = Budget(gpu.memory_bytes)
        local = [DEVICE] if _no_extended_scope(gpu) else [DEVICE, DEVICE_EXTENDED]
        pools[gpu] = [Pool(kind, gpu, device.size, device, base=device_base,
                           bus_width=gpu.spec["memory_width_bits"],
                           max_clock_mhz=gpu.spec["memory_max_clock_mhz"]) for kind in local]
        pools[gpu].append(Pool(GROUP, gpu, gpu.spec["lds_bytes"], None))
    return pools


def _no_extended_scope(gpu):
    """ROCr leaves the extended-scope fine-grained pool out on gfx12.0 (gfx1200, gfx1201)."""
    return gpu.isa.target.row.version[:2] == (12, 0)


def link_between(agent, owner):
    """The link from `agent` to memory owned by `owner` (ROCr reports at most one hop).

    Between distinct agents SoftGPU models the one PCIe hop of a discrete board, with
    KFD's NUMA weight for a PCIe GPU-CPU link; latency and bandwidth are not modelled (0).
    """
    if agent is owner:
        return NO_LINK
    return Link(1, LinkType.PCIE, numa_distance=20, atomics=True, coherent=False)
