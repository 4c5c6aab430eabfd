/* The packet processor's loop, in C: one call per queue thread runs packets until one
   needs Python (a kernel dispatch, an error, a note for the trace) or the queue stops.

   Holds these invariants:
   - packets run strictly in queue order between the read and the write index, one at a
     time, so the barrier bit holds trivially;
   - a packet is executed from one snapshot of its 64 bytes, taken after its header was
     seen valid (acquire), so a producer rewriting a slot cannot tear what runs;
   - a slot is handed back (header INVALID, then read index + 1) after its packet finished
     and before its completion signal drops, so a client that saw the signal also sees the
     slot free; the completion signal drops exactly once, after the work and the profiling
     timestamps are visible;
   - every check the packet format asks for is made here, with ROCr's status: reserved
     fence scopes and unknown types (INVALID_PACKET_FORMAT), bad dimensions
     (INCOMPATIBLE_ARGUMENTS), oversized workgroups and grids (INVALID_ARGUMENT), a NULL kernel
     object (INVALID_CODE_OBJECT), a dependency that is not a live signal
     (INVALID_PACKET_FORMAT, checked before every wait, so a destroyed one is an error and
     not a spin); a failed packet is neither retired nor completed; more group memory than
     the agent holds goes to Python, whose launch refuses it with a report naming the
     kernel (INVALID_ALLOCATION);
   - waits (doorbell, dependencies) sleep in the signal futexes without the GIL, in slices
     of SG_PROC_SLICE_NS, so a queue being stopped or deactivated is noticed even when no
     signal changes;
   - a dispatch of a kernel with a native entry runs here, holding the binding table's read
     lock, so the entry cannot be unbound (its translation freed) while it runs. */
#include "shim.h"
#include "fastpath.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SG_PROC_SLICE_NS 50000000ull
#define SG_KERNEL_SLOTS 4096      /* bound kernel objects at once; more run through Python */

struct sg_proc {
    amd_queue_t *queue;
    uint8_t *ring;
    uint32_t size;
    uint64_t doorbell;
    uint32_t workgroup_max_size;
    uint32_t workgroup_max_dim[3];
    uint32_t group_segment_max;
    uint64_t grid_max_size;    /* work-items a grid holds at most (HSA_AGENT_INFO_GRID_MAX_SIZE) */
    int recording;             /* the trace, the timeline or captures are on (Python decides, once
                                  per queue): every dispatch goes to Python, which records it */
    _Atomic int halt;          /* closing, hsa_queue_inactivate or the queue's error state */
    uint64_t handed;           /* the packet handed to Python, retired by sg_proc_retire */
    uint64_t handed_start;
};

static int halted(sg_proc *p) { return atomic_load(&p->halt); }

/* kernel object -> native entry, open addressing; a removed binding leaves a tombstone,
   reused only once no dispatch through it is in flight. */
typedef struct {
    uint64_t kernel_object;   /* 0: never used; SG_UNBOUND: unbound since */
    sg_dispatch_entry entry;
    void *kernel;
    uint32_t in_flight;       /* dispatches running through this entry */
} sg_binding;
#define SG_UNBOUND UINT64_MAX
static sg_binding g_bindings[SG_KERNEL_SLOTS];
static pthread_mutex_t g_bindings_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_bindings_idle = PTHREAD_COND_INITIALIZER;

static uint32_t binding_slot(uint64_t kernel_object) {
    return (uint32_t)((kernel_object * 0x9E3779B97F4A7C15ull) >> 40) & (SG_KERNEL_SLOTS - 1);
}

/* Caller holds g_bindings_lock. */
static sg_binding *find_binding(uint64_t kernel_object) {
    for (uint32_t n = 0, i = binding_slot(kernel_object); n < SG_KERNEL_SLOTS; n++, i = (i + 1) & (SG_KERNEL_SLOTS - 1)) {
        if (g_bindings[i].kernel_object == kernel_object) return &g_bindings[i];
        if (g_bindings[i].kernel_object == 0) return NULL;
    }
    return NULL;
}

