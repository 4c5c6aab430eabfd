/* The native tier's runner: workgroups of a dispatch on a pool of native threads.

   Holds these invariants:
   - every wave starts in exactly the interpreter's launch state (core/isa/interp/chunk.py):
     user SGPRs, workgroup ids and info, scratch wave offset, work-item ids in v0-v2 (packed
     into v0 where the target takes them so), EXEC over the work-items of (possibly partial)
     workgroups, every other register zero;
   - a workgroup's waves run round-robin; s_barrier releases when every live wave of the
     group waits (an ended wave no longer counts), as in the interpreter;
   - forward progress: a wave yields after `quantum` instructions in a loop (fewer where its
     group has other waves, so they progress together: core/isa/native/dispatch.py), and a
     wave whose group has other runnable waves ends its turn before an LDS store once it read
     LDS and ran `store_turn` instructions in it (SG_TURN: it stays runnable, the round goes on,
     and the store issues when its next turn begins); a thread whose
     workgroups all yielded admits another (up to groups_in_flight) and round-robins them,
     so a wave spinning on a flag another wave, group or later group sets never starves it;
     workgroups are claimed in grid order, so results do not depend on the thread count;
   - a wave stopped at a callout (SG_CALLOUT) waits until its thread has run every group in
     flight once, then every wave of the thread stopped at one goes to the interpreter in one
     batch (copied to contiguous memory and back, as the interpreter's wave arrays), and runs on;
   - the first fault stops the dispatch: no thread starts a wave after it is recorded; a set
     `stop` flag ends it between rounds (out->stopped), as the interpreter stops between
     admissions, and ended workgroups are counted in `workgroups_done` as they end. */
#include <stddef.h>
#include <stdint.h>
#ifndef SG_RUNNER_H           /* runner.h is cdef'd by build_shim.py, so it can neither */
#define SG_RUNNER_H           /* include nor guard itself; shim.h includes it the same way */
#include "runner.h"
#endif

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t sg_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

_Static_assert(sizeof(sg_wave) <= SG_WAVE_VGPRS && SG_WAVE_VGPRS % 64 == 0,
               "VGPRs start on a cache line after the scalar state");

typedef struct {
    sg_group group;
    uint8_t *waves;                  /* waves_per_group states of wave_bytes */
    uint8_t *status;                 /* per wave: 0 runnable, 1 at a barrier, 2 ended, 3 at a callout */
    uint32_t live, waiting, callouts;
    int active;
} sg_slot;

typedef struct sg_job {
    const sg_dispatch *d;
    uint64_t total_groups;
    uint32_t groups[3];
    uint32_t batch;                  /* groups a thread claims at once (see work) */
    /* On cache lines of their own: threads claim groups all the time and read the stop flag
       before every wave (what follows it changes only when a thread joins or leaves). */
    _Alignas(64) _Atomic uint64_t next_group;
    _Alignas(64) _Atomic int stop;
    int helpers_wanted;              /* pool threads that may still join */
    int helpers_active;
    uint32_t next_thread_index;
    pthread_mutex_t lock;            /* guards the outcome and the helper counts */
    pthread_cond_t idle;
    sg_outcome *out;
    uint8_t *full_group;             /* the waves of a full workgroup, before placement */
    uint64_t start_ns;               /* when the dispatch began (time limit, notices) */
    _Atomic uint64_t next_notice_ns; /* run time after which the dispatch is next reported */
    struct sg_job *next;
} sg_job;

static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_pool_wake = PTHREAD_COND_INITIALIZER;
static sg_job *g_jobs;
static uint32_t g_pool_threads;      /* workers started, plus the calling thread */

static uint64_t wave_bytes(const sg_dispatch *d) {
    return SG_WAVE_VGPRS + (uint64_t)d->nvgpr * d->lanes * 4;
}

int64_t sg_native_find_range(const sg_env *env, uint64_t lo, uint64_t hi) {
    uint64_t first = 0, count = env->range_count;
    if (hi < lo)
        return -1;                   /* the access wraps past 2**64 */
    while (count) {                  /* the last range starting at or before lo */
        uint64_t half = count / 2;
        if (env->ranges[first + half].start <= lo) {
            first += half + 1;
            count -= half + 1;
        } else {
            count = half;
        }
    }
    if (first == 0)
        return -1;
    const sg_range *r = &env->ranges[first - 1];
    return hi <= r->end ? (int64_t)(first - 1) : -1;
}

/* Python's answer for memory allocated after the ranges were published, core/isa/native/
   live_memory.py (an extern "Python" function that build_shim.py declares; cffi takes the
   GIL around it): 1 and the valid range holding [lo, hi) in `out`, or 0. */
static int sg_live_range(void *live, uint64_t lo, uint64_t hi, sg_range *out);

/* The range holding [lo, hi): `hint` (the range a neighbouring element hit) when it does,
   else found by search among the ranges published as the dispatch started, else (memory
   allocated since: a hostcall's device malloc) among the live ranges Python answers with,
   kept in `late` (one range a call: callers copy what must outlive the next lookup); NULL
   when none holds it. */
static const sg_range *range_holding(const sg_env *env, const sg_range *hint, uint64_t lo,
                                     uint64_t hi, sg_range *late) {
    if (hint && lo >= hint->start && hi <= hint->end && hi >= lo)
        return hint;
    int64_t found = sg_native_find_range(env, lo, hi);
    if (found >= 0)
        return &env->ranges[found];
    if (env->live && hi >= lo && sg_live_range(env->live, lo, hi, late))
        return late;
    return NULL;
}

static void remember(sg_range *site, const sg_range *range) {
    if (range)                       /* the access's next run most likely lands there too */
        *site = *range;
}

/* Four dwords at a 16-byte aligned host address as one 16-byte access (a volatile 16-byte
   vector is one aligned SSE move): the GPU's aligned 128-bit accesses are single-copy atomic,
   and rocPRIM's look-back publishes a value with its flag in one such word while other
   workgroups poll it. `rows` points at element 0 of a lane; the lane's elements lie `lanes`
   words apart. */
typedef uint32_t sg_quad __attribute__((vector_size(16)));

