/* API-sequence fuzzer: the input is decoded into a sequence of HSA calls on agents,
   pools, allocations, signals and queues, with handles that are live, stale, forged
   or garbage and out-pointers that are valid, NULL, misaligned or unwritable.
   Invariants: every call returns an HSA status, a live signal reads back what was
   stored, the runtime never hands out overlapping live allocations, and everything
   is released when an input ends. */
#include <pthread.h>
#include <sys/mman.h>

#include "fuzz_common.h"

#define MAX_LIVE 16

static uint64_t agents[8], pools[16];
static int n_agents, n_pools;
static void *readonly_page;

static hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void *data) {
    (void)data;
    if (n_pools < 16) pools[n_pools++] = pool.handle;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t collect_agent(hsa_agent_t agent, void *data) {
    (void)data;
    if (n_agents < 8) agents[n_agents++] = agent.handle;
    return HSA_STATUS_SUCCESS;
}

static void discover(void) {
    n_agents = n_pools = 0;
    CHECKED(hsa_iterate_agents(collect_agent, NULL));
    for (int i = 0; i < n_agents; i++)
        CHECKED(hsa_amd_agent_iterate_memory_pools((hsa_agent_t){agents[i]}, collect_pool, NULL));
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("SOFTGPU_QUIET", "1", 0);
    setenv("SOFTGPU_QUEUE_ERRORS", "continue", 0);
    readonly_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (hsa_init() != HSA_STATUS_SUCCESS) abort();
    discover();
    return 0;
}

typedef struct {
    uint64_t signals[MAX_LIVE], stale_signals[MAX_LIVE];
    int n_signals, n_stale_signals;
    void *allocs[MAX_LIVE];
    size_t alloc_sizes[MAX_LIVE];
    int n_allocs;
    void *freed[MAX_LIVE];
    int n_freed;
    hsa_queue_t *queues[4];
    int n_queues;
} state_t;

static void forget_signal(state_t *st, int i) {
    if (st->n_stale_signals < MAX_LIVE) st->stale_signals[st->n_stale_signals++] = st->signals[i];
    st->signals[i] = st->signals[--st->n_signals];
}

static void op_signal_create(state_t *st, input_t *in) {
    hsa_signal_t s;
    int64_t value = (int64_t)take_u64(in);
    uint8_t how = take_u8(in);
    hsa_status_t status;
    if (how % 4 == 0) {
        hsa_agent_t consumer = {choose_handle(in, agents, n_agents, NULL, 0)};
        status = CHECKED(hsa_signal_create(value, 1, &consumer, &s));
    } else if (how % 4 == 1) {
        status = CHECKED(hsa_signal_create(value, take_u8(in), NULL, &s));
    } else if (how % 4 == 2) {
        status = CHECKED(hsa_amd_signal_create(value, 0, NULL, take_u64(in), &s));
    } else {
        status = CHECKED(hsa_signal_create(value, 0, NULL, how & 4 ? NULL : &s));
        if (how & 4) FUZZ_ASSERT(status == HSA_STATUS_ERROR_INVALID_ARGUMENT, "NULL out-pointer: 0x%x", status);
    }
    if (status == HSA_STATUS_SUCCESS) {
        FUZZ_ASSERT(hsa_signal_load_relaxed(s) == value, "new signal does not hold its initial value");
        if (st->n_signals < MAX_LIVE) st->signals[st->n_signals++] = s.handle;
        else CHECKED(hsa_signal_destroy(s));
    }
}

static void op_signal_destroy(state_t *st, input_t *in) {
    hsa_signal_t s = {choose_handle(in, st->signals, st->n_signals, st->stale_signals, st->n_stale_signals)};
    hsa_status_t status = CHECKED(hsa_signal_destroy(s));
    for (int i = 0; i < st->n_signals; i++)
        if (st->signals[i] == s.handle) {
            FUZZ_ASSERT(status == HSA_STATUS_SUCCESS, "destroying a live signal: 0x%x", status);
            forget_signal(st, i);
            return;
        }
    FUZZ_ASSERT(status == HSA_STATUS_ERROR_INVALID_SIGNAL, "destroying a dead signal: 0x%x", status);
}

static void op_signal_values(state_t *st, input_t *in) {
    hsa_signal_t s = {choose_handle(in, st->signals, st->n_signals, st->stale_signals, st->n_stale_signals)};
    int64_t v = (int64_t)take_u64(in);
    int live = 0;
    for (int i = 0; i < st->n_signals; i++) live |= st->signals[i] == s.handle;
    switch (take_u8(in) % 6) {
    case 0:
        hsa_signal_store_screlease(s, v);
        if (live) FUZZ_ASSERT(hsa_signal_load_scacquire(s) == v, "stored value not read back");
        break;
    case 1: {
        int64_t before = hsa_signal_load_relaxed(s);
        hsa_signal_add_acq_rel(s, v);
        if (live) FUZZ_ASSERT(hsa_signal_load_relaxed(s) == (int64_t)((uint64_t)before + (uint64_t)v), "lost add");
        break;
    }
    case 2: {
        int64_t before = hsa_signal_load_relaxed(s);
        int64_t seen = hsa_signal_cas_scacq_screl(s, before, v);
        if (live) FUZZ_ASSERT(seen == before && hsa_signal_load_relaxed(s) == v, "cas failed on a quiet signal");
        break;
    }
    case 3:
        hsa_signal_wait_scacquire(s, (hsa_signal_condition_t)(take_u8(in) % 5), v, 1000000,
                                  HSA_WAIT_STATE_BLOCKED);
        break;
    case 4: {
        hsa_signal_t many[3] = {s, {take_u64(in)}, s};
        hsa_signal_condition_t conds[3] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_NE,
                                           (hsa_signal_condition_t)take_u8(in)};
        hsa_signal_value_t values[3] = {v, v, v};
        hsa_amd_signal_wait_any(3, many, conds, values, 1000000, HSA_WAIT_STATE_BLOCKED, NULL);
        break;
    }
    default: {
        volatile hsa_signal_value_t *ptr = NULL;
        hsa_status_t status = CHECKED(hsa_amd_signal_value_pointer(s, take_u8(in) & 1 ? NULL : &ptr));
        if (status == HSA_STATUS_SUCCESS) FUZZ_ASSERT(*ptr == hsa_signal_load_relaxed(s), "value pointer disagrees");
    }
    }
}

