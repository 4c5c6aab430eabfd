"""Atomic operations' data operands, for every memory (LDS, global, buffer, image) and tier.

Guarantees:
- an operation in COMPARE_OPS takes a compare value besides its data, every other takes its
  data alone, except DS's mskor (data0 the mask) and wrap (data0 the ring size, data1 the
  step), which take two data operands too (DS_TWO_DATA_OPS);
- VMEM and image atomics hold the new value first and the compare value after it; DS's
  ds_cmpst* holds them the other way round (data0 the compare value, data1 the new), gfx11's
  ds_cmpstore* as VMEM does (ds_value_and_second says which is which).
"""
COMPARE_OPS = frozenset({"cmpswap", "fcmpswap"})
DS_TWO_DATA_OPS = COMPARE_OPS | {"mskor", "wrap"}


def ds_value_and_second(op, new_first, data0, data1):
    """(value, second operand) of a DS atomic from its data0 and data1, in whatever form a
    tier holds them: the second is the compare value, mskor's mask or wrap's step (data1 is
    None for one-data operations); new_first: the mnemonic holds the new value first
    (ds_cmpstore*)."""
    if op in COMPARE_OPS and not new_first:
        return data1, data0
    return data0, data1