static void move_quad(uint8_t *at, uint32_t *rows, uint32_t lanes, int load) {
    if (load) {
        sg_quad q = *(volatile sg_quad *)at;
        for (int i = 0; i < 4; i++)
            rows[i * lanes] = q[i];
    } else {
        sg_quad q = {rows[0], rows[lanes], rows[2 * lanes], rows[3 * lanes]};
        *(volatile sg_quad *)at = q;
    }
}

/* Element moves of a constant size, which the compiler turns into one load or store each
   (memcpy with a run-time size is a call). */
static uint32_t load_element(const uint8_t *at, uint32_t esize) {
    uint8_t b;
    uint16_t h;
    uint32_t w;
    switch (esize) {
    case 1: memcpy(&b, at, 1); return b;
    case 2: memcpy(&h, at, 2); return h;
    default: memcpy(&w, at, 4); return w;
    }
}

static void store_element(uint8_t *at, uint32_t value, uint32_t esize) {
    uint8_t b = (uint8_t)value;
    uint16_t h = (uint16_t)value;
    switch (esize) {
    case 1: memcpy(at, &b, 1); break;
    case 2: memcpy(at, &h, 2); break;
    default: memcpy(at, &value, 4); break;
    }
}

/* One element a lane, the common gather and scatter. */
static void move_single(const uint64_t *addresses, uint64_t mask, uint32_t lanes, uint32_t esize,
                        uint32_t *data, int load) {
    uint64_t last = 0;
    uint32_t value = 0;
    int seen = 0;
    for (uint32_t lane = 0; lane < lanes; lane++) {
        uint8_t *at = (uint8_t *)(uintptr_t)addresses[lane];
        if (!(mask >> lane & 1)) {
            if (load)
                data[lane] = 0;
        } else if (!load) {
            store_element(at, data[lane], esize);
        } else {
            /* A lane at the previous active lane's address sees its value (read once). */
            if (!seen || addresses[lane] != last)
                value = load_element(at, esize);
            data[lane] = value;
            last = addresses[lane];
            seen = 1;
        }
    }
}

int32_t sg_native_move(const uint64_t *addresses, uint64_t mask, uint32_t lanes, uint32_t elements,
                       uint32_t esize, uint64_t stride, uint32_t *data, uint32_t flags) {
    if (elements == 1 && (flags & (SG_ACCESS_LOAD | SG_ACCESS_STORE))) {
        move_single(addresses, mask, lanes, esize, data, (flags & SG_ACCESS_LOAD) != 0);
        return -1;
    }
    int32_t previous = -1;
    for (uint32_t lane = 0; lane < lanes; lane++) {
        if (!(mask >> lane & 1)) {
            for (uint32_t e = 0; e < elements && (flags & SG_ACCESS_LOAD); e++)
                data[e * lanes + lane] = 0;
            continue;
        }
        /* Lanes that read one address see one value, as the GPU reads it once per
           instruction (a wave polling a flag relies on it while another thread stores). */
        int same = previous >= 0 && addresses[previous] == addresses[lane];
        for (uint32_t e = 0; e < elements; e++) {
            uint8_t *at = (uint8_t *)(uintptr_t)(addresses[lane] + e * stride);
            uint32_t *value = &data[e * lanes + lane];
            if (esize == 4 && stride == 4 && elements == 4 && e == 0 && !((uintptr_t)at & 15)
                && !(same && (flags & SG_ACCESS_LOAD)) && (flags & (SG_ACCESS_LOAD | SG_ACCESS_STORE))) {
                move_quad(at, value, lanes, flags & SG_ACCESS_LOAD);
                break;
            }
            /* An aligned pair of dwords moves as one 8-byte access: the GPU's 64-bit accesses
               are single-copy atomic (a wave polls a 64-bit flag another thread stores). */
            if (esize == 4 && stride == 4 && e + 1 < elements && !((uintptr_t)at & 7)
                && !(same && (flags & SG_ACCESS_LOAD))) {
                uint32_t *next = &data[(e + 1) * lanes + lane];
                if (flags & SG_ACCESS_LOAD) {
                    uint64_t v = __atomic_load_n((uint64_t *)at, __ATOMIC_RELAXED);
                    *value = (uint32_t)v;
                    *next = (uint32_t)(v >> 32);
                } else if (flags & SG_ACCESS_STORE) {
                    __atomic_store_n((uint64_t *)at, *value | (uint64_t)*next << 32, __ATOMIC_RELAXED);
                }
                e++;
                continue;
            }
            if (flags & SG_ACCESS_LOAD)
                *value = same ? data[e * lanes + previous] : load_element(at, esize);
            else if (flags & SG_ACCESS_STORE)
                store_element(at, *value, esize);
        }
        previous = (int32_t)lane;
    }
    return -1;
}

int32_t sg_native_access(const sg_env *env, sg_wave *wave, sg_range *site, uint64_t *addresses,
                         uint64_t mask, uint32_t lanes, uint32_t elements, uint32_t esize,
                         uint64_t stride, uint32_t *data, uint32_t flags) {
    if (flags & SG_ACCESS_RUN)
        for (uint32_t lane = 1; lane < lanes; lane++)
            addresses[lane] = addresses[0] + (uint64_t)lane * esize;
    if (flags & SG_ACCESS_CHECK) {
        sg_range first = {UINT64_MAX, 0, 0}, late;
        const sg_range *range = NULL;
        for (uint32_t lane = 0; lane < lanes; lane++) {
            if (!(mask >> lane & 1))
                continue;
            uint64_t delta = 0;
            for (uint32_t e = 0; e < elements; e++) {
                uint64_t at = addresses[lane] + e * stride;
                range = range_holding(env, range, at, at + esize, &late);
                if (!range) {
                    wave->fault_address = at;
                    return (int32_t)lane;
                }
                if (e == 0)
                    delta = range->delta;
                if (first.start > first.end)
                    first = *range;
            }
            addresses[lane] -= delta;
        }
        remember(site, first.start <= first.end ? &first : NULL);
    }
    return sg_native_move(addresses, mask, lanes, elements, esize, stride, data, flags);
}