static void op_agent_info(state_t *st, input_t *in) {
    (void)st;
    uint8_t buffer[1024] __attribute__((aligned(16)));
    hsa_agent_t agent = {choose_handle(in, agents, n_agents, NULL, 0)};
    uint32_t attribute = take_u8(in) & 1 ? take_u8(in) % 32 : 0xA000 + take_u8(in) % 48;
    CHECKED(hsa_agent_get_info(agent, (hsa_agent_info_t)attribute, choose_out(in, buffer, readonly_page)));
}

static void op_pool_info(state_t *st, input_t *in) {
    (void)st;
    uint8_t buffer[1024] __attribute__((aligned(16)));
    hsa_amd_memory_pool_t pool = {choose_handle(in, pools, n_pools, NULL, 0)};
    hsa_agent_t agent = {choose_handle(in, agents, n_agents, NULL, 0)};
    uint32_t attribute = take_u8(in) % 20;
    if (take_u8(in) & 1)
        CHECKED(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)attribute,
                                             choose_out(in, buffer, readonly_page)));
    else
        CHECKED(hsa_amd_agent_memory_pool_get_info(agent, pool, (hsa_amd_agent_memory_pool_info_t)attribute,
                                                   choose_out(in, buffer, readonly_page)));
}

static void op_allocate(state_t *st, input_t *in) {
    hsa_amd_memory_pool_t pool = {choose_handle(in, pools, n_pools, NULL, 0)};
    size_t size = take_u8(in) & 1 ? take_u32(in) % (1 << 22) : take_u64(in);
    void *p = NULL;
    hsa_status_t status = CHECKED(hsa_amd_memory_pool_allocate(pool, size, take_u8(in) & 1, &p));
    if (status != HSA_STATUS_SUCCESS) return;
    for (int i = 0; i < st->n_allocs; i++)
        FUZZ_ASSERT((char *)p + size <= (char *)st->allocs[i] ||
                    (char *)st->allocs[i] + st->alloc_sizes[i] <= (char *)p,
                    "allocation %p+%zu overlaps live %p+%zu", p, size, st->allocs[i], st->alloc_sizes[i]);
    if (st->n_allocs < MAX_LIVE) {
        st->allocs[st->n_allocs] = p;
        st->alloc_sizes[st->n_allocs++] = size;
    } else {
        CHECKED(hsa_amd_memory_pool_free(p));
    }
}

