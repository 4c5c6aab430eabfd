"""Agents: the CPU agent and the GPU agent(s) the profile describes.

Holds two invariants:
- agents are created once per session, in a fixed order (CPU first, as ROCr lists
  them), and their handles stay valid until hsa_shut_down;
- every attribute answers from the profile, never from the host machine.
"""
from core.errors import InvalidAgent
from core.handles import HandleTable, KIND_AGENT


class Agent:
    def __init__(self, kind, name, spec, node):
        self.kind = kind          # "cpu" or "gpu"
        self.name = name
        self.spec = spec          # the profile's section for this agent
        self.node = node          # ROCr's driver node id: CPU 0, GPUs from 1
        self.handle = None

    @property
    def is_gpu(self):
        return self.kind == "gpu"


class Agents:
    """The session's agents, resolvable by handle."""

    def __init__(self, profile):
        self.table = HandleTable(KIND_AGENT, InvalidAgent)
        self.all = []
        cpu = Agent("cpu", profile.data.get("cpu", {}).get("name", "SoftGPU Host CPU"),
                    profile.data.get("cpu", {}), 0)
        self._add(cpu)
        for node, spec in enumerate([profile.data], start=1):
            self._add(Agent("gpu", spec["name"], spec, node))

    def _add(self, agent):
        agent.handle = self.table.add(agent)
        self.all.append(agent)

    def get(self, handle):
        return self.table.get(handle)

    @property
    def gpus(self):
        return [a for a in self.all if a.is_gpu]

    @property
    def cpu(self):
        return self.all[0]

    def close(self):
        for agent in self.all:
            self.table.remove(agent.handle)
        self.all = []