/* Device address of element e of a lane through a V#; 0 when a linear V#'s bounds exclude it. */
static uint64_t buffer_address(const uint32_t *rsrc, uint64_t index, uint64_t offset,
                               uint32_t esize, uint64_t start, int *inside) {
    uint64_t stride = rsrc[1] >> 16 & 0x3FFF;
    if (rsrc[1] >> 31) {             /* swizzled: index_stride lanes of dwords */
        uint64_t istride = 8ull << (rsrc[3] >> 21 & 3);
        *inside = 1;
        return start + (index / istride * stride + offset / 4 * 4) * istride
               + index % istride * 4 + offset % 4;
    }
    uint64_t records = rsrc[2];
    *inside = stride == 0 ? offset + esize <= records : index < records && offset < stride;
    return start + index * stride + offset;
}

int32_t sg_native_buffer(const sg_env *env, sg_wave *wave, sg_range *site, const uint32_t *rsrc,
                         uint32_t soffset, uint32_t offset, uint32_t offen, uint32_t idxen,
                         const uint32_t *vindex, const uint32_t *voffset, uint64_t mask,
                         uint32_t lanes, uint32_t elements, uint32_t esize, uint64_t *addresses,
                         uint32_t *data, uint32_t flags) {
    uint64_t base = rsrc[0] | (uint64_t)(rsrc[1] & 0xFFFF) << 32;
    uint64_t start = base + soffset;
    uint64_t add_tid = rsrc[3] >> 23 & 1;
    sg_range cached = {UINT64_MAX, 0, 0}, late;
    const sg_range *hint = NULL;
    for (int pass = 0; pass < 2; pass++) {   /* check every element, then move them */
        if (pass == 0 && !(flags & SG_ACCESS_CHECK))
            continue;
        for (uint32_t lane = 0; lane < lanes; lane++) {
            if (!(mask >> lane & 1)) {
                for (uint32_t e = 0; e < elements && pass && (flags & SG_ACCESS_LOAD); e++)
                    data[e * lanes + lane] = 0;
                continue;
            }
            uint64_t index = (idxen ? vindex[lane] : 0) + add_tid * lane;
            /* a 32-bit sum: gfx12's instruction offset may be negative */
            uint64_t lane_offset = (uint32_t)(offset + (offen ? voffset[lane] : 0));
            if (pass == 0 && addresses)
                addresses[lane] = 0;
            for (uint32_t e = 0; e < elements; e++) {
                int inside;
                uint64_t at = buffer_address(rsrc, index, lane_offset + (uint64_t)e * esize, esize,
                                             start, &inside);
                const sg_range *range = inside ? range_holding(env, hint, at, at + esize, &late) : NULL;
                if (range)
                    hint = range;
                if (pass == 0) {
                    if (!inside)
                        continue;
                    if (!range) {
                        wave->fault_address = at;
                        return (int32_t)lane;
                    }
                    if (cached.start > cached.end)
                        cached = *range;
                    if (e == 0 && addresses)
                        addresses[lane] = at - range->delta;
                    continue;
                }
                uint32_t *value = &data[e * lanes + lane];
                if (!inside || !range) {      /* unchecked accesses trust their caller */
                    if (flags & SG_ACCESS_LOAD)
                        *value = 0;
                    continue;
                }
                uint8_t *host = (uint8_t *)(uintptr_t)(at - range->delta);
                if (esize == 4 && elements == 4 && e == 0 && !((uintptr_t)host & 15)
                    && (flags & (SG_ACCESS_LOAD | SG_ACCESS_STORE))) {
                    /* Four dwords in a row in one range move as one 16-byte access (move_quad);
                       the last one in bounds keeps the others in (bounds grow with the offset). */
                    int last_inside;
                    uint64_t last = buffer_address(rsrc, index, lane_offset + 12, esize, start,
                                                   &last_inside);
                    if (last_inside && last == at + 12 && at + 16 <= range->end) {
                        move_quad(host, value, lanes, flags & SG_ACCESS_LOAD);
                        break;
                    }
                }
                if (esize == 4 && e + 1 < elements && !((uintptr_t)host & 7)) {
                    /* An aligned dword pair in one range moves as one 8-byte access, as in
                       sg_native_access (the GPU's 64-bit accesses are single-copy atomic). */
                    int next_inside;
                    uint64_t next = buffer_address(rsrc, index, lane_offset + (uint64_t)(e + 1) * esize,
                                                   esize, start, &next_inside);
                    if (next_inside && next == at + 4 && at + 8 <= range->end) {
                        uint32_t *high = &data[(e + 1) * lanes + lane];
                        if (flags & SG_ACCESS_LOAD) {
                            uint64_t v = __atomic_load_n((uint64_t *)host, __ATOMIC_RELAXED);
                            *value = (uint32_t)v;
                            *high = (uint32_t)(v >> 32);
                        } else if (flags & SG_ACCESS_STORE) {
                            __atomic_store_n((uint64_t *)host, *value | (uint64_t)*high << 32,
                                             __ATOMIC_RELAXED);
                        }
                        e++;
                        continue;
                    }
                }
                if (flags & SG_ACCESS_LOAD) {
                    uint32_t v = 0;
                    memcpy(&v, host, esize);
                    *value = v;
                } else if (flags & SG_ACCESS_STORE) {
                    memcpy(host, value, esize);
                }
            }
        }
    }
    remember(site, cached.start <= cached.end ? &cached : NULL);
    return -1;
}

