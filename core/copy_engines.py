"""Copy engines: which SDMA engines a copy between two agents may use, as ROCr reckons them.

Holds these invariants:
- the copy agent is the source when it is a GPU, else the destination (ROCr's
  Runtime::CopyMemoryStatus); a copy between an agent and itself is INVALID_AGENT and a copy
  with no GPU on either side is ERROR (ROCr's CPU agent has no DMA engines);
- the engine mask is computed from the copy agent's profile (sdma_engines,
  sdma_xgmi_engines, its ISA) by ROCr's rules for a copy that crosses no xGMI hive (SoftGPU's
  boards are in none): SDMA0 for host-to-device (and for any direction except on gfx90a,
  whose H2D engine takes only H2D copies), SDMA1 for device-to-host (SDMA0 where the board
  has one engine), then each xGMI engine; an empty mask is OUT_OF_RESOURCES;
- every engine is free: SoftGPU's copies run on host threads, not on the engines, so none
  is ever busy with another copy (ROCr leaves an engine out of the mask while it copies).
Engine ids are the hsa_amd_sdma_engine_id_t bits (engine i is bit i).
"""
from core.errors import HsaError, InvalidAgent, InvalidArgument, OutOfResources
from core.hsa_abi import HsaAmdSdmaEngineId as Engine

# ROCr's blit slots: 0 device-to-device (a blit kernel), 1 host-to-device (SDMA0), 2
# device-to-host (SDMA1), then the xGMI engines.
_H2D_OFFSET = 1
# gfx90a boards (a RAS erratum) copy only host-to-device on SDMA0.
_H2D_ONLY_SDMA0 = ("gfx90a",)


class NoCopyEngine(HsaError):
    """Neither agent is a GPU: ROCr's CPU agent answers HSA_STATUS_ERROR."""


def copy_agent(dst, src):
    """The agent whose engines a copy from `src` to `dst` uses."""
    return src if src.is_gpu else dst


def _gpu_of(dst, src):
    agent = copy_agent(dst, src)
    if not agent.is_gpu:
        raise NoCopyEngine("neither agent is a GPU: no copy engine serves a host-to-host copy")
    return agent


def _check(dst, src):
    if dst is src:
        raise InvalidAgent("the source and destination agents are the same agent")
    return _gpu_of(dst, src)


def _h2d_only(agent):
    return agent.isa.target.processor in _H2D_ONLY_SDMA0


def _host_to_device(dst, src):
    return not src.is_gpu and dst.is_gpu


def engine_status(dst, src):
    """The mask of engines free for a copy from `src` to `dst` (hsa_amd_memory_copy_engine_status)."""
    agent = _check(dst, src)
    mask = 0
    if _host_to_device(dst, src) or not _h2d_only(agent):
        mask |= Engine.ENGINE_0
    mask |= Engine.ENGINE_1 if agent.spec["sdma_engines"] > 1 else Engine.ENGINE_0
    for i in range(agent.spec["sdma_xgmi_engines"]):
        mask |= Engine.ENGINE_2 << i
    if not mask:
        raise OutOfResources("no copy engine is free")
    return mask


def preferred_engines(dst, src):
    """hsa_amd_memory_get_preferred_copy_engine: ROCr recommends engines only between boards
    of one xGMI hive (its recommended-engine table is empty otherwise), so 0 here."""
    _check(dst, src)
    return 0


def check_engine(dst, src, engine_id, force_copy_on_sdma):
    """Validate an hsa_amd_memory_async_copy_on_engine request as ROCr does (a single engine
    bit that the copy agent has); the copy then runs as any other."""
    if engine_id == 0 or engine_id & (engine_id - 1):
        raise InvalidArgument(f"engine_id {engine_id:#x} is not one engine")
    agent = _gpu_of(dst, src)
    offset = engine_id.bit_length()            # ROCr's ffs(): SDMA0 is offset 1
    engines = agent.spec["sdma_engines"] + agent.spec["sdma_xgmi_engines"]
    if offset > engines:
        raise InvalidArgument(f"engine_id {engine_id:#x}: the agent has {engines} copy engines")
    same_gpu = dst is src
    if not _host_to_device(dst, src) and not same_gpu and _h2d_only(agent) and offset == _H2D_OFFSET:
        raise InvalidArgument("this GPU's SDMA0 copies only from host to device")
    del force_copy_on_sdma   # where the copy runs changes nothing SoftGPU's copies show
