/* The signal slots and queue helpers fastpath.c keeps, which ipc_shared.c (IPC signals) and
   fastpath_exports.c (the exports over them) use too: one translation unit (build_shim.py),
   so the helpers stay static; a file compiled alone sees them declared. */
#ifndef SG_FASTPATH_H
#define SG_FASTPATH_H
#include <stdatomic.h>
#include "shim.h"

typedef struct {
    amd_signal_t amd;          /* value, start_ts and end_ts where ROCr keeps them */
    _Atomic uint32_t generation;
    _Atomic uint32_t live;
    _Atomic uint32_t seq;      /* futex word: bumped on every change */
    _Atomic uint32_t waiters;
    _Atomic uint32_t any_waiters; /* sg_signal_wait_any calls watching this slot */
    uint32_t next_free;
    _Atomic uint64_t mailbox;  /* amd.event_mailbox_ptr points here; device code writes event_id */
    char pad[32];
} sg_signal_slot;
_Static_assert(sizeof(sg_signal_slot) == 128, "a slot is two cache lines: amd_signal_t, then ours");

/* IPC signals (ipc_shared.c). */
static sg_signal_slot *resolve_shared(uint64_t handle);
static int shared_registered(uint64_t handle);
static int shared_peer_died(const sg_signal_slot *s);
static void close_shared_signals(void);
/* fastpath.c's */
static _Atomic uint64_t g_invalid_calls;       /* calls with a bad handle, ignored */
static sg_signal_slot *resolve_or_count(uint64_t handle);
static int condition_holds(int condition, int64_t value, int64_t compare);
static amd_queue_t *queue_or_count(const hsa_queue_t *queue);
static void wake(sg_signal_slot *s);

#define VALUE(s) ((_Atomic int64_t *)&(s)->amd.value)
#define WRITE_INDEX(q) ((_Atomic uint64_t *)&(q)->write_dispatch_id)
#define READ_INDEX(q) ((_Atomic uint64_t *)&(q)->read_dispatch_id)
#endif