int sg_kernel_bind(uint64_t kernel_object, sg_dispatch_entry entry, void *kernel) {
    if (kernel_object == 0 || kernel_object == SG_UNBOUND || !entry) return -1;
    pthread_mutex_lock(&g_bindings_lock);
    sg_binding *b = find_binding(kernel_object);
    for (uint32_t n = 0, i = binding_slot(kernel_object); !b && n < SG_KERNEL_SLOTS; n++, i = (i + 1) & (SG_KERNEL_SLOTS - 1))
        if (g_bindings[i].kernel_object == 0 ||
            (g_bindings[i].kernel_object == SG_UNBOUND && g_bindings[i].in_flight == 0))
            b = &g_bindings[i];
    if (b && b->in_flight == 0) *b = (sg_binding){kernel_object, entry, kernel, 0};
    int bound = b && b->entry == entry && b->kernel == kernel;
    pthread_mutex_unlock(&g_bindings_lock);
    return bound ? 0 : -1;
}

void sg_kernel_unbind(uint64_t kernel_object) {
    pthread_mutex_lock(&g_bindings_lock);
    sg_binding *b = find_binding(kernel_object);
    if (b) {
        b->kernel_object = SG_UNBOUND;     /* no new dispatch finds it */
        while (b->in_flight) pthread_cond_wait(&g_bindings_idle, &g_bindings_lock);
        b->entry = NULL;
        b->kernel = NULL;
    }
    pthread_mutex_unlock(&g_bindings_lock);
}

/* Run a dispatch through its kernel's native entry, if it has one and nothing asks for
   Python (recording): SG_PROC_CONTINUE when it ran, SG_PROC_STOPPED when it ended early for
   the queue's sake, SG_PROC_FAULT when it faulted, SG_PROC_DISPATCH when Python must run it. */
static int run_native(sg_proc *p, uint64_t index, sg_proc_event *ev) {
    if (p->recording || ev->packet.group_segment_size > p->group_segment_max) return SG_PROC_DISPATCH;
    /* SOFTGPU_ENGINE=interp holds for kernels bound before it was set too: Python runs them. */
    const char *engine = sg_setting(SG_SETTING_SOFTGPU_ENGINE);
    if (engine && strcmp(engine, "interp") == 0) return SG_PROC_DISPATCH;
    pthread_mutex_lock(&g_bindings_lock);
    sg_binding *b = find_binding(ev->packet.kernel_object);
    if (b) b->in_flight++;
    pthread_mutex_unlock(&g_bindings_lock);
    if (!b) return SG_PROC_DISPATCH;
    memset(&ev->fault, 0, sizeof ev->fault);
    const hsa_kernel_dispatch_packet_t *packet = &ev->packet;
    sg_launch launch = {
        .workgroup = {packet->workgroup_size_x, packet->workgroup_size_y, packet->workgroup_size_z},
        .grid = {packet->grid_size_x, packet->grid_size_y, packet->grid_size_z},
        .group_segment_size = packet->group_segment_size,
        .private_segment_size = packet->private_segment_size,
        .kernarg = (uint64_t)(uintptr_t)packet->kernarg_address,
        .packet = ev->packet_address, .queue = (uint64_t)(uintptr_t)p->queue, .dispatch_id = index,
    };
    uint32_t outcome = b->entry(b->kernel, &launch, (const int *)&p->halt, &ev->fault);
    pthread_mutex_lock(&g_bindings_lock);
    if (--b->in_flight == 0) pthread_cond_broadcast(&g_bindings_idle);
    pthread_mutex_unlock(&g_bindings_lock);
    switch (outcome) {
    case SG_ENTRY_RAN: return SG_PROC_CONTINUE;
    case SG_ENTRY_STOPPED: return SG_PROC_STOPPED;
    case SG_ENTRY_FAULTED: return SG_PROC_FAULT;
    default: return SG_PROC_DISPATCH;               /* declined */
    }
}

