"""Global wave sync: ds_gws_init, ds_gws_barrier and the ds_gws_sema_* semaphores, on the
queue's GWS resources (core.isa.global_sync) shared by every wave of the grid.

Holds these invariants:
- a GWS instruction acts once per wave, not per lane, with the operand of its first active
  lane (lane 0 when none is), in wave order when several waves issue it together;
- a wave that must wait is parked (`waiting` and `parked`, with its resource and arrival
  order) at the next instruction, and released only by the GWS operation that lets it go;
  the scheduler admits the rest of the grid when every live wave is parked;
- a dispatch on a queue without GWS (any but a cooperative queue) faults at its first GWS
  instruction, as the instruction has no resource to use there.
"""
import numpy as np

from core.isa.global_sync import GWS_RESOURCES
from core.isa.interp.registry import handles


def _resource(step, inst):
    """The resource id of each wave of the group: (M0[21:16] + offset) mod 64."""
    m0 = step.ops.m0().astype(np.int64)
    return ((m0 >> 16) + int(inst.mods.get("offset", 0))) % GWS_RESOURCES


def _operand(step, inst):
    """Per wave: the value of the data VGPR (encoded in the addr field) in the first active lane."""
    values = step.ops.vector(inst.src[0])
    values = np.broadcast_to(values, (step.n, step.w.lanes))
    first = np.argmax(step.ops.exec, axis=1)
    return values[np.arange(step.n), first].astype(np.int64)


def _sync(step, inst):
    sync = step.dispatch.plan.global_sync
    if sync is None or not sync.gws:
        raise step.illegal(f"{inst.mnemonic}: the queue has no GWS resources (only a cooperative "
                           "queue, HSA_QUEUE_TYPE_COOPERATIVE, has them)")
    return sync


def _park(step, wave, resource, sync):
    w = step.w
    w.waiting[wave] = w.parked[wave] = True
    w.gws_resource[wave] = resource
    w.gws_ticket[wave] = sync.arrivals
    sync.arrivals += 1


def _release(w, resource, count=None):
    """Let waves parked on `resource` go: all of them, or the `count` that arrived first."""
    parked = np.flatnonzero(w.parked & (w.gws_resource == resource))
    if count is not None:
        parked = parked[np.argsort(w.gws_ticket[parked], kind="stable")[:count]]
    w.waiting[parked] = w.parked[parked] = False
    return parked.size


def _per_wave(action):
    """Run action(step, sync, wave, resource, operand) for each wave of the group in order;
    every wave moves on to the next instruction (parked or not)."""
    def run(step, inst):
        sync = _sync(step, inst)
        waves = step.wave_indices()
        resources = _resource(step, inst)
        operands = _operand(step, inst) if inst.src else np.zeros(step.n, np.int64)
        step.w.pc[step.idx] = inst.address + inst.size
        for k, wave in enumerate(waves):
            action(step, sync, int(wave), int(resources[k]), int(operands[k]))
        return True
    return run


@handles("ds_gws_init")
@_per_wave
def _init(step, sync, wave, resource, value):
    sync.counters[resource] = value


@handles("ds_gws_barrier")
@_per_wave
def _barrier(step, sync, wave, resource, value):
    if sync.counters[resource] > 0:
        sync.counters[resource] -= 1
        _park(step, wave, resource, sync)
    else:
        _release(step.w, resource)
        sync.counters[resource] = value


def _signal(step, sync, resource, count):
    """Add `count` to the semaphore and wake as many waiters as it now covers."""
    sync.counters[resource] += count
    woken = _release(step.w, resource, int(max(sync.counters[resource], 0)))
    sync.counters[resource] -= woken


@handles("ds_gws_sema_v")
@_per_wave
def _sema_v(step, sync, wave, resource, value):
    _signal(step, sync, resource, 1)


@handles("ds_gws_sema_br")
@_per_wave
def _sema_br(step, sync, wave, resource, value):
    _signal(step, sync, resource, value)


@handles("ds_gws_sema_p")
@_per_wave
def _sema_p(step, sync, wave, resource, value):
    if sync.counters[resource] > 0:
        sync.counters[resource] -= 1
    else:
        _park(step, wave, resource, sync)


@handles("ds_gws_sema_release_all")
@_per_wave
def _sema_release_all(step, sync, wave, resource, value):
    _release(step.w, resource)
