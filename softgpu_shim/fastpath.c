/* C fast paths: signal values, signal waits and queue indices.

   Signals live in the table below, except IPC signals, whose slot starts a page shared
   with other processes (ipc_shared.c): resolve() finds either, and the futex operations
   of a shared slot are process-shared.

   Holds these invariants:
   - a freed signal's handle never resolves again (the slot's generation moves on);
   - every value change made through the host API bumps the slot's futex word, and the
     shared wait_any word when a wait_any watches the slot, so a sleeping waiter always
     wakes to re-check its condition (no lost wake-up);
   - device code changes values with plain atomics and then, as on ROCr, writes the
     signal's event id to its event mailbox and raises an interrupt (s_sendmsg
     MSG_INTERRUPT): sg_signal_interrupt wakes every signal whose mailbox was written, so
     waiters learn of device-side changes at once; the capped futex sleep (g_poll_ns) is
     only a safety net for device code that skips the protocol;
   - an invalid signal handle or unknown queue pointer is counted and ignored: these
     exports cannot return a status, and a crash is never the answer. */
#include "shim.h"
#include "fastpath.h"
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static sg_signal_slot *g_slots;  /* view 0: the one C code touches */

/* Freed slots queue up first-in first-out, and fresh slots are used before any freed
   one, so a slot comes back only after every other has had its turn: with the
   generation's views, a stale handle resolves only after SG_SIGNAL_VIEWS such rounds. */
static uint32_t g_free_head, g_free_tail;
static _Atomic uint32_t g_high_water = 1;
static size_t g_live;
static pthread_mutex_t g_alloc_lock = PTHREAD_MUTEX_INITIALIZER;
/* One futex word for every sg_signal_wait_any: bumped only by changes to watched slots. */
static _Atomic uint32_t g_any_seq;
static _Atomic uint64_t g_invalid_calls;
/* Longest futex sleep of a waiter: the safety net for device-side changes that raise no
   interrupt. SOFTGPU_SIGNAL_POLL_MS sets it at each session's start (tests set minutes, to
   show that interrupts alone wake waiters). */
static uint64_t g_poll_ns = 100000000ull;
static _Atomic(const void *) g_queues[SG_MAX_QUEUES];

uint64_t sg_invalid_fastpath_calls(void) { return atomic_load(&g_invalid_calls); }

#define TABLE_BYTES (sizeof(sg_signal_slot) * SG_MAX_SIGNALS)

uintptr_t sg_signal_table_address(void) { return (uintptr_t)g_slots; }
size_t sg_signal_table_bytes(void) { return TABLE_BYTES * SG_SIGNAL_VIEWS; }

/* The value of a SOFTGPU_* variable, or NULL when it is unset or empty: C reads settings
   only here, by the ids build_shim.py generates from core/settings.py, whose check at
   hsa_init refused any value C could misread. */
const char *sg_setting(sg_setting_id id) {
    static const char *const SG_SETTING_NAMES[] = {SG_SETTING_NAMES_LIST};
    const char *value = getenv(SG_SETTING_NAMES[id]);
    return value && *value ? value : NULL;
}