/* A wave's launch state that does not depend on which workgroup it belongs to. */
static void fill_wave(const sg_dispatch *d, sg_wave *wave, uint32_t w, const uint32_t local[3]) {
    memset(wave, 0, wave_bytes(d));
    memcpy(wave->sgpr, d->user_sgpr, sizeof(uint32_t) * d->user_sgpr_count);
    if (d->workgroup_info_slot != SG_NO_SLOT)
        wave->sgpr[d->workgroup_info_slot] = d->waves_per_group;
    wave->wave_in_group = w;
    wave->mode = d->mode;
    uint32_t *vgpr = (uint32_t *)((uint8_t *)wave + SG_WAVE_VGPRS);
    uint32_t dims = d->workitem_dims < d->nvgpr ? d->workitem_dims : d->nvgpr;
    uint64_t items = (uint64_t)local[0] * local[1] * local[2];
    uint64_t exec = 0;
    for (uint32_t lane = 0; lane < d->lanes; lane++) {
        uint64_t flat = (uint64_t)w * d->lanes + lane;
        if (flat >= items)
            continue;
        exec |= 1ull << lane;
        uint32_t id[3] = {(uint32_t)(flat % local[0]), (uint32_t)(flat / local[0] % local[1]),
                          (uint32_t)(flat / ((uint64_t)local[0] * local[1]))};
        for (uint32_t k = 0; k < dims; k++) {
            if (d->packed_workitem_ids)
                vgpr[lane] |= id[k] << (10 * k);
            else
                vgpr[k * d->lanes + lane] = id[k];
        }
    }
    wave->sgpr[126] = (uint32_t)exec;
    wave->sgpr[127] = d->lanes == 64 ? (uint32_t)(exec >> 32) : 0;
}

static void setup_group(const sg_dispatch *d, sg_job *job, sg_slot *slot, uint64_t index,
                        uint64_t first_scratch_slot) {
    uint32_t gx = job->groups[0], gy = job->groups[1];
    slot->group.id[0] = (uint32_t)(index % gx);
    slot->group.id[1] = (uint32_t)(index / gx % gy);
    slot->group.id[2] = (uint32_t)(index / ((uint64_t)gx * gy));
    slot->group.waves = d->waves_per_group;
    uint32_t local[3];
    int full = 1;
    for (int k = 0; k < 3; k++) {
        uint64_t start = (uint64_t)slot->group.id[k] * d->workgroup[k];
        uint64_t left = d->grid[k] - start;
        local[k] = left < d->workgroup[k] ? (uint32_t)left : d->workgroup[k];
        full &= local[k] == d->workgroup[k];
    }
    if (d->env.lds_bytes)
        memset(slot->group.lds, 0, d->env.lds_bytes);
    uint64_t bytes = wave_bytes(d);
    if (full)                        /* full groups start from one template (work-item ids) */
        memcpy(slot->waves, job->full_group, bytes * d->waves_per_group);
    for (uint32_t w = 0; w < d->waves_per_group; w++) {
        sg_wave *wave = (sg_wave *)(slot->waves + w * bytes);
        if (!full)
            fill_wave(d, wave, w, local);
        for (int k = 0; k < 3; k++)
            if (d->workgroup_id_slot[k] != SG_NO_SLOT)
                wave->sgpr[d->workgroup_id_slot[k]] = slot->group.id[k];
        if (d->architected_ids) {
            wave->sgpr[SG_TTMP + 8] = w << 25;
            wave->sgpr[SG_TTMP + 9] = slot->group.id[0];
            wave->sgpr[SG_TTMP + 7] = (slot->group.id[1] & 0xFFFF) | slot->group.id[2] << 16;
        }
        uint64_t offset = (first_scratch_slot + w) * d->wave_scratch_bytes;
        if (d->wave_offset_slot != SG_NO_SLOT)
            wave->sgpr[d->wave_offset_slot] = (uint32_t)offset;
        wave->scratch = d->scratch_base + offset;
        slot->status[w] = 0;
    }
    slot->live = d->waves_per_group;
    slot->waiting = slot->callouts = 0;
    slot->active = 1;
}

static void record_fault(sg_job *job, sg_slot *slot, sg_wave *wave, int32_t code) {
    pthread_mutex_lock(&job->lock);
    if (!job->out->fault_code) {
        sg_outcome *o = job->out;
        o->fault_code = code;
        o->fault_lane = wave->fault_lane;
        memcpy(o->fault_workgroup, slot->group.id, sizeof(o->fault_workgroup));
        o->fault_wave = wave->wave_in_group;
        o->fault_resume = wave->resume;
        o->fault_pc = wave->pc;
        o->fault_address = wave->fault_address;
        o->fault_detail = wave->fault_detail;
    }
    pthread_mutex_unlock(&job->lock);
    atomic_store(&job->stop, 1);
}

typedef struct {
    uint64_t waves, workgroups, wave_instructions, lane_instructions;
} sg_tally;

/* Gives every runnable wave of the group turns until the group ends or a wave yields.
   Returns 1 when the group ended, 0 when it yielded or waits for callouts, -1 on a fault. */
static int run_group(const sg_dispatch *d, sg_job *job, sg_slot *slot, sg_tally *tally) {
    uint64_t bytes = wave_bytes(d);
    for (;;) {
        int yielded = 0;
        for (uint32_t w = 0; w < d->waves_per_group; w++) {
            if (slot->status[w] != 0)
                continue;
            if (atomic_load_explicit(&job->stop, memory_order_relaxed))
                return -1;
            sg_wave *wave = (sg_wave *)(slot->waves + w * bytes);
            uint64_t budget = wave->executed + d->quantum;
            wave->yield_at = d->watchdog && budget > d->watchdog + 1 ? d->watchdog + 1 : budget;
            uint32_t runnable = slot->live - slot->waiting - slot->callouts;
            wave->cut_at = d->store_turn && runnable > 1 ? wave->executed + d->store_turn : UINT64_MAX;
            int32_t status = d->wave(wave, &slot->group, &d->env);
            if (status == SG_TURN)
                continue;
            if (status == SG_YIELD) {
                if (d->watchdog && wave->executed > d->watchdog) {
                    wave->fault_lane = -1;
                    record_fault(job, slot, wave, SG_FAULT_WATCHDOG);
                    return -1;
                }
                yielded = 1;
                continue;
            }
            if (status == SG_FAULT) {
                record_fault(job, slot, wave, wave->fault_code);
                return -1;
            }
            if (status == SG_CALLOUT) {
                slot->status[w] = 3;
                slot->callouts++;
                continue;
            }
            if (status == SG_BARRIER) {
                slot->status[w] = 1;
                slot->waiting++;
            } else {
                slot->status[w] = 2;
                slot->live--;
                tally->waves++;
                tally->wave_instructions += wave->executed;
                tally->lane_instructions += wave->lane_instructions;
            }
            if (slot->live && slot->waiting == slot->live) {
                for (uint32_t k = 0; k < d->waves_per_group; k++)
                    if (slot->status[k] == 1)
                        slot->status[k] = 0;
                slot->waiting = 0;
            }
        }
        if (!slot->live) {
            slot->active = 0;
            tally->workgroups++;
            return 1;
        }
        if (yielded || slot->callouts)
            return 0;
    }
}