sg_proc *sg_proc_create(uintptr_t amd_queue, uint32_t workgroup_max_size, uint32_t max_x,
                        uint32_t max_y, uint32_t max_z, uint32_t group_segment_max,
                        uint64_t grid_max_size, int recording) {
    sg_proc *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->queue = (amd_queue_t *)amd_queue;
    p->ring = (uint8_t *)p->queue->hsa_queue.base_address;
    p->size = p->queue->hsa_queue.size;
    p->doorbell = p->queue->hsa_queue.doorbell_signal.handle;
    p->workgroup_max_size = workgroup_max_size;
    p->workgroup_max_dim[0] = max_x;
    p->workgroup_max_dim[1] = max_y;
    p->workgroup_max_dim[2] = max_z;
    p->group_segment_max = group_segment_max;
    p->grid_max_size = grid_max_size;
    p->recording = recording;
    return p;
}

void sg_proc_destroy(sg_proc *p) { free(p); }

/* Both rouse the thread through the doorbell (an add of 0 changes no value but wakes). */
void sg_proc_stop(sg_proc *p) {
    atomic_store(&p->halt, 1);
    sg_signal_add(p->doorbell, 0);
}

void sg_proc_deactivate(sg_proc *p) {
    atomic_store(&p->halt, 1);
    sg_signal_add(p->doorbell, 0);
}


