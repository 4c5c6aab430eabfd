"""Device fences on the native tier: the instructions a compiler emits to make an acquire or
release fence (cache invalidates, the store-counter wait) order the wave's memory accesses
in the translation, across host threads — a look-back scan reads a prefix's flag, fences,
then reads its value, and must never read the value first. Without a fence neither LLVM nor
the host keeps plain loads in that order."""
import re

import numpy as np
import pytest

from core.isa.layout import layout
from core.isa.native.dispatch import program_of
from core.isa.native.translate import translate
from tests.support.differential import engine
from tests.support.kernels import compile_opencl
from tests.support.launch import launch, loaded_kernel

FLAG_THEN_VALUE = """
kernel void read_prefix(global const uint *flag, global const uint *value, global uint *out) {
    uint f = *(volatile global const uint *)flag;
    %s
    out[get_global_id(0)] = f * 1000u + *(volatile global const uint *)value;
}
"""
FENCE = "atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_device);"
SYSTEM_FENCE = re.compile(r"^\s*fence seq_cst\s*$", re.MULTILINE)     # no syncscope: every thread


def _translated(session, source, name):
    co = compile_opencl(source, opt="-O2")
    kernel = loaded_kernel(session, co, name)
    desc = layout(kernel)
    return co, str(translate(program_of(session, kernel, desc), desc.lanes, desc.nvgpr, "probe").module)


@pytest.mark.parametrize("fence, fenced", [(FENCE, True), ("", False)])
def test_an_acquire_fence_orders_the_loads_around_it(session, fence, fenced):
    co, text = _translated(session, FLAG_THEN_VALUE % fence, "read_prefix")
    assert bool(SYSTEM_FENCE.search(text)) == fenced
    with engine("native"):
        out, = launch(session, co, "read_prefix", [np.array([3], np.uint32), np.array([7], np.uint32),
                                                   np.zeros(64, np.uint32)], 64, 64)[2:]
    assert (out == 3007).all()


def test_a_release_fence_orders_the_stores_around_it(session):
    source = """
    kernel void publish(global uint *value, global volatile uint *flag) {
        if (get_global_id(0) == 0) {
            *value = 42u;
            atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
            *flag = 1u;
        }
    }
    """
    co, text = _translated(session, source, "publish")
    assert SYSTEM_FENCE.search(text)
    with engine("native"):
        value, flag = launch(session, co, "publish", [np.zeros(1, np.uint32), np.zeros(1, np.uint32)], 64, 64)
    assert value[0] == 42 and flag[0] == 1