void sg_native_compare_exchange(const uint64_t *addresses, void *expected, const void *desired,
                                uint8_t *swapped, uint64_t count, uint32_t width) {
    for (uint64_t i = 0; i < count; i++) {
        void *word = (void *)(uintptr_t)addresses[i];
        if (width == 8)
            swapped[i] = __atomic_compare_exchange_n((uint64_t *)word, (uint64_t *)expected + i,
                                                     ((const uint64_t *)desired)[i], 0,
                                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        else
            swapped[i] = __atomic_compare_exchange_n((uint32_t *)word, (uint32_t *)expected + i,
                                                     ((const uint32_t *)desired)[i], 0,
                                                     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
}

/* Python's side of callouts, core/isa/native/handover.py (an extern "Python" function that
   build_shim.py declares; cffi takes the GIL around it): runs `count` waves whose states lie
   back to back in `states` (`bytes` each), wave i of group group_of_wave[i], whose id is
   group_ids[3 * g ...] and LDS lds[g]. Returns -1, or the index of a wave whose fault it
   set in its state (fault_code SG_FAULT_CALLOUT). */
static int64_t sg_handover(const sg_env *env, uint8_t *states, uint64_t count, uint64_t bytes,
                           const uint32_t *group_of_wave, const uint32_t *group_ids, uint8_t **lds,
                           uint64_t groups);

/* A thread's staging area for callout batches, grown as needed. */
typedef struct {
    uint8_t *states;
    uint32_t *owner;                 /* per wave: slot << 16 | wave in group */
    uint32_t *group_of_wave, *group_ids;
    uint8_t **lds;
    uint64_t capacity, group_capacity;
} sg_batch;

static int grow(void **p, uint64_t count, uint64_t size) {
    void *q = realloc(*p, count * size);
    if (!q) return -1;
    *p = q;
    return 0;
}

static int batch_reserve(sg_batch *b, uint64_t waves, uint64_t groups, uint64_t bytes) {
    if (waves > b->capacity) {
        if (grow((void **)&b->states, waves, bytes) || grow((void **)&b->owner, waves, 4) ||
            grow((void **)&b->group_of_wave, waves, 4))
            return -1;
        b->capacity = waves;
    }
    if (groups > b->group_capacity) {
        if (grow((void **)&b->group_ids, groups, 12) || grow((void **)&b->lds, groups, sizeof(uint8_t *)))
            return -1;
        b->group_capacity = groups;
    }
    return 0;
}

/* Hands every wave of the thread's groups that stopped at a callout to the interpreter in one
   batch; they are runnable again. Returns 0, or -1 after recording a fault. */
static int run_callouts(const sg_dispatch *d, sg_job *job, sg_slot *slots, uint32_t allocated,
                        sg_batch *b) {
    uint64_t bytes = wave_bytes(d), waves = 0, groups = 0;
    for (uint32_t s = 0; s < allocated; s++)
        if (slots[s].active && slots[s].callouts) {
            waves += slots[s].callouts;
            groups++;
        }
    if (!waves)
        return 0;
    if (batch_reserve(b, waves, groups, bytes)) {
        sg_slot *slot = &slots[0];
        sg_wave *wave = (sg_wave *)slot->waves;
        wave->fault_lane = -1;
        wave->fault_detail = UINT64_MAX;         /* Python reads it as out of memory */
        record_fault(job, slot, wave, SG_FAULT_CALLOUT);
        return -1;
    }
    uint64_t n = 0, g = 0;
    for (uint32_t s = 0; s < allocated; s++) {
        sg_slot *slot = &slots[s];
        if (!slot->active || !slot->callouts)
            continue;
        for (uint32_t w = 0; w < d->waves_per_group; w++)
            if (slot->status[w] == 3) {
                memcpy(b->states + n * bytes, slot->waves + w * bytes, bytes);
                b->owner[n] = s << 16 | w;
                b->group_of_wave[n++] = (uint32_t)g;
            }
        memcpy(b->group_ids + 3 * g, slot->group.id, 12);
        b->lds[g++] = slot->group.lds;
    }
    int64_t bad = sg_handover(&d->env, b->states, n, bytes, b->group_of_wave, b->group_ids, b->lds, g);
    for (uint64_t i = 0; i < n; i++) {
        sg_slot *slot = &slots[b->owner[i] >> 16];
        uint32_t w = b->owner[i] & 0xFFFF;
        memcpy(slot->waves + w * bytes, b->states + i * bytes, bytes);
        slot->status[w] = 0;
        slot->callouts = 0;
    }
    if (bad >= 0) {
        sg_slot *slot = &slots[b->owner[bad] >> 16];
        record_fault(job, slot, (sg_wave *)(slot->waves + (b->owner[bad] & 0xFFFF) * bytes),
                     SG_FAULT_CALLOUT);
        return -1;
    }
    return 0;
}

/* Python's report of a dispatch that has run `elapsed` ns (core/isa/native/dispatch.py, an
   extern "Python" function build_shim.py declares): the kernel's name and the PCs the
   reporting thread's waves stand at. */
static void sg_long_dispatch(const char *name, uint64_t elapsed, const uint64_t *pcs, uint64_t count);

/* The dispatch's clock, looked at between rounds: a dispatch past its next notice time is
   reported once (by the thread that saw it first, with its own waves' PCs: a hang shows where
   it spins), then again at twice the run time; one past its time limit faults at the first
   live wave of the thread. Returns -1 after recording that fault, else 0. */
static int check_clock(const sg_dispatch *d, sg_job *job, sg_slot *slots, uint32_t allocated) {
    uint64_t elapsed = sg_now_ns() - job->start_ns;
    uint64_t notice = atomic_load(&job->next_notice_ns);
    if (elapsed >= notice && atomic_compare_exchange_strong(&job->next_notice_ns, &notice,
                                                            2 * elapsed > notice ? 2 * elapsed : notice + 1)) {
        uint64_t *pcs = malloc(sizeof(uint64_t) * allocated * d->waves_per_group + 1);
        uint64_t n = 0;
        for (uint32_t s = 0; s < allocated && pcs; s++)
            for (uint32_t w = 0; slots[s].active && w < d->waves_per_group; w++)
                if (slots[s].status[w] != 2)
                    pcs[n++] = d->env.code_base
                               + ((sg_wave *)(slots[s].waves + w * wave_bytes(d)))->pc;
        sg_long_dispatch(d->name ? d->name : "kernel", elapsed, pcs, n);
        free(pcs);
    }
    if (!d->time_limit_ns || elapsed < d->time_limit_ns)
        return 0;
    for (uint32_t s = 0; s < allocated; s++)
        for (uint32_t w = 0; slots[s].active && w < d->waves_per_group; w++)
            if (slots[s].status[w] != 2) {
                sg_wave *wave = (sg_wave *)(slots[s].waves + w * wave_bytes(d));
                wave->fault_lane = -1;
                record_fault(job, &slots[s], wave, SG_FAULT_TIME_LIMIT);
                return -1;
            }
    return 0;                        /* no wave in flight here: another thread's will fault */
}

static void work(sg_job *job, uint32_t thread_index) {
    const sg_dispatch *d = job->d;
    uint32_t in_flight = d->groups_in_flight ? d->groups_in_flight : 1;
    uint64_t bytes = wave_bytes(d);
    uint64_t lds = (d->env.lds_bytes + 63) & ~63ull;
    sg_slot *slots = calloc(in_flight, sizeof(sg_slot));
    /* One range cache for the thread's groups: their waves run one at a time. */
    uint32_t site_count = d->access_sites ? d->access_sites : 1;
    sg_range *sites = malloc(site_count * sizeof(sg_range));
    for (uint32_t k = 0; k < site_count; k++)
        sites[k] = (sg_range){UINT64_MAX, 0, 0};
    sg_tally tally = {0};
    sg_batch batch = {0};
    uint32_t allocated = 0;
    int exhausted = 0;
    /* Waves at callouts go to the interpreter a batch a round: a kernel with callouts admits
       all it may at once, so its first batches are not of one group. */
    uint32_t admit = d->env.callout ? in_flight : 1, round = 0;
    uint64_t mine = 0, mine_end = 0;   /* claimed groups not yet admitted: [mine, mine_end) */
    uint64_t unreported = 0;         /* ended groups not yet added to d->workgroups_done */
    for (;;) {
        uint32_t active = 0;
        for (uint32_t s = 0; s < allocated; s++)
            active += slots[s].active;
        /* Admit `admit` groups: one a round while every group ends in its turn, twice as many
           as the last round asked for while any group yields (it may wait on groups not yet
           admitted), so a grid whose groups wait on each other becomes resident in a few
           rounds, as on a GPU that holds them all. Groups are claimed in grid order, a batch
           at once only by a thread with none in flight: the batch then fits its free slots,
           so a claimed group never waits for a slot behind groups that wait for it. */
        for (uint32_t n = 0; n < admit && active < in_flight; n++) {
            if (mine == mine_end) {
                if (exhausted)
                    break;
                uint32_t take = active ? 1 : job->batch < in_flight ? job->batch : in_flight;
                mine = atomic_fetch_add(&job->next_group, take);
                mine_end = mine + take < job->total_groups ? mine + take : job->total_groups;
                if (mine >= job->total_groups) {
                    exhausted = 1;
                    mine = mine_end;
                    break;
                }
            }
            uint64_t index = mine++;
            uint32_t s = 0;
            while (s < allocated && slots[s].active)
                s++;
            if (s == allocated) {
                slots[s].waves = aligned_alloc(64, bytes * d->waves_per_group);
                slots[s].status = malloc(d->waves_per_group);
                slots[s].group.lds = lds ? aligned_alloc(64, lds) : NULL;
                slots[s].group.sites = sites;
                allocated++;
            }
            uint64_t scratch_slot = ((uint64_t)thread_index * in_flight + s) * d->waves_per_group;
            setup_group(d, job, &slots[s], index, scratch_slot);
            active++;
        }
        if (!active)
            break;
        /* Run the groups in flight once each, alternately first to last and last to first:
           a chain of groups each waiting on the next (or on the previous, as look-back scans
           do) then moves all along within a round. */
        int ended = 0, yielded = 0, fault = 0;
        round++;
        for (uint32_t n = 0; n < allocated && !fault; n++) {
            uint32_t s = round & 1 ? n : allocated - 1 - n;
            if (!slots[s].active)
                continue;
            int r = run_group(d, job, &slots[s], &tally);
            if (r < 0)
                fault = 1;
            else if (r)
                ended++;
            else
                yielded++;
        }
        if (!fault && run_callouts(d, job, slots, allocated, &batch))
            fault = 1;
        /* Rounds that yielded ran a quantum at least; others are looked at every 64th, so a
           grid of short workgroups pays nothing measurable for the clock. */
        if (!fault && (yielded || (round & 63) == 0) && check_clock(d, job, slots, allocated))
            fault = 1;
        unreported += (uint64_t)ended;
        if (unreported >= job->batch && d->workgroups_done) {   /* the count is for display */
            __atomic_fetch_add(d->workgroups_done, unreported, __ATOMIC_RELAXED);
            unreported = 0;
        }
        if (!fault && d->stop && __atomic_load_n(d->stop, __ATOMIC_RELAXED)) {
            pthread_mutex_lock(&job->lock);
            job->out->stopped = 1;
            pthread_mutex_unlock(&job->lock);
            atomic_store(&job->stop, 1);
        }
        if (fault || atomic_load(&job->stop))
            break;
        admit = !yielded ? 1 : admit < in_flight ? 2 * admit : in_flight;
        if (exhausted && mine == mine_end && !ended)
            sched_yield();           /* all that is left waits: let the other threads run */
    }
    for (uint32_t s = 0; s < allocated; s++) {
        free(slots[s].waves);
        free(slots[s].status);
        free(slots[s].group.lds);
    }
    free(slots);
    free(sites);
    free(batch.states);
    free(batch.owner);
    free(batch.group_of_wave);
    free(batch.group_ids);
    free(batch.lds);
    if (unreported && d->workgroups_done)
        __atomic_fetch_add(d->workgroups_done, unreported, __ATOMIC_RELAXED);
    pthread_mutex_lock(&job->lock);
    job->out->waves += tally.waves;
    job->out->workgroups += tally.workgroups;
    job->out->wave_instructions += tally.wave_instructions;
    job->out->lane_instructions += tally.lane_instructions;
    pthread_mutex_unlock(&job->lock);
}

static uint32_t usable_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return (uint32_t)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1;
}

static void *pool_worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&g_pool_lock);
    for (;;) {
        sg_job *job = g_jobs;
        while (job && job->helpers_wanted <= 0)
            job = job->next;
        if (!job) {
            pthread_cond_wait(&g_pool_wake, &g_pool_lock);
            continue;
        }
        job->helpers_wanted--;
        pthread_mutex_lock(&job->lock);
        job->helpers_active++;
        uint32_t index = job->next_thread_index++;
        pthread_mutex_unlock(&job->lock);
        pthread_mutex_unlock(&g_pool_lock);
        work(job, index);
        pthread_mutex_lock(&job->lock);
        job->helpers_active--;
        pthread_cond_broadcast(&job->idle);
        pthread_mutex_unlock(&job->lock);
        pthread_mutex_lock(&g_pool_lock);
    }
    return NULL;
}