static void op_free(state_t *st, input_t *in) {
    uint8_t how = take_u8(in) % 4;
    if (how == 0 && st->n_allocs) {
        int i = take_u8(in) % st->n_allocs;
        FUZZ_ASSERT(CHECKED(hsa_amd_memory_pool_free(st->allocs[i])) == HSA_STATUS_SUCCESS, "free of a live allocation");
        if (st->n_freed < MAX_LIVE) st->freed[st->n_freed++] = st->allocs[i];
        st->allocs[i] = st->allocs[--st->n_allocs];
        st->alloc_sizes[i] = st->alloc_sizes[st->n_allocs];
    } else if (how == 1 && st->n_freed) {
        CHECKED(hsa_amd_memory_pool_free(st->freed[take_u8(in) % st->n_freed]));
    } else if (how == 2 && st->n_allocs) {
        CHECKED(hsa_amd_memory_pool_free((char *)st->allocs[take_u8(in) % st->n_allocs] + 1 + take_u8(in)));
    } else {
        CHECKED(hsa_memory_free((void *)(uintptr_t)take_u64(in)));
    }
}

static void op_copy_fill(state_t *st, input_t *in) {
    void *choices[4] = {st->n_allocs ? st->allocs[0] : NULL, st->n_freed ? st->freed[0] : NULL,
                        readonly_page, (void *)(uintptr_t)take_u64(in)};
    void *dst = choices[take_u8(in) % 4], *src = choices[take_u8(in) % 4];
    size_t size = take_u8(in) & 1 ? take_u32(in) % 8192 : take_u64(in);
    if (take_u8(in) & 1) CHECKED(hsa_memory_copy(dst, src, size));
    else CHECKED(hsa_amd_memory_fill(dst, take_u32(in), size));
}

static void op_queue(state_t *st, input_t *in) {
    uint8_t how = take_u8(in) % 4;
    if (how == 0 && st->n_queues < 4) {
        hsa_queue_t *q = NULL;
        hsa_agent_t agent = {choose_handle(in, agents, n_agents, NULL, 0)};
        uint32_t size = take_u8(in) & 1 ? 1u << (take_u8(in) % 20) : take_u32(in);
        if (CHECKED(hsa_queue_create(agent, size, (hsa_queue_type32_t)(take_u8(in) % 3), NULL, NULL,
                                     UINT32_MAX, UINT32_MAX, &q)) == HSA_STATUS_SUCCESS)
            st->queues[st->n_queues++] = q;
    } else if (how == 1 && st->n_queues) {
        int i = take_u8(in) % st->n_queues;
        hsa_queue_t *q = st->queues[i];
        uint64_t before = hsa_queue_load_write_index_relaxed(q);
        uint64_t n = take_u8(in);
        FUZZ_ASSERT(hsa_queue_add_write_index_relaxed(q, n) == before, "add_write_index returned another value");
        FUZZ_ASSERT(hsa_queue_load_write_index_relaxed(q) == before + n, "write index lost an add");
    } else if (how == 2 && st->n_queues) {
        int i = take_u8(in) % st->n_queues;
        FUZZ_ASSERT(CHECKED(hsa_queue_destroy(st->queues[i])) == HSA_STATUS_SUCCESS, "destroying a live queue");
        st->queues[i] = st->queues[--st->n_queues];
    } else {
        hsa_queue_t *forged = (hsa_queue_t *)(uintptr_t)take_u64(in);
        hsa_queue_load_read_index_relaxed(forged);
        hsa_queue_add_write_index_relaxed(forged, 1);
        CHECKED(hsa_queue_destroy(forged));
        CHECKED(hsa_queue_inactivate(forged));
    }
}

