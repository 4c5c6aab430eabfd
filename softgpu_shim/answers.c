/* Answers of attribute queries that cannot change while a session lives, kept in C, so
   that asking again costs no Python (HIP asks hsa_agent_get_info hundreds of times while
   it starts). The exports defined here answer from this table and hand everything else
   to their Python implementation, an internal entry (exports_table.INTERNAL_ENTRIES).

   Holds these invariants:
   - only answers the Python implementation gave successfully and marked constant for the
     session are kept, keyed by (query, handle, attribute); anything else (a first query,
     a volatile attribute such as free memory, a NULL or unwritable pointer, an unknown or
     stale handle, any call while tracing) reaches Python, which makes every check in
     ROCr's order;
   - hsa_shut_down forgets every answer (sg_answers_forget) before handles die, so a stale
     handle never hits;
   - whether the session traces (SOFTGPU_TRACE, SOFTGPU_TIMELINE) is read once, on its first
     query, not on every call: the environment is looked at again only after sg_answers_forget;
   - a reader never hands out a torn answer: an entry's sequence number is odd while it is
     written and is read before and after the bytes are copied (a seqlock). */
#include "shim.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

hsa_status_t sg_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void *value);

#define SG_ANSWER_SLOTS 1024   /* power of two; agents x attributes is ~150 */
#define SG_ANSWER_BYTES 128    /* the largest answer: HSA_AGENT_INFO_EXTENSIONS, 128 bytes */

typedef struct {
    _Atomic uint32_t seq;
    uint32_t epoch;            /* the g_epoch it was written in; older ones are free */
    uint32_t query, attribute, size;
    uint64_t handle;
    uint8_t bytes[SG_ANSWER_BYTES];
} sg_answer;

static sg_answer g_answers[SG_ANSWER_SLOTS];
static _Atomic uint32_t g_epoch = 1;
static pthread_mutex_t g_answers_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t answer_slot(uint32_t query, uint64_t handle, uint32_t attribute) {
    uint64_t key = (handle ^ ((uint64_t)query << 56) ^ ((uint64_t)attribute * 0x9E3779B97F4A7C15ull));
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (SG_ANSWER_SLOTS - 1);
}

void sg_answer_remember(uint32_t query, uint64_t handle, uint32_t attribute, const void *bytes, uint32_t size) {
    if (size > SG_ANSWER_BYTES) return;
    pthread_mutex_lock(&g_answers_lock);
    uint32_t epoch = atomic_load(&g_epoch);
    for (uint32_t n = 0, i = answer_slot(query, handle, attribute); n < SG_ANSWER_SLOTS;
         n++, i = (i + 1) & (SG_ANSWER_SLOTS - 1)) {
        sg_answer *a = &g_answers[i];
        int mine = a->epoch == epoch && a->query == query && a->handle == handle && a->attribute == attribute;
        if (a->epoch == epoch && !mine) continue;
        atomic_fetch_add_explicit(&a->seq, 1, memory_order_acq_rel);   /* odd: being written */
        a->epoch = epoch;
        a->query = query;
        a->handle = handle;
        a->attribute = attribute;
        a->size = size;
        memcpy(a->bytes, bytes, size);
        atomic_fetch_add_explicit(&a->seq, 1, memory_order_release);   /* even: readable */
        break;
    }
    pthread_mutex_unlock(&g_answers_lock);
}

/* Whether this session traces: -1 until its first query reads the settings. */
static _Atomic int g_traced = -1;

void sg_answers_forget(void) {
    pthread_mutex_lock(&g_answers_lock);
    atomic_fetch_add(&g_epoch, 1);
    atomic_store(&g_traced, -1);
    pthread_mutex_unlock(&g_answers_lock);
}

/* Copy the remembered answer to `out` (a caller's pointer, through the fault-free copy):
   1 when it was there and `out` took it, else 0 (the caller asks Python). */
static int answer(uint32_t query, uint64_t handle, uint32_t attribute, void *out) {
    uint32_t epoch = atomic_load_explicit(&g_epoch, memory_order_acquire);
    for (uint32_t n = 0, i = answer_slot(query, handle, attribute); n < SG_ANSWER_SLOTS;
         n++, i = (i + 1) & (SG_ANSWER_SLOTS - 1)) {
        sg_answer *a = &g_answers[i];
        uint32_t seq = atomic_load_explicit(&a->seq, memory_order_acquire);
        if (seq & 1) return 0;
        if (a->epoch != epoch) return 0;     /* a free slot ends the probe */
        if (a->query != query || a->handle != handle || a->attribute != attribute) continue;
        uint8_t copy[SG_ANSWER_BYTES];
        uint32_t size = a->size < SG_ANSWER_BYTES ? a->size : SG_ANSWER_BYTES;
        memcpy(copy, a->bytes, size);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&a->seq, memory_order_relaxed) != seq) return 0;
        return sg_safe_copy(out, copy, size) == 0;
    }
    return 0;
}

/* While tracing, calls go to Python: the trace records every export call (core/trace.py). */
static int traced(void) {
    int known = atomic_load_explicit(&g_traced, memory_order_relaxed);
    if (known < 0) {
        known = sg_setting(SG_SETTING_SOFTGPU_TRACE) || sg_setting(SG_SETTING_SOFTGPU_TIMELINE);
        atomic_store_explicit(&g_traced, known, memory_order_relaxed);
    }
    return known;
}

EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void *value) {
    if (value && !traced() && answer(SG_QUERY_AGENT_INFO, agent.handle, (uint32_t)attribute, value))
        return HSA_STATUS_SUCCESS;
    return sg_agent_get_info(agent, attribute, value);
}
