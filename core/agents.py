"""Agents: the CPU agent and the GPU agent(s) the profile describes, with their caches and ISAs.

Holds these invariants:
- agents are created once per session, in a fixed order (CPU first, then GPUs, as ROCr's
  hsa_iterate_agents lists them), and their handles stay valid until hsa_shut_down;
- every attribute answers from the profile, whose CPU section describes the host
  where the profile does not pin it (core.profile, core.host_cpu);
- caches and ISAs resolve only through the session's tables, so their handles are
  stale after hsa_shut_down like every other handle.
Interface for other parts: `agents.all`, `agents.gpus`, `agents.cpu`, `agents.get(handle)`;
an Agent's `is_gpu`, `spec` (its profile section: profile["cpu"], profile["gpu"] or the gpu
section of a profile other_gpus names),
`handle`, `node`, `memory_bytes` (device memory of a GPU, system memory for the CPU),
`isa` (core.isa_info.Isa, None for the CPU), `isa_name`, `caches`, `bdfid` and `uuid`; `agents.isas` (IsaRegistry).
"""
from core.errors import InvalidAgent, InvalidCache
from core.handles import HandleTable, KIND_AGENT, KIND_CACHE
from core.isa_info import IsaRegistry


class Cache:
    def __init__(self, name, level, size):
        self.name = name          # ROCr's "<agent name> L<level>"
        self.level = level
        self.size = size          # bytes (hsa_cache_get_info answers KiB, as ROCr)
        self.handle = None


class Agent:
    def __init__(self, kind, name, spec, node, memory_bytes):
        self.kind = kind          # "cpu" or "gpu"
        self.name = name
        self.spec = spec          # the profile's section for this agent
        self.node = node          # ROCr's driver node id: CPU 0, GPUs from 1
        self.memory_bytes = memory_bytes
        self.handle = None
        self.isa = None
        self.caches = []
        self.bdfid = 0            # PCI bus/device/function (a GPU's own; 0 for the CPU)
        self.uuid = None          # 16 hex digits for a GPU

    @property
    def is_gpu(self):
        return self.kind == "gpu"

    @property
    def isa_name(self):
        """The agent's ISA name (amdgcn-amd-amdhsa--gfx1030), None for the CPU."""
        return self.isa.name if self.isa else None

    def cache_sizes(self):
        """Bytes per cache level 1..4 (HSA_AGENT_INFO_CACHE_SIZE); 0 where there is none."""
        sizes = [0, 0, 0, 0]
        for cache in self.caches:
            if 1 <= cache.level <= 4:
                sizes[cache.level - 1] = cache.size & 0xFFFFFFFF     # ROCr's uint32_t wraps
        return sizes


class Agents:
    """The session's agents, resolvable by handle."""

    def __init__(self, profile):
        self.table = HandleTable(KIND_AGENT, InvalidAgent)
        self.cache_table = HandleTable(KIND_CACHE, InvalidCache)
        boards = profile.gpu_boards()
        self.isas = IsaRegistry({spec["isa"]: _wavefront_sizes(profile, spec) for spec, _ in boards})
        self.all = []
        self._add(Agent("cpu", profile.cpu["name"], profile.cpu, 0, profile.system_bytes))
        for index, (spec, device_bytes) in enumerate(boards):
            gpu = Agent("gpu", spec["name"], spec, index + 1, device_bytes)
            gpu.isa = self.isas.from_name(spec["isa"])
            # Boards of one machine sit on consecutive PCI buses and have distinct serials.
            gpu.bdfid = spec["bdfid"] + (index << 8)
            gpu.uuid = f"{(int(spec['uuid'], 16) + index) % (1 << 64):016x}"
            self._add(gpu)

    def _add(self, agent):
        agent.handle = self.table.add(agent)
        # In the order given: ROCr lists caches as the topology does (the host's CPU by CPU).
        for spec in agent.spec["caches"]:
            cache = Cache(f"{agent.name} L{spec['level']}", spec["level"], spec["bytes"])
            cache.handle = self.cache_table.add(cache)
            agent.caches.append(cache)
        self.all.append(agent)

    def get(self, handle):
        return self.table.get(handle)

    def cache(self, handle):
        return self.cache_table.get(handle)

    @property
    def gpus(self):
        return [a for a in self.all if a.is_gpu]

    @property
    def cpu(self):
        return self.all[0]

    def close(self):
        for agent in self.all:
            for cache in agent.caches:
                self.cache_table.remove(cache.handle)
            self.table.remove(agent.handle)
        self.all = []
        self.isas.close()


def _wavefront_sizes(profile, gpu):
    """Wavefronts hsa_isa_iterate_wavefronts lists for a GPU's ISA, default first."""
    if profile.quirk("rocr_wavefront_size_64"):
        return (64,)
    other = 64 if gpu["wavefront_size"] == 32 and gpu["wave64_supported"] else None
    return (gpu["wavefront_size"],) + ((other,) if other else ())