/* The pool: `requested` threads in all (core/settings.py validated SOFTGPU_THREADS; 0: the
   usable cores), the calling thread of each dispatch being one of them; workers start once
   and live as long as the process. */
uint32_t sg_native_pool_threads(uint32_t requested) {
    pthread_mutex_lock(&g_pool_lock);
    if (!g_pool_threads) {
        g_pool_threads = requested ? requested : usable_cores();
        for (uint32_t i = 1; i < g_pool_threads; i++) {
            pthread_t thread;
            pthread_attr_t attr;
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&attr, (size_t)SG_THREAD_STACK_KIB << 10);
            if (pthread_create(&thread, &attr, pool_worker, NULL) != 0)
                g_pool_threads = i;
            pthread_attr_destroy(&attr);
        }
    }
    uint32_t n = g_pool_threads;
    pthread_mutex_unlock(&g_pool_lock);
    return n;
}

static void *callers_share(void *job) {
    work(job, 0);
    return NULL;
}

/* The calling thread's share of a dispatch whose frame its own stack may not hold, on a thread
   with a pool thread's stack; when none can start, the dispatch faults (SG_FAULT_NO_THREAD). */
static void work_on_own_stack(sg_job *job) {
    pthread_t thread;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, (size_t)SG_THREAD_STACK_KIB << 10);
    int started = pthread_create(&thread, &attr, callers_share, job) == 0;
    pthread_attr_destroy(&attr);
    if (started) {
        pthread_join(thread, NULL);
        return;
    }
    pthread_mutex_lock(&job->lock);
    if (!job->out->fault_code)
        job->out->fault_code = SG_FAULT_NO_THREAD;
    pthread_mutex_unlock(&job->lock);
    atomic_store(&job->stop, 1);
}