int sg_signal_table_open(uint64_t poll_ms) {
    g_poll_ns = poll_ms * 1000000ull;
    if (g_slots) return 0;
    /* One shared memory object mapped SG_SIGNAL_VIEWS times back to back; pages are
       touched only as slots are used. */
    int fd = (int)syscall(SYS_memfd_create, "softgpu-signals", 1u /* MFD_CLOEXEC */);
    if (fd < 0) return -1;
    char *base = MAP_FAILED;
    if (ftruncate(fd, (off_t)TABLE_BYTES) == 0)
        base = mmap(NULL, TABLE_BYTES * SG_SIGNAL_VIEWS, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    for (int v = 0; base != MAP_FAILED && v < SG_SIGNAL_VIEWS; v++)
        if (mmap(base + v * TABLE_BYTES, TABLE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 fd, 0) == MAP_FAILED) {
            munmap(base, TABLE_BYTES * SG_SIGNAL_VIEWS);
            base = MAP_FAILED;
        }
    close(fd);
    if (base == MAP_FAILED) return -1;
    g_slots = (sg_signal_slot *)base;
    return 0;
}

/* Caller holds g_alloc_lock. */
static void retire(uint32_t index) {
    sg_signal_slot *s = &g_slots[index];
    atomic_store(&s->live, 0);
    atomic_fetch_add(&s->generation, 1);
    s->next_free = 0;
    if (g_free_tail) g_slots[g_free_tail].next_free = index;
    else g_free_head = index;
    g_free_tail = index;
}

static uint64_t handle_of(uint32_t index, uint32_t generation) {
    return (uint64_t)(uintptr_t)g_slots + (generation % SG_SIGNAL_VIEWS) * TABLE_BYTES +
           (uint64_t)index * sizeof(sg_signal_slot);
}

void sg_signal_table_close(void) {
    /* The table stays mapped: a late call with an old handle must fail its
       generation check, not touch unmapped memory. Slots are simply all retired,
       and their waiters woken so that they return instead of sleeping on. */
    pthread_mutex_lock(&g_alloc_lock);
    if (g_slots) {
        for (uint32_t i = 1; i < g_high_water; i++) {
            if (atomic_load(&g_slots[i].live)) {
                retire(i);
                wake(&g_slots[i]);
            }
        }
    }
    g_live = 0;
    pthread_mutex_unlock(&g_alloc_lock);
    close_shared_signals();
}

/* The view `handle` lies in, or -1 if it is no slot's amd_signal_t in any view. */
static int view_of(uint64_t handle, uint32_t *index) {
    uint64_t base = (uint64_t)(uintptr_t)g_slots;
    if (!g_slots || handle < base || handle - base >= TABLE_BYTES * SG_SIGNAL_VIEWS) return -1;
    uint64_t offset = (handle - base) % TABLE_BYTES;
    if (offset % sizeof(sg_signal_slot)) return -1;
    *index = (uint32_t)(offset / sizeof(sg_signal_slot));
    return (int)((handle - base) / TABLE_BYTES);
}

static sg_signal_slot *resolve(uint64_t handle) {
    uint32_t index;
    int view = view_of(handle, &index);
    if (view < 0) return resolve_shared(handle);
    if (index == 0 || index >= atomic_load_explicit(&g_high_water, memory_order_relaxed))
        return NULL;
    sg_signal_slot *s = &g_slots[index];
    if (!atomic_load_explicit(&s->live, memory_order_acquire) ||
        atomic_load_explicit(&s->generation, memory_order_relaxed) % SG_SIGNAL_VIEWS != (uint32_t)view)
        return NULL;
    return s;
}

/* Still the slot `handle` resolved to: neither freed nor reused since. */
static int still_live(const sg_signal_slot *s, uint64_t handle) {
    uint32_t index;
    int view = view_of(handle, &index);
    if (view < 0) return shared_registered(handle);
    return atomic_load_explicit(&s->live, memory_order_acquire) &&
           atomic_load_explicit(&s->generation, memory_order_relaxed) % SG_SIGNAL_VIEWS == (uint32_t)view;
}

static sg_signal_slot *resolve_or_count(uint64_t handle) {
    sg_signal_slot *s = resolve(handle);
    if (!s) atomic_fetch_add(&g_invalid_calls, 1);
    return s;
}

/* KFD's mark of an event slot nobody signaled since it was last serviced. */
#define MAILBOX_EMPTY UINT64_MAX

uint64_t sg_signal_alloc(int64_t initial_value, int interrupt) {
    if (!g_slots) return 0;
    pthread_mutex_lock(&g_alloc_lock);
    uint32_t index;
    if (g_high_water < SG_MAX_SIGNALS) {
        index = g_high_water++;
    } else if (g_free_head) {
        index = g_free_head;
        g_free_head = g_slots[index].next_free;
        if (!g_free_head) g_free_tail = 0;
    } else {
        pthread_mutex_unlock(&g_alloc_lock);
        return 0;
    }
    sg_signal_slot *s = &g_slots[index];
    memset(&s->amd, 0, sizeof s->amd);
    s->amd.kind = AMD_SIGNAL_KIND_USER;
    s->amd.value = initial_value;
    uint64_t handle = handle_of(index, atomic_load(&s->generation));
    atomic_store(&s->mailbox, MAILBOX_EMPTY);
    if (interrupt) {
        /* As ROCr's interrupt signals: the mailbox address (in the handle's own view) and
           an event id, the slot index, which device code hands back in the mailbox. */
        s->amd.event_mailbox_ptr = handle + offsetof(sg_signal_slot, mailbox);
        s->amd.event_id = index;
    }
    atomic_store(&s->live, 1);
    g_live++;
    pthread_mutex_unlock(&g_alloc_lock);
    return handle;
}

/* Sequentially consistent on purpose: a waiter announces itself (waiters++) and then
   re-reads seq inside FUTEX_WAIT, a waker bumps seq and then reads waiters; with seq_cst
   at least one of them sees the other, so no wake-up is lost. */
/* A slot outside the table is an IPC signal's: other processes sleep on its futex word. */
static int is_shared(const sg_signal_slot *s) {
    return s < g_slots || s >= g_slots + SG_MAX_SIGNALS;
}

static void wake(sg_signal_slot *s) {
    atomic_fetch_add(&s->seq, 1);
    if (atomic_load(&s->waiters))
        syscall(SYS_futex, &s->seq, is_shared(s) ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    /* Only slots some wait_any watches pay for the shared word: a signal nobody
       waits on in bulk costs no syscall, even while a handler thread is waiting. */
    if (atomic_load(&s->any_waiters)) {
        atomic_fetch_add(&g_any_seq, 1);
        syscall(SYS_futex, &g_any_seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
    }
}

int sg_signal_free(uint64_t handle) {
    pthread_mutex_lock(&g_alloc_lock);
    sg_signal_slot *s = resolve(handle);
    if (!s) {
        pthread_mutex_unlock(&g_alloc_lock);
        return -1;
    }
    retire((uint32_t)(s - g_slots));
    g_live--;
    pthread_mutex_unlock(&g_alloc_lock);
    wake(s); /* waiters on a destroyed signal return rather than sleep forever */
    return 0;
}

int sg_signal_valid(uint64_t handle) { return resolve(handle) != NULL; }
size_t sg_signal_live_count(void) { return g_live; }

int64_t *sg_signal_value_ptr(uint64_t handle) {
    sg_signal_slot *s = resolve(handle);
    return s ? (int64_t *)&s->amd.value : NULL;
}

void *sg_signal_amd_ptr(uint64_t handle) {
    sg_signal_slot *s = resolve(handle);
    return s ? &s->amd : NULL;
}

static int condition_holds(int condition, int64_t value, int64_t compare) {
    switch (condition) {
    case HSA_SIGNAL_CONDITION_EQ: return value == compare;
    case HSA_SIGNAL_CONDITION_NE: return value != compare;
    case HSA_SIGNAL_CONDITION_LT: return value < compare;
    case HSA_SIGNAL_CONDITION_GTE: return value >= compare;
    default: return 1; /* an unknown condition never blocks forever */
    }
}

/* A waiter sleeps at most g_poll_ns at a time, the safety net for device code that changes
   a value without an interrupt, and on an IPC signal at most SLEEP_CAP_NS: it looks at the
   processes sharing the signal at least that often. */
#define SLEEP_CAP_NS 100000000ull
/* wait_any sleeps on a word of this process: changes other processes make to IPC signals
   do not wake it, so with IPC signals in the set it looks again every millisecond. */
#define SHARED_ANY_CAP_NS 1000000ull

static void futex_sleep(_Atomic uint32_t *word, uint32_t seen, uint64_t deadline, uint64_t cap, int shared) {
    uint64_t now = sg_now_ns();
    if (now >= deadline) return;
    uint64_t left = deadline - now;
    if (left > cap) left = cap;
    struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
    syscall(SYS_futex, word, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

static uint64_t deadline_after(uint64_t timeout_ns) {
    uint64_t now = sg_now_ns();
    return timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;
}

int64_t sg_signal_wait(uint64_t handle, int condition, int64_t compare_value,
                       uint64_t timeout_ns, int *satisfied) {
    sg_signal_slot *s = resolve_or_count(handle);
    *satisfied = 0;
    if (!s) return 0;
    uint64_t deadline = deadline_after(timeout_ns), peers_checked = 0;
    int shared = is_shared(s);
    for (int spin = 0;; spin++) {
        uint32_t seen = atomic_load_explicit(&s->seq, memory_order_acquire);
        int64_t v = atomic_load_explicit(VALUE(s), memory_order_acquire);
        if (condition_holds(condition, v, compare_value)) {
            *satisfied = 1;
            return v;
        }
        uint64_t now = sg_now_ns();
        if (!still_live(s, handle) || now >= deadline) return v;
        if (spin < 64) continue;
        /* A process sharing the signal died holding it: nobody can be counted on to set it. */
        if (shared && now - peers_checked >= SLEEP_CAP_NS) {
            if (shared_peer_died(s)) return v;
            peers_checked = now;
        }
        atomic_fetch_add(&s->waiters, 1);
        futex_sleep(&s->seq, seen, deadline, shared ? SLEEP_CAP_NS : g_poll_ns, shared);
        atomic_fetch_sub(&s->waiters, 1);
    }
}

/* The wait over many signals: until one condition holds (wait_any: its index and value) or,
   with `all`, until every one has held at least once since the wait began (0; each value as
   it was when its condition held goes to satisfying[i], as ROCr's WaitMultiple keeps it).
   UINT32_MAX on timeout or when a signal dies while waited on. */
static uint32_t wait_multiple(uint32_t count, const uint64_t *handles, const int *conditions,
                              const int64_t *values, uint64_t timeout_ns, int all,
                              int64_t *satisfying) {
    if (!handles || !conditions || !values || count == 0) {
        atomic_fetch_add(&g_invalid_calls, 1);
        return UINT32_MAX;
    }
    sg_signal_slot *small[64];
    uint8_t small_met[64] = {0};
    sg_signal_slot **slots = count <= 64 ? small : malloc(sizeof *slots * count);
    uint8_t *met = count <= 64 ? small_met : calloc(count, 1);
    if (!slots || !met) {
        if (slots != small) free(slots);
        if (met != small_met) free(met);
        return UINT32_MAX;
    }
    uint64_t deadline = deadline_after(timeout_ns), peers_checked = 0;
    uint32_t watched = 0, found = UINT32_MAX, shared = 0, unmet = count;
    /* Mark every slot before the first look (seq_cst, paired with wake()): a change
       after the look then always bumps g_any_seq. A forged or destroyed handle ends
       the wait at once: with it the wait could never be satisfied, and a destroy
       wakes the waiters for exactly this. */
    for (; watched < count; watched++) {
        slots[watched] = resolve(handles[watched]);
        if (!slots[watched]) break;
        shared += is_shared(slots[watched]);
        atomic_fetch_add(&slots[watched]->any_waiters, 1);
    }
    if (watched < count) {
        atomic_fetch_add(&g_invalid_calls, 1);
    } else {
        for (;;) {
            uint32_t seen = atomic_load(&g_any_seq);
            int gone = 0;
            uint64_t now = sg_now_ns();
            int check_peers = shared && now - peers_checked >= SLEEP_CAP_NS;
            if (check_peers) peers_checked = now;
            for (uint32_t i = 0; i < count && found == UINT32_MAX && !gone; i++) {
                if (!still_live(slots[i], handles[i]) ||
                    (check_peers && is_shared(slots[i]) && shared_peer_died(slots[i]))) {
                    gone = 1;
                    break;
                }
                if (met[i]) continue;
                int64_t v = atomic_load_explicit(VALUE(slots[i]), memory_order_acquire);
                if (condition_holds(conditions[i], v, values[i])) {
                    met[i] = 1;
                    unmet--;
                    if (satisfying) satisfying[all ? i : 0] = v;
                    if (!all) found = i;
                    else if (unmet == 0) found = 0;
                }
            }
            if (found != UINT32_MAX || gone || sg_now_ns() >= deadline) break;
            futex_sleep(&g_any_seq, seen, deadline, shared ? SHARED_ANY_CAP_NS : g_poll_ns, 0);
        }
    }
    for (uint32_t i = 0; i < watched; i++) atomic_fetch_sub(&slots[i]->any_waiters, 1);
    if (slots != small) free(slots);
    if (met != small_met) free(met);
    return found;
}

uint32_t sg_signal_wait_any(uint32_t count, const uint64_t *handles, const int *conditions,
                            const int64_t *values, uint64_t timeout_ns, int64_t *satisfying_value) {
    return wait_multiple(count, handles, conditions, values, timeout_ns, 0, satisfying_value);
}

/* hsa_amd_signal_wait_all: as ROCr, a null handle or one that names no live signal counts as
   already satisfied (its satisfying value 0) and is left out of the wait; with none left the
   call returns 0 at once. satisfying (count entries, zeroed by the caller) may be NULL. */
uint32_t sg_signal_wait_all(uint32_t count, const uint64_t *handles, const int *conditions,
                            const int64_t *values, uint64_t timeout_ns, int64_t *satisfying) {
    if (count == 0) return 0;
    if (!handles || !conditions || !values) {
        atomic_fetch_add(&g_invalid_calls, 1);
        return UINT32_MAX;
    }
    uint64_t *live = malloc(sizeof *live * count);
    int *live_conds = malloc(sizeof *live_conds * count);
    int64_t *live_values = malloc(sizeof *live_values * count), *live_seen = calloc(count, sizeof(int64_t));
    uint32_t *index = malloc(sizeof *index * count), n = 0, found = UINT32_MAX;
    if (live && live_conds && live_values && live_seen && index) {
        for (uint32_t i = 0; i < count; i++) {
            if (handles[i] == 0 || !resolve(handles[i])) continue;
            if (conditions[i] < HSA_SIGNAL_CONDITION_EQ || conditions[i] > HSA_SIGNAL_CONDITION_GTE) {
                n = 0;              /* ROCr gives up on a condition it does not know */
                goto done;
            }
            live[n] = handles[i];
            live_conds[n] = conditions[i];
            live_values[n] = values[i];
            index[n++] = i;
        }
        found = n == 0 ? 0 : wait_multiple(n, live, live_conds, live_values, timeout_ns, 1, live_seen);
        if (satisfying)
            for (uint32_t k = 0; k < n; k++) satisfying[index[k]] = live_seen[k];
    }
done:
    free(live);
    free(live_conds);
    free(live_values);
    free(live_seen);
    free(index);
    return found;
}

int64_t sg_signal_load(uint64_t handle) {
    sg_signal_slot *s = resolve_or_count(handle);
    return s ? atomic_load_explicit(VALUE(s), memory_order_acquire) : 0;
}

void sg_signal_store(uint64_t handle, int64_t value) {
    sg_signal_slot *s = resolve_or_count(handle);
    if (!s) return;
    atomic_store_explicit(VALUE(s), value, memory_order_release);
    wake(s);
}

int64_t sg_signal_add(uint64_t handle, int64_t delta) {
    sg_signal_slot *s = resolve_or_count(handle);
    if (!s) return 0;
    int64_t old = atomic_fetch_add(VALUE(s), delta);
    wake(s);
    return old;
}

int64_t sg_signal_cas(uint64_t handle, int64_t expected, int64_t value) {
    sg_signal_slot *s = resolve_or_count(handle);
    if (!s) return 0;
    int64_t seen = expected;
    if (atomic_compare_exchange_strong(VALUE(s), &seen, value)) wake(s);
    return seen;
}

/* Wake the slots whose mailbox device code wrote, re-arming each: the candidates whose
   index has the low bits `data` carries (ockl sends event_id & 0xff) first; when none of
   them was written, every slot, as KFD scans its whole signal page for a partial id. */
static uint32_t service_mailboxes(uint32_t first, uint32_t step) {
    uint32_t woken = 0, high = atomic_load(&g_high_water);
    for (uint32_t i = first; i < high; i += step) {
        sg_signal_slot *s = &g_slots[i];
        if (atomic_load_explicit(&s->mailbox, memory_order_relaxed) != MAILBOX_EMPTY &&
            atomic_exchange(&s->mailbox, MAILBOX_EMPTY) != MAILBOX_EMPTY) {
            wake(s);
            woken++;
        }
    }
    return woken;
}

uint32_t sg_signal_interrupt(uint32_t data) {
    if (!g_slots) return 0;
    uint32_t woken = service_mailboxes(data & 0xff, 256);
    return woken ? woken : service_mailboxes(1, 1);
}

int sg_signal_set_timestamps(uint64_t handle, uint64_t start_ts, uint64_t end_ts) {
    sg_signal_slot *s = resolve_or_count(handle);
    if (!s) return -1;
    s->amd.start_ts = start_ts;
    s->amd.end_ts = end_ts;
    return 0;
}

int sg_signal_timestamps(uint64_t handle, uint64_t *start_ts, uint64_t *end_ts) {
    sg_signal_slot *s = resolve_or_count(handle);
    if (!s) return -1;
    *start_ts = s->amd.start_ts;
    *end_ts = s->amd.end_ts;
    return 0;
}

/* ---- queues: registered amd_queue_t addresses ---- */

/* Fibonacci hashing: queues sit at page-aligned arena addresses, so the low bits
   carry nothing and a plain modulo would pile every queue onto a few slots. */
static size_t queue_slot(const void *q) {
    return (size_t)(((uintptr_t)q * 0x9E3779B97F4A7C15ull) >> 52) % SG_MAX_QUEUES;
}

#define QUEUE_TOMBSTONE ((const void *)1)

int sg_queue_registered(uintptr_t amd_queue) {
    const void *key = (const void *)amd_queue;
    if (key == NULL || key == QUEUE_TOMBSTONE) return 0;
    for (size_t i = queue_slot(key), n = 0; n < SG_MAX_QUEUES; n++, i = (i + 1) % SG_MAX_QUEUES) {
        const void *q = atomic_load_explicit(&g_queues[i], memory_order_acquire);
        if (q == key) return 1;
        if (q == NULL) return 0;
    }
    return 0;
}

int sg_queue_register(uintptr_t amd_queue) {
    const void *key = (const void *)amd_queue;
    if (key == NULL || key == QUEUE_TOMBSTONE || sg_queue_registered(amd_queue)) return -1;
    /* Reusing a tombstone is safe: lookups only stop at NULL, and an address is
       registered at most once, so no later copy of it can hide behind this slot. */
    for (size_t i = queue_slot(key), n = 0; n < SG_MAX_QUEUES; n++, i = (i + 1) % SG_MAX_QUEUES) {
        const void *seen = atomic_load(&g_queues[i]);
        if ((seen == NULL || seen == QUEUE_TOMBSTONE) &&
            atomic_compare_exchange_strong(&g_queues[i], &seen, key))
            return 0;
    }
    return -1;
}

int sg_queue_unregister(uintptr_t amd_queue) {
    const void *key = (const void *)amd_queue;
    for (size_t i = queue_slot(key), n = 0; n < SG_MAX_QUEUES; n++, i = (i + 1) % SG_MAX_QUEUES) {
        const void *expected = key;
        /* A tombstone, not NULL: probing must continue past removed entries. */
        if (atomic_compare_exchange_strong(&g_queues[i], &expected, QUEUE_TOMBSTONE)) return 0;
        if (expected == NULL) return -1;
    }
    return -1;
}

/* Lays out a fresh amd_queue_v2_t as the newest ROCr's AqlQueue does; the struct comes from
   the official header, so every field sits where clients and kernels read it. No scratch is
   reclaimed asynchronously (caps stays 0: ROCr sets AMD_QUEUE_CAPS_SW_ASYNC_RECLAIM only on
   gfx94x/gfx95x), and both scratch use indices start at "none" (UINT64_MAX), as ROCr's. */
void sg_queue_init(uintptr_t amd_queue, uintptr_t ring, uint32_t size, uint32_t type,
                   uint32_t features, uint64_t doorbell, uint64_t id, uint32_t max_cu_id,
                   uint32_t max_wave_id) {
    _Static_assert(sizeof(amd_queue_v2_t) <= 4096, "core/queues.py gives a queue one 4 KiB page");
    amd_queue_v2_t *q = (amd_queue_v2_t *)amd_queue;
    memset(q, 0, sizeof *q);
    q->scratch_max_use_index = UINT64_MAX;
    q->alt_scratch_max_use_index = UINT64_MAX;
    q->hsa_queue.type = type;
    q->hsa_queue.features = features;
    q->hsa_queue.base_address = (void *)ring;
    q->hsa_queue.doorbell_signal.handle = doorbell;
    q->hsa_queue.size = size;
    q->hsa_queue.id = id;
    q->max_cu_id = max_cu_id;
    q->max_wave_id = max_wave_id;
    q->read_dispatch_id_field_base_byte_offset =
        (uint32_t)((uintptr_t)&q->read_dispatch_id - (uintptr_t)q);
    q->queue_properties |= AMD_QUEUE_PROPERTIES_IS_PTR64;
    /* Every slot starts INVALID, so the packet processor waits at slot 0. */
    const uint16_t invalid = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
    for (uint32_t i = 0; i < size; i++)
        atomic_store_explicit((_Atomic uint16_t *)(ring + (uintptr_t)i * 64), invalid,
                              memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

uint64_t sg_queue_read_index(uintptr_t amd_queue) {
    return atomic_load_explicit(READ_INDEX((amd_queue_t *)amd_queue), memory_order_acquire);
}

void sg_queue_store_read_index(uintptr_t amd_queue, uint64_t value) {
    atomic_store_explicit(READ_INDEX((amd_queue_t *)amd_queue), value, memory_order_release);
}

uint64_t sg_queue_write_index(uintptr_t amd_queue) {
    return atomic_load_explicit(WRITE_INDEX((amd_queue_t *)amd_queue), memory_order_acquire);
}

void sg_queue_set_profiling(uintptr_t amd_queue, int enabled) {
    amd_queue_t *q = (amd_queue_t *)amd_queue;
    /* Each AMD_QUEUE_PROPERTIES_ enumerator is its bit's mask. */
    if (enabled)
        q->queue_properties |= AMD_QUEUE_PROPERTIES_ENABLE_PROFILING;
    else
        q->queue_properties &= ~(uint32_t)AMD_QUEUE_PROPERTIES_ENABLE_PROFILING;
}

static amd_queue_t *queue_or_count(const hsa_queue_t *queue) {
    if (!sg_queue_registered((uintptr_t)queue)) {
        atomic_fetch_add(&g_invalid_calls, 1);
        return NULL;
    }
    return (amd_queue_t *)queue;
}