static int fail(sg_proc_event *ev, uint32_t status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(sg_proc_event *ev, uint32_t status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(ev->text, sizeof ev->text, format, args);
    va_end(args);
    ev->status = status;
    return SG_PROC_ERROR;
}

#define HEADER_FIELD(header, name) \
    (((header) >> HSA_PACKET_HEADER_##name) & ((1u << HSA_PACKET_HEADER_WIDTH_##name) - 1))

static int fence_scope_valid(uint32_t scope) {
    return scope == HSA_FENCE_SCOPE_NONE || scope == HSA_FENCE_SCOPE_AGENT || scope == HSA_FENCE_SCOPE_SYSTEM;
}

/* SG_PROC_CONTINUE, or SG_PROC_ERROR with the event filled in. */
static int check_dispatch(const sg_proc *p, const hsa_kernel_dispatch_packet_t *k, sg_proc_event *ev) {
    uint32_t dims = (k->setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) & 0x3;
    uint32_t grid[3] = {k->grid_size_x, k->grid_size_y, k->grid_size_z};
    uint32_t group[3] = {k->workgroup_size_x, k->workgroup_size_y, k->workgroup_size_z};
    if (dims < 1 || dims > 3)
        return fail(ev, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "dispatch with %u dimensions", dims);
    /* Unused dimensions must be 1, as the HSA spec requires of producers. */
    for (uint32_t d = 0; d < 3; d++)
        if (d < dims ? grid[d] == 0 || group[d] == 0 : grid[d] != 1 || group[d] != 1)
            return fail(ev, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
                        "grid (%u, %u, %u) / workgroup (%u, %u, %u) do not fit %u dimension(s)",
                        grid[0], grid[1], grid[2], group[0], group[1], group[2], dims);
    uint64_t size = (uint64_t)group[0] * group[1] * group[2];
    if (size > p->workgroup_max_size || group[0] > p->workgroup_max_dim[0] ||
        group[1] > p->workgroup_max_dim[1] || group[2] > p->workgroup_max_dim[2])
        return fail(ev, HSA_STATUS_ERROR_INVALID_ARGUMENT, "workgroup (%u, %u, %u) exceeds the agent's limits",
                    group[0], group[1], group[2]);
    /* Each grid dimension fits its 32-bit field, which GRID_MAX_DIM allows whole; their
       product is what GRID_MAX_SIZE bounds (a 3-D grid can exceed it, and the engine's
       workgroup counts rely on it). */
    uint64_t items;
    if (__builtin_mul_overflow((uint64_t)grid[0] * grid[1], (uint64_t)grid[2], &items) ||
        items > p->grid_max_size)
        return fail(ev, HSA_STATUS_ERROR_INVALID_ARGUMENT,
                    "grid (%u, %u, %u) exceeds the agent's grid size %llu", grid[0], grid[1], grid[2],
                    (unsigned long long)p->grid_max_size);
    if (k->kernel_object == 0)
        return fail(ev, HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "kernel_object is NULL");
    return SG_PROC_CONTINUE;
}

static int require_live(uint64_t handle, const char *what, sg_proc_event *ev) {
    if (sg_signal_valid(handle)) return SG_PROC_CONTINUE;
    return fail(ev, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "%s %#llx is not a live signal", what,
                (unsigned long long)handle);
}

/* Barrier-AND (each dependency seen at 0, in turn) or barrier-OR (any one at 0). */
static int barrier(sg_proc *p, const hsa_barrier_and_packet_t *b, int any, sg_proc_event *ev) {
    uint64_t pending[5];
    int conditions[5];
    int64_t zeros[5] = {0};
    uint32_t count = 0;
    for (int i = 0; i < 5; i++)
        if (b->dep_signal[i].handle) {
            conditions[count] = HSA_SIGNAL_CONDITION_EQ;
            pending[count++] = b->dep_signal[i].handle;
        }
    uint32_t first = 0;
    while (first < count) {
        for (uint32_t i = first; i < count; i++)
            if (require_live(pending[i], "barrier dependency", ev) != SG_PROC_CONTINUE) return SG_PROC_ERROR;
        if (halted(p)) return SG_PROC_STOPPED;
        if (any) {
            if (sg_signal_wait_any(count, pending, conditions, zeros, SG_PROC_SLICE_NS, NULL) != UINT32_MAX)
                return SG_PROC_CONTINUE;
        } else {
            int satisfied;
            sg_signal_wait(pending[first], HSA_SIGNAL_CONDITION_EQ, 0, SG_PROC_SLICE_NS, &satisfied);
            first += satisfied;
        }
    }
    return SG_PROC_CONTINUE;
}

static int barrier_value(sg_proc *p, const hsa_amd_barrier_value_packet_t *b, sg_proc_event *ev) {
    if (b->header.AmdFormat != HSA_AMD_PACKET_TYPE_BARRIER_VALUE)
        return fail(ev, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "unknown AMD vendor packet format %u",
                    b->header.AmdFormat);
    if ((uint32_t)b->cond > HSA_SIGNAL_CONDITION_GTE)
        return fail(ev, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "barrier-value condition %u", (uint32_t)b->cond);
    uint64_t signal = b->signal.handle;
    if (!signal) return SG_PROC_CONTINUE; /* a NULL signal is a satisfied dependency */
    for (;;) {
        if (require_live(signal, "barrier-value signal", ev) != SG_PROC_CONTINUE) return SG_PROC_ERROR;
        if (halted(p)) return SG_PROC_STOPPED;
        int64_t value = sg_signal_load(signal);
        if (condition_holds((int)b->cond, value & b->mask, b->value)) return SG_PROC_CONTINUE;
        int satisfied;
        sg_signal_wait(signal, HSA_SIGNAL_CONDITION_NE, value, SG_PROC_SLICE_NS, &satisfied);
    }
}

/* Hand the slot back, then drop the completion signal. SG_PROC_NOTE (with the event
   filled in) when the completion signal is not live: the trace records it. */
static int retire_packet(sg_proc *p, uint64_t index, uint64_t completion, uint64_t start, sg_proc_event *ev) {
    uint64_t end = sg_now_ns();
    atomic_store_explicit((_Atomic uint16_t *)(p->ring + (index % p->size) * 64),
                          HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE, memory_order_release);
    sg_queue_store_read_index((uintptr_t)p->queue, index + 1);
    if (!completion) return SG_PROC_CONTINUE;
    if (!sg_signal_valid(completion)) {
        snprintf(ev->text, sizeof ev->text, "completion signal %#llx is not live", (unsigned long long)completion);
        return SG_PROC_NOTE;
    }
    if (p->queue->queue_properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING)
        sg_signal_set_timestamps(completion, start, end);
    sg_signal_add(completion, -1);
    return SG_PROC_CONTINUE;
}

int sg_proc_next(sg_proc *p, sg_proc_event *ev) {
    for (;;) {
        if (halted(p)) return SG_PROC_STOPPED;
        uint64_t index = sg_queue_read_index((uintptr_t)p->queue);
        uint8_t *slot = p->ring + (index % p->size) * 64;
        /* The doorbell is read before the header: a packet published in between rings it
           again, so the wait below cannot miss it. */
        int64_t rung = sg_signal_load(p->doorbell);
        uint16_t header = atomic_load_explicit((_Atomic uint16_t *)slot, memory_order_acquire);
        uint32_t type = HEADER_FIELD(header, TYPE);
        if (type == HSA_PACKET_TYPE_INVALID) {
            int satisfied;
            sg_signal_wait(p->doorbell, HSA_SIGNAL_CONDITION_NE, rung, SG_PROC_SLICE_NS, &satisfied);
            continue;
        }
        uint8_t snapshot[64];
        memcpy(snapshot, slot, sizeof snapshot);
        memcpy(snapshot, &header, sizeof header);
        ev->index = index;
        ev->packet_address = (uint64_t)(uintptr_t)slot;
        uint64_t start = ev->start = sg_now_ns();
        int outcome;
        if (!fence_scope_valid(HEADER_FIELD(header, SCACQUIRE_FENCE_SCOPE)) ||
            !fence_scope_valid(HEADER_FIELD(header, SCRELEASE_FENCE_SCOPE))) {
            outcome = fail(ev, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
                           "reserved fence scope in header (acquire %u, release %u)",
                           HEADER_FIELD(header, SCACQUIRE_FENCE_SCOPE), HEADER_FIELD(header, SCRELEASE_FENCE_SCOPE));
        } else if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
            memcpy(&ev->packet, snapshot, sizeof ev->packet);
            outcome = check_dispatch(p, &ev->packet, ev);
            if (outcome == SG_PROC_CONTINUE) outcome = run_native(p, index, ev);
            if (outcome == SG_PROC_DISPATCH) {
                p->handed = index;
                p->handed_start = start;
                return SG_PROC_DISPATCH;
            }
        } else if (type == HSA_PACKET_TYPE_BARRIER_AND || type == HSA_PACKET_TYPE_BARRIER_OR ||
                   type == HSA_PACKET_TYPE_VENDOR_SPECIFIC) {
            outcome = type == HSA_PACKET_TYPE_VENDOR_SPECIFIC
                          ? barrier_value(p, (const hsa_amd_barrier_value_packet_t *)snapshot, ev)
                          : barrier(p, (const hsa_barrier_and_packet_t *)snapshot, type == HSA_PACKET_TYPE_BARRIER_OR, ev);
            if (outcome == SG_PROC_CONTINUE && p->recording) {
                /* Recorded by Python, which then retires it (sg_proc_retire). */
                memcpy(&ev->packet, snapshot, sizeof ev->packet);
                p->handed = index;
                p->handed_start = start;
                return SG_PROC_BARRIER;
            }
        } else {
            /* GPU command processors take no agent-dispatch packets: ROCr reports them malformed. */
            outcome = fail(ev, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT,
                           "packet type %u is not executable on a GPU queue", type);
        }
        if (outcome != SG_PROC_CONTINUE) return outcome;
        /* Every packet type keeps its completion signal at the same offset. */
        outcome = retire_packet(p, index, ((const hsa_barrier_and_packet_t *)snapshot)->completion_signal.handle,
                         start, ev);
        if (outcome != SG_PROC_CONTINUE) return outcome;
    }
}

int sg_proc_retire(sg_proc *p, sg_proc_event *ev) {
    return retire_packet(p, p->handed, ev->packet.completion_signal.handle, p->handed_start, ev);
}