static void op_system(state_t *st, input_t *in) {
    (void)st;
    uint8_t buffer[1024] __attribute__((aligned(16)));
    const char *text;
    switch (take_u8(in) % 4) {
    case 0:
        CHECKED(hsa_system_get_info((hsa_system_info_t)(take_u8(in) & 1 ? take_u8(in) % 16 : 0x200 + take_u8(in) % 8),
                                    choose_out(in, buffer, readonly_page)));
        break;
    case 1:
        CHECKED(hsa_status_string((hsa_status_t)take_u32(in), take_u8(in) & 1 ? NULL : &text));
        break;
    case 2: {
        hsa_agent_t agent = {choose_handle(in, agents, n_agents, NULL, 0)};
        bool result;
        CHECKED(hsa_agent_extension_supported(take_u8(in) % 0x210, agent, take_u8(in), take_u8(in), &result));
        break;
    }
    default:
        CHECKED(hsa_system_get_major_extension_table(take_u8(in) % 0x210, take_u8(in), take_u8(in) % 256,
                                                     choose_out(in, buffer, readonly_page)));
    }
}

/* hsa_init/hsa_shut_down cycles: every handle of the old session is stale afterwards. */
static void op_reinit(state_t *st, input_t *in) {
    (void)in;
    uint64_t old_agent = agents[0];
    for (int i = 0; i < st->n_queues; i++) CHECKED(hsa_queue_destroy(st->queues[i]));
    st->n_queues = 0;
    FUZZ_ASSERT(hsa_shut_down() == HSA_STATUS_SUCCESS, "shutdown");
    FUZZ_ASSERT(hsa_init() == HSA_STATUS_SUCCESS, "init");
    while (st->n_signals) {
        FUZZ_ASSERT(hsa_signal_destroy((hsa_signal_t){st->signals[0]}) == HSA_STATUS_ERROR_INVALID_SIGNAL,
                    "a signal survived shutdown");
        forget_signal(st, 0);
    }
    st->n_allocs = st->n_freed = 0;
    uint32_t node;
    FUZZ_ASSERT(hsa_agent_get_info((hsa_agent_t){old_agent}, HSA_AGENT_INFO_NODE, &node) ==
                HSA_STATUS_ERROR_INVALID_AGENT, "an agent handle survived shutdown");
    discover();
}

static void release_all(state_t *st) {
    for (int i = 0; i < st->n_queues; i++) CHECKED(hsa_queue_destroy(st->queues[i]));
    for (int i = 0; i < st->n_signals; i++) CHECKED(hsa_signal_destroy((hsa_signal_t){st->signals[i]}));
    for (int i = 0; i < st->n_allocs; i++) CHECKED(hsa_amd_memory_pool_free(st->allocs[i]));
}

typedef void (*op_t)(state_t *, input_t *);
static const op_t OPS[] = {op_signal_create, op_signal_destroy, op_signal_values, op_signal_values,
                           op_agent_info,    op_pool_info,      op_allocate,      op_free,
                           op_copy_fill,     op_queue,          op_system,        op_reinit};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input_t in = {data, size, 0};
    state_t st;
    memset(&st, 0, sizeof st);
    for (int steps = 0; more(&in) && steps < 64; steps++) {
        uint8_t op = take_u8(&in) % (sizeof OPS / sizeof OPS[0]);
        /* Re-initialisation is slow: allow it only where the input insists. */
        if (OPS[op] == op_reinit && take_u8(&in) != 0xA5) continue;
        OPS[op](&st, &in);
    }
    release_all(&st);
    return 0;
}