static uint32_t dispatch_threads(const sg_dispatch *d) {
    uint32_t pool = sg_native_pool_threads(0);     /* Python started it for this kernel */
    return d->threads && d->threads < pool ? d->threads : pool;
}

uint64_t sg_native_scratch_slots(const sg_dispatch *d) {
    uint32_t in_flight = d->groups_in_flight ? d->groups_in_flight : 1;
    return (uint64_t)dispatch_threads(d) * in_flight * d->waves_per_group;
}

int sg_native_dispatch(const sg_dispatch *d, sg_outcome *out) {
    memset(out, 0, sizeof(*out));
    sg_job job;
    memset(&job, 0, sizeof(job));
    job.d = d;
    job.out = out;
    /* In 64 bits: a grid of 2^32 - 1 work-items must not wrap to zero workgroups. Every
       count fits 32 bits (a workgroup holds one work-item at least); their product is at
       most what the grid's items are, which the agent limits to GRID_MAX_SIZE (checked by
       the packet processors), and saturates rather than wrap for any caller that did not. */
    for (int k = 0; k < 3; k++)
        job.groups[k] = (uint32_t)(((uint64_t)d->grid[k] + d->workgroup[k] - 1) / d->workgroup[k]);
    if (__builtin_mul_overflow((uint64_t)job.groups[0] * job.groups[1], (uint64_t)job.groups[2],
                               &job.total_groups))
        job.total_groups = UINT64_MAX;
    atomic_init(&job.next_group, d->first_group);
    job.start_ns = sg_now_ns();
    atomic_init(&job.next_notice_ns, d->notice_ns);
    uint32_t threads = dispatch_threads(d);
    /* Claims are few next to the groups (one atomic shared by every thread), yet small enough
       that the threads share the grid's end evenly. */
    uint64_t batch = job.total_groups / ((uint64_t)threads * 64);
    job.batch = batch < 1 ? 1 : batch > 16 ? 16 : (uint32_t)batch;
    pthread_mutex_init(&job.lock, NULL);
    pthread_cond_init(&job.idle, NULL);
    uint32_t full[3] = {d->workgroup[0], d->workgroup[1], d->workgroup[2]};
    job.full_group = aligned_alloc(64, wave_bytes(d) * d->waves_per_group);
    for (uint32_t w = 0; w < d->waves_per_group; w++)
        fill_wave(d, (sg_wave *)(job.full_group + w * wave_bytes(d)), w, full);
    uint64_t left = job.total_groups > d->first_group ? job.total_groups - d->first_group : 0;
    uint64_t helpers = threads - 1;
    if (helpers > left - 1)
        helpers = left ? left - 1 : 0;
    job.next_thread_index = 1;
    if (helpers) {
        job.helpers_wanted = (int)helpers;
        pthread_mutex_lock(&g_pool_lock);
        job.next = g_jobs;
        g_jobs = &job;
        pthread_cond_broadcast(&g_pool_wake);
        pthread_mutex_unlock(&g_pool_lock);
    }
    if (d->frame_kib <= SG_CALLER_FRAME_KIB)
        work(&job, 0);
    else
        work_on_own_stack(&job);
    if (helpers) {
        pthread_mutex_lock(&g_pool_lock);
        job.helpers_wanted = 0;
        sg_job **link = &g_jobs;
        while (*link != &job)
            link = &(*link)->next;
        *link = job.next;
        pthread_mutex_unlock(&g_pool_lock);
        pthread_mutex_lock(&job.lock);
        while (job.helpers_active)
            pthread_cond_wait(&job.idle, &job.lock);
        pthread_mutex_unlock(&job.lock);
    }
    free(job.full_group);
    pthread_mutex_destroy(&job.lock);
    pthread_cond_destroy(&job.idle);
    return out->fault_code != 0;
}

