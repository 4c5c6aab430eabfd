"""The GPU's counters as kernels read them: s_memtime and s_memrealtime.

Holds these invariants:
- s_memrealtime counts the reference clock at REFERENCE_CLOCK_HZ, the rate a GPU agent
  answers for HSA_AMD_AGENT_INFO_TIMESTAMP_FREQUENCY (HIP's wall clock rate): 100 MHz, the
  gpu_counter_freq libdrm reports for RDNA2 boards (and gfx90a);
- s_memtime counts shader clock cycles at the agent's maximum engine clock, the rate HIP
  reports as hipDeviceAttributeClockRate, so clock64() deltas divided by it are seconds;
- both follow CLOCK_MONOTONIC, so they never run backwards and agree with each other.
"""
import time

REFERENCE_CLOCK_HZ = 100_000_000
_NS_PER_SECOND = 1_000_000_000


def realtime_ticks():
    """What s_memrealtime returns now."""
    return time.monotonic_ns() * REFERENCE_CLOCK_HZ // _NS_PER_SECOND


def shader_cycles(clock_mhz):
    """What s_memtime returns now on an agent whose engine clock is `clock_mhz`."""
    return time.monotonic_ns() * clock_mhz // 1000