/* ---- native entries: dispatches the packet processors run without Python ---------------- */

static _Atomic uint64_t g_memory_version = 1;

void sg_native_memory_changed(void) { atomic_fetch_add(&g_memory_version, 1); }

uint64_t sg_native_memory_version(void) { return atomic_load(&g_memory_version); }

/* A published range table; dispatches hold a reference while they run. */
typedef struct {
    uint64_t refs, version, count;
    sg_range ranges[];
} sg_range_table;

struct sg_native_binding {
    pthread_mutex_t lock;
    int prepared;
    sg_dispatch d;
    uint8_t sources[SG_USER_SGPRS];
    uint32_t workgroup[3], group_segment_size, private_segment_size;
    sg_range_table *table;
};

sg_native_binding *sg_native_binding_create(void) {
    sg_native_binding *b = calloc(1, sizeof *b);
    if (b) pthread_mutex_init(&b->lock, NULL);
    return b;
}

void sg_native_binding_destroy(sg_native_binding *b) {
    if (!b) return;
    free(b->table);                  /* unbound first: no dispatch holds it any more */
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void release_table(sg_native_binding *b, sg_range_table *t) {
    pthread_mutex_lock(&b->lock);
    if (--t->refs == 0 && t != b->table) free(t);
    pthread_mutex_unlock(&b->lock);
}

int sg_native_binding_prepare(sg_native_binding *b, const sg_dispatch *d, const uint8_t *sources,
                              const uint32_t *workgroup, uint32_t group_segment_size,
                              uint32_t private_segment_size, const sg_range *ranges,
                              uint64_t range_count, uint64_t version) {
    sg_range_table *t = malloc(sizeof *t + range_count * sizeof(sg_range));
    if (!t) return -1;
    t->refs = 0;
    t->version = version;
    t->count = range_count;
    memcpy(t->ranges, ranges, range_count * sizeof(sg_range));
    pthread_mutex_lock(&b->lock);
    sg_range_table *old = b->table;
    if (old && old->refs == 0) free(old);
    b->table = t;
    b->d = *d;
    b->d.stop = NULL;
    b->d.workgroups_done = NULL;
    b->d.first_group = 0;            /* an entry runs whole dispatches */
    memcpy(b->sources, sources, SG_USER_SGPRS);
    memcpy(b->workgroup, workgroup, sizeof b->workgroup);
    b->group_segment_size = group_segment_size;
    b->private_segment_size = private_segment_size;
    b->prepared = 1;
    pthread_mutex_unlock(&b->lock);
    return 0;
}

static void fill_user_sgprs(sg_dispatch *d, const uint8_t *sources, uint64_t kernarg,
                            uint64_t packet, uint64_t queue, uint64_t dispatch_id) {
    for (uint32_t k = 0; k < d->user_sgpr_count; k++) {
        uint8_t s = sources[k];
        if (s == SG_SOURCE_CONSTANT) continue;
        uint32_t high = (s - 1) & 1;
        uint64_t value = s <= SG_SOURCE_KERNARG + 1 ? kernarg : s <= SG_SOURCE_PACKET + 1 ? packet
                       : s <= SG_SOURCE_QUEUE + 1 ? queue : dispatch_id;
        d->user_sgpr[k] = (uint32_t)(high ? value >> 32 : value);
    }
}

uint32_t sg_native_entry(void *binding, const sg_launch *launch, const int *stop, sg_fault *fault) {
    sg_native_binding *b = binding;
    sg_dispatch d;
    pthread_mutex_lock(&b->lock);
    sg_range_table *t = b->table;
    int usable = b->prepared && t && t->version == sg_native_memory_version() &&
                 memcmp(b->workgroup, launch->workgroup, sizeof b->workgroup) == 0 &&
                 b->group_segment_size == launch->group_segment_size &&
                 b->private_segment_size == launch->private_segment_size;
    if (usable) {
        t->refs++;
        d = b->d;
    }
    pthread_mutex_unlock(&b->lock);
    if (!usable) return SG_ENTRY_DECLINED;
    memcpy(d.grid, launch->grid, sizeof d.grid);
    d.env.ranges = t->ranges;
    d.env.range_count = t->count;
    d.stop = stop;
    fill_user_sgprs(&d, b->sources, launch->kernarg, launch->packet, launch->queue,
                    launch->dispatch_id);
    sg_outcome out;
    int faulted = sg_native_dispatch(&d, &out);
    release_table(b, t);
    if (faulted) {
        fault->native_code = out.fault_code;
        fault->native_detail = out.fault_detail;
        fault->pc = out.fault_pc;                /* relative to the code base, as sg_outcome */
        fault->address = out.fault_address;
        memcpy(fault->workgroup, out.fault_workgroup, sizeof fault->workgroup);
        fault->wave = out.fault_wave;
        fault->lane = (uint32_t)out.fault_lane;
        return SG_ENTRY_FAULTED;
    }
    return out.stopped ? SG_ENTRY_STOPPED : SG_ENTRY_RAN;
}

