/* API-sequence fuzzer: the input is decoded into a sequence of HSA calls on agents,
   pools, regions, allocations, host memory (register/lock/pointer info), signals,
   signal groups, async handlers, async copies, queues, code object readers and
   executables, with handles that are live, stale, forged or garbage and pointers that
   are valid, NULL, misaligned, unmapped or dangling.
   Invariants: every call returns an HSA status; a live signal reads back what was
   stored and its atomics lose nothing; the runtime never hands out overlapping live
   allocations; each agent's free memory (HSA_AMD_AGENT_INFO_MEMORY_AVAIL) is exactly
   its pools' size less the page-rounded live allocations; an async copy or handler
   whose condition holds completes in bounded time; everything is released when an
   input ends, and every handle of a session is stale after hsa_shut_down. */
#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>

#include "fuzz_common.h"

#define MAX_LIVE 16
#define PAGE 4096
#define MEMORY_AVAIL 0xA015 /* HSA_AMD_AGENT_INFO_MEMORY_AVAIL (ROCm >= 5.3 headers) */
#define BOUNDED_WAIT_NS 2000000000ull

static uint64_t agents[8], pools[16], regions[32];
static int pool_owner[16], region_owner[32];
static int n_agents, n_pools, n_regions, n_collecting;
static void *readonly_page;
static uint8_t host_memory[16 * PAGE] __attribute__((aligned(PAGE)));
static uint8_t *code_object;
static size_t code_object_size;
static int code_object_fd, devnull_fd;

static hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void *data) {
    (void)data;
    if (n_pools < 16) {
        pool_owner[n_pools] = n_collecting;
        pools[n_pools++] = pool.handle;
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t collect_region(hsa_region_t region, void *data) {
    (void)data;
    if (n_regions < 32) {
        region_owner[n_regions] = n_collecting;
        regions[n_regions++] = region.handle;
    }
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t collect_agent(hsa_agent_t agent, void *data) {
    (void)data;
    if (n_agents < 8) agents[n_agents++] = agent.handle;
    return HSA_STATUS_SUCCESS;
}

static void discover(void) {
    n_agents = n_pools = n_regions = 0;
    CHECKED(hsa_iterate_agents(collect_agent, NULL));
    for (n_collecting = 0; n_collecting < n_agents; n_collecting++) {
        CHECKED(hsa_amd_agent_iterate_memory_pools((hsa_agent_t){agents[n_collecting]}, collect_pool, NULL));
        CHECKED(hsa_agent_iterate_regions((hsa_agent_t){agents[n_collecting]}, collect_region, NULL));
    }
}

/* Free bytes of a GPU's memory; CPU agents answer no MEMORY_AVAIL in ROCr (UINT64_MAX here). */
static uint64_t memory_avail(int agent) {
    uint64_t avail = 0;
    hsa_device_type_t type;
    CHECKED(hsa_agent_get_info((hsa_agent_t){agents[agent]}, HSA_AGENT_INFO_DEVICE, &type));
    if (type != HSA_DEVICE_TYPE_GPU) return UINT64_MAX;
    FUZZ_ASSERT(hsa_agent_get_info((hsa_agent_t){agents[agent]}, (hsa_agent_info_t)MEMORY_AVAIL, &avail) ==
                HSA_STATUS_SUCCESS, "MEMORY_AVAIL of GPU agent %d", agent);
    return avail;
}

/* The sum of HSA_AMD_MEMORY_POOL_INFO_SIZE over an agent's pools that allow allocation. */
static uint64_t pool_sizes(int agent) {
    uint64_t total = 0;
    for (int i = 0; i < n_pools; i++) {
        bool allowed = false;
        size_t size = 0;
        hsa_amd_memory_pool_t pool = {pools[i]};
        if (pool_owner[i] != agent) continue;
        CHECKED(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed));
        CHECKED(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
        if (allowed) total += size;
    }
    return total;
}

static void read_code_object(void) {
    const char *path = getenv("SOFTGPU_FUZZ_CODE_OBJECT");
    FILE *f = path ? fopen(path, "rb") : NULL;
    if (!f) {
        fprintf(stderr, "set SOFTGPU_FUZZ_CODE_OBJECT to a code object with kernel `empty`\n");
        abort();
    }
    fseek(f, 0, SEEK_END);
    code_object_size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    code_object = malloc(code_object_size);
    if (fread(code_object, 1, code_object_size, f) != code_object_size) abort();
    code_object_fd = fileno(f);
    devnull_fd = open("/dev/null", O_RDONLY);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("SOFTGPU_QUIET", "1", 0);
    setenv("SOFTGPU_QUEUE_ERRORS", "continue", 0);
    readonly_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    read_code_object();
    if (hsa_init() != HSA_STATUS_SUCCESS) abort();
    discover();
    return 0;
}

/* Live handles of one kind, and the stale ones they became when destroyed. */
typedef struct {
    uint64_t live[MAX_LIVE], stale[MAX_LIVE];
    int n_live, n_stale;
} handles_t;

static int find_live(const handles_t *h, uint64_t handle) {
    for (int i = 0; i < h->n_live; i++)
        if (h->live[i] == handle) return i;
    return -1;
}

static void add_live(handles_t *h, uint64_t handle) { h->live[h->n_live++] = handle; }

static void make_stale(handles_t *h, int i) {
    h->stale[h->n_stale++ % MAX_LIVE] = h->live[i];
    if (h->n_stale > MAX_LIVE) h->n_stale = MAX_LIVE;
    h->live[i] = h->live[--h->n_live];
}

static uint64_t pick(input_t *in, const handles_t *h) {
    return choose_handle(in, h->live, h->n_live, h->stale, h->n_stale);
}

typedef struct {
    void *ptr;
    size_t size;
    int owner; /* index into agents[] of the agent whose MEMORY_AVAIL it is charged to */
} alloc_t;

typedef struct {
    handles_t signals, groups, readers, executables;
    alloc_t allocs[MAX_LIVE];
    int n_allocs;
    void *freed[MAX_LIVE];
    int n_freed;
    hsa_queue_t *queues[4];
    int n_queues;
    uint64_t avail_before[8];
    uint64_t symbols[MAX_LIVE];
    int n_symbols;
    uint32_t locked, registered; /* bit i: host page i locked / registered */
} state_t;

static uint64_t page_round(size_t size) { return (size + PAGE - 1) / PAGE * PAGE; }

/* Pool accounting adds up: each agent's free memory is its pools' free memory at the
   start of the input less the page-rounded live allocations charged to it. */
static void check_accounting(const state_t *st) {
    uint64_t charged[8] = {0};
    for (int i = 0; i < st->n_allocs; i++) charged[st->allocs[i].owner] += page_round(st->allocs[i].size);
    for (int a = 0; a < n_agents; a++) {
        uint64_t avail = memory_avail(a);
        if (avail == UINT64_MAX) continue;
        FUZZ_ASSERT(avail == st->avail_before[a] - charged[a], "agent %d: %llu bytes free, expected %llu - %llu",
                    a, (unsigned long long)avail, (unsigned long long)st->avail_before[a],
                    (unsigned long long)charged[a]);
        FUZZ_ASSERT(avail + charged[a] <= pool_sizes(a), "agent %d: more free than its pools hold", a);
    }
}

static void keep_allocation(state_t *st, void *p, size_t size, int owner) {
    for (int i = 0; i < st->n_allocs; i++)
        FUZZ_ASSERT((char *)p + size <= (char *)st->allocs[i].ptr ||
                    (char *)st->allocs[i].ptr + st->allocs[i].size <= (char *)p,
                    "allocation %p+%zu overlaps live %p+%zu", p, size, st->allocs[i].ptr, st->allocs[i].size);
    if (st->n_allocs < MAX_LIVE) {
        st->allocs[st->n_allocs++] = (alloc_t){p, size, owner};
    } else {
        CHECKED(hsa_amd_memory_pool_free(p));
    }
    check_accounting(st);
}

/* -- signals ----------------------------------------------------------------------- */

static void op_signal_create(state_t *st, input_t *in) {
    hsa_signal_t s;
    int64_t value = (int64_t)take_u64(in);
    uint8_t how = take_u8(in);
    hsa_status_t status;
    if (how % 4 == 0) {
        hsa_agent_t consumer = {choose_handle(in, agents, n_agents, NULL, 0)};
        status = CHECKED(hsa_signal_create(value, 1, &consumer, &s));
    } else if (how % 4 == 1) {
        status = CHECKED(hsa_signal_create(value, take_u8(in), how & 8 ? dangling_page() : NULL, &s));
    } else if (how % 4 == 2) {
        status = CHECKED(hsa_amd_signal_create(value, 0, NULL, take_u64(in), &s));
    } else {
        status = CHECKED(hsa_signal_create(value, 0, NULL, how & 4 ? NULL : &s));
        if (how & 4) FUZZ_ASSERT(status == HSA_STATUS_ERROR_INVALID_ARGUMENT, "NULL out-pointer: 0x%x", status);
    }
    if (status == HSA_STATUS_SUCCESS) {
        FUZZ_ASSERT(hsa_signal_load_relaxed(s) == value, "new signal does not hold its initial value");
        if (st->signals.n_live < MAX_LIVE) add_live(&st->signals, s.handle);
        else CHECKED(hsa_signal_destroy(s));
    }
}

static void op_signal_destroy(state_t *st, input_t *in) {
    hsa_signal_t s = {pick(in, &st->signals)};
    hsa_status_t status = CHECKED(hsa_signal_destroy(s));
    int i = find_live(&st->signals, s.handle);
    if (i >= 0) {
        FUZZ_ASSERT(status == HSA_STATUS_SUCCESS, "destroying a live signal: 0x%x", status);
        make_stale(&st->signals, i);
    } else {
        /* ROCr converts handle 0 to INVALID_ARGUMENT before it looks for a signal. */
        FUZZ_ASSERT(status == (s.handle ? HSA_STATUS_ERROR_INVALID_SIGNAL : HSA_STATUS_ERROR_INVALID_ARGUMENT),
                    "destroying a dead signal: 0x%x", status);
    }
}

static void op_signal_values(state_t *st, input_t *in) {
    hsa_signal_t s = {pick(in, &st->signals)};
    int64_t v = (int64_t)take_u64(in);
    int live = find_live(&st->signals, s.handle) >= 0;
    int64_t before = live ? hsa_signal_load_relaxed(s) : 0;
    switch (take_u8(in) % 9) {
    case 0:
        hsa_signal_store_screlease(s, v);
        if (live) FUZZ_ASSERT(hsa_signal_load_scacquire(s) == v, "stored value not read back");
        break;
    case 1:
        hsa_signal_add_acq_rel(s, v);
        if (live) FUZZ_ASSERT(hsa_signal_load_relaxed(s) == (int64_t)((uint64_t)before + (uint64_t)v), "lost add");
        break;
    case 2: {
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
    case 5: {
        int64_t old = hsa_signal_exchange_scacq_screl(s, v);
        if (live) FUZZ_ASSERT(old == before && hsa_signal_load_relaxed(s) == v, "exchange lost a value");
        break;
    }
    case 6: {
        hsa_signal_and_relaxed(s, v);
        hsa_signal_or_screlease(s, v >> 7);
        hsa_signal_xor_scacquire(s, v << 3);
        hsa_signal_subtract_acq_rel(s, v);
        int64_t expected = (int64_t)(((((uint64_t)before & (uint64_t)v) | (uint64_t)(v >> 7)) ^
                                      ((uint64_t)v << 3)) - (uint64_t)v);
        if (live) FUZZ_ASSERT(hsa_signal_load_relaxed(s) == expected, "and/or/xor/subtract lost an update");
        break;
    }
    case 7:
        /* A wait whose condition already holds returns at once with the value. */
        if (live)
            FUZZ_ASSERT(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_EQ, before, UINT64_MAX,
                                                HSA_WAIT_STATE_ACTIVE) == before, "satisfied wait");
        break;
    default: {
        volatile hsa_signal_value_t *ptr = NULL;
        hsa_status_t status = CHECKED(hsa_amd_signal_value_pointer(s, take_u8(in) & 1 ? NULL : &ptr));
        if (status == HSA_STATUS_SUCCESS) FUZZ_ASSERT(*ptr == hsa_signal_load_relaxed(s), "value pointer disagrees");
    }
    }
}

static void op_signal_group(state_t *st, input_t *in) {
    uint8_t how = take_u8(in) % 3;
    if (how == 0 && st->groups.n_live < MAX_LIVE) {
        hsa_signal_t members[4];
        uint32_t n = take_u8(in) % 5;
        for (uint32_t i = 0; i < n; i++) members[i].handle = pick(in, &st->signals);
        hsa_signal_group_t group;
        uint8_t where = take_u8(in);
        hsa_status_t status = CHECKED(hsa_signal_group_create(
            where & 1 ? take_u32(in) : n, where & 2 ? dangling_page() : members, 0, NULL,
            where & 4 ? NULL : &group));
        if (status == HSA_STATUS_SUCCESS) add_live(&st->groups, group.handle);
    } else if (how == 1) {
        hsa_signal_group_t group = {pick(in, &st->groups)};
        hsa_status_t status = CHECKED(hsa_signal_group_destroy(group));
        int i = find_live(&st->groups, group.handle);
        if (i >= 0) {
            FUZZ_ASSERT(status == HSA_STATUS_SUCCESS, "destroying a live group: 0x%x", status);
            make_stale(&st->groups, i);
        }
    } else {
        /* The group wait has no timeout: every condition is "!= a value no signal holds",
           or the group has a destroyed member (which ends the wait with an error). */
        hsa_signal_group_t group = {pick(in, &st->groups)};
        hsa_signal_condition_t conds[64];
        hsa_signal_value_t values[64];
        for (int i = 0; i < 64; i++) {
            conds[i] = HSA_SIGNAL_CONDITION_NE;
            values[i] = INT64_MIN + 12345;
        }
        hsa_signal_t which;
        hsa_signal_value_t seen;
        uint8_t where = take_u8(in);
        CHECKED(hsa_signal_group_wait_any_scacquire(group, conds, values, HSA_WAIT_STATE_BLOCKED,
                                                    where & 1 ? NULL : &which, where & 2 ? NULL : &seen));
    }
}

/* One counter per registration (a ring far longer than the registrations one input can
   leave armed), so a handler that fires late never counts for another. */
#define HANDLER_RING 4096
static volatile int handler_calls[HANDLER_RING];
static unsigned next_handler;

static bool count_call(hsa_signal_value_t value, void *arg) {
    (void)value;
    __atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
    return false;
}

static void op_async_handler(state_t *st, input_t *in) {
    hsa_signal_t s = {pick(in, &st->signals)};
    int live = find_live(&st->signals, s.handle) >= 0;
    uint8_t how = take_u8(in);
    volatile int *calls = &handler_calls[next_handler++ % HANDLER_RING];
    *calls = 0;
    if (how & 0x40) {
        CHECKED(hsa_amd_signal_async_handler(s, (hsa_signal_condition_t)take_u8(in), (int64_t)take_u64(in),
                                             how & 0x80 ? NULL : count_call, (void *)calls));
        return;
    }
    /* A condition that holds now: the handler runs, once, in bounded time. */
    int64_t now = live ? hsa_signal_load_relaxed(s) : 0;
    hsa_status_t status = CHECKED(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, now, count_call,
                                                               (void *)calls));
    if (!live || status != HSA_STATUS_SUCCESS) return;
    for (int spins = 0; spins < 2000 && !*calls; spins++) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    FUZZ_ASSERT(*calls == 1, "a satisfied async handler ran %d times", *calls);
}

/* -- agents, pools, regions -------------------------------------------------------- */

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
    switch (take_u8(in) % 3) {
    case 0:
        CHECKED(hsa_amd_memory_pool_get_info(pool, (hsa_amd_memory_pool_info_t)attribute,
                                             choose_out(in, buffer, readonly_page)));
        break;
    case 1:
        CHECKED(hsa_amd_agent_memory_pool_get_info(agent, pool, (hsa_amd_agent_memory_pool_info_t)attribute,
                                                   choose_out(in, buffer, readonly_page)));
        break;
    default: {
        hsa_region_t region = {choose_handle(in, regions, n_regions, NULL, 0)};
        CHECKED(hsa_region_get_info(region, (hsa_region_info_t)(take_u8(in) % 20),
                                    choose_out(in, buffer, readonly_page)));
    }
    }
}

static int index_of(const uint64_t *handles, int n, uint64_t handle) {
    for (int i = 0; i < n; i++)
        if (handles[i] == handle) return i;
    return -1;
}

static void op_allocate(state_t *st, input_t *in) {
    uint8_t how = take_u8(in);
    size_t size = how & 1 ? take_u32(in) % (1 << 22) : take_u64(in);
    void *p = NULL;
    int owner;
    hsa_status_t status;
    if (how & 2) {
        hsa_region_t region = {choose_handle(in, regions, n_regions, NULL, 0)};
        int i = index_of(regions, n_regions, region.handle);
        owner = i >= 0 ? region_owner[i] : -1;
        status = CHECKED(hsa_memory_allocate(region, size, how & 4 ? NULL : &p));
    } else {
        hsa_amd_memory_pool_t pool = {choose_handle(in, pools, n_pools, NULL, 0)};
        int i = index_of(pools, n_pools, pool.handle);
        owner = i >= 0 ? pool_owner[i] : -1;
        status = CHECKED(hsa_amd_memory_pool_allocate(pool, size, take_u8(in) & 1, how & 4 ? NULL : &p));
    }
    if (status != HSA_STATUS_SUCCESS) {
        check_accounting(st);
        return;
    }
    FUZZ_ASSERT(owner >= 0 && p != NULL && size > 0, "allocation of %zu from a bad pool or region", size);
    FUZZ_ASSERT((uintptr_t)p % PAGE == 0, "allocation %p not page aligned", p);
    keep_allocation(st, p, size, owner);
}

static void forget_allocation(state_t *st, int i) {
    if (st->n_freed < MAX_LIVE) st->freed[st->n_freed++] = st->allocs[i].ptr;
    st->allocs[i] = st->allocs[--st->n_allocs];
}

static void op_free(state_t *st, input_t *in) {
    uint8_t how = take_u8(in) % 4;
    if (how == 0 && st->n_allocs) {
        int i = take_u8(in) % st->n_allocs;
        hsa_status_t status = CHECKED(take_u8(in) & 1 ? hsa_memory_free(st->allocs[i].ptr)
                                                      : hsa_amd_memory_pool_free(st->allocs[i].ptr));
        FUZZ_ASSERT(status == HSA_STATUS_SUCCESS, "free of a live allocation: 0x%x", status);
        forget_allocation(st, i);
    } else if (how == 1 && st->n_freed) {
        void *p = st->freed[take_u8(in) % st->n_freed];
        int live = 0;
        for (int i = 0; i < st->n_allocs; i++) live |= st->allocs[i].ptr == p;
        hsa_status_t status = CHECKED(hsa_amd_memory_pool_free(p));
        if (!live) FUZZ_ASSERT(status != HSA_STATUS_SUCCESS, "double free of %p succeeded", p);
        else for (int i = 0; i < st->n_allocs; i++)
            if (st->allocs[i].ptr == p) forget_allocation(st, i);
    } else if (how == 2 && st->n_allocs) {
        void *inside = (char *)st->allocs[take_u8(in) % st->n_allocs].ptr + 1 + take_u8(in);
        FUZZ_ASSERT(CHECKED(hsa_amd_memory_pool_free(inside)) != HSA_STATUS_SUCCESS, "freed the inside %p", inside);
    } else {
        CHECKED(hsa_memory_free((void *)(uintptr_t)take_u64(in)));
    }
    check_accounting(st);
}

/* -- memory: copies, fills, host memory, pointer info ------------------------------ */

static void *choose_pointer(state_t *st, input_t *in) {
    switch (take_u8(in) % 8) {
    case 0: return st->n_allocs ? st->allocs[take_u8(in) % st->n_allocs].ptr : NULL;
    case 1: return st->n_allocs ? (char *)st->allocs[take_u8(in) % st->n_allocs].ptr + take_u8(in) : NULL;
    case 2: return st->n_freed ? st->freed[take_u8(in) % st->n_freed] : NULL;
    case 3: return readonly_page;
    case 4: return host_memory + take_u8(in) % 16 * PAGE + take_u8(in) % 8;
    case 5: return dangling_page();
    case 6: return NULL;
    default: return (void *)(uintptr_t)take_u64(in);
    }
}

static size_t choose_size(input_t *in) {
    switch (take_u8(in) % 4) {
    case 0: return take_u8(in);
    case 1: return take_u32(in) % (1 << 16);
    case 2: return 0;
    default: return take_u64(in);
    }
}

static void op_copy_fill(state_t *st, input_t *in) {
    void *dst = choose_pointer(st, in), *src = choose_pointer(st, in);
    size_t size = choose_size(in);
    switch (take_u8(in) % 3) {
    case 0:
        CHECKED(hsa_memory_copy(dst, src, size));
        break;
    case 1:
        CHECKED(hsa_amd_memory_fill(dst, take_u32(in), size));
        break;
    default:
        CHECKED(hsa_memory_assign_agent(dst, (hsa_agent_t){choose_handle(in, agents, n_agents, NULL, 0)},
                                        (hsa_access_permission_t)take_u8(in)));
    }
}

static void op_async_copy(state_t *st, input_t *in) {
    void *dst = choose_pointer(st, in), *src = choose_pointer(st, in);
    size_t size = choose_size(in);
    hsa_agent_t dst_agent = {choose_handle(in, agents, n_agents, NULL, 0)};
    hsa_agent_t src_agent = {choose_handle(in, agents, n_agents, NULL, 0)};
    hsa_signal_t deps[2], completion = {pick(in, &st->signals)};
    uint32_t n_deps = take_u8(in) % 3;
    int satisfied = find_live(&st->signals, completion.handle) >= 0;
    /* Armed before the dependencies are judged: a copy may depend on its own completion signal. */
    if (satisfied) hsa_signal_store_screlease(completion, 1);
    for (uint32_t i = 0; i < n_deps; i++) {
        deps[i].handle = pick(in, &st->signals);
        satisfied &= find_live(&st->signals, deps[i].handle) >= 0 && hsa_signal_load_relaxed(deps[i]) == 0;
    }
    uint8_t how = take_u8(in);
    hsa_status_t status = CHECKED(hsa_amd_memory_async_copy(dst, dst_agent, src, src_agent, size,
                                                            how & 1 ? take_u32(in) : n_deps,
                                                            how & 2 ? dangling_page() : deps, completion));
    /* A copy whose dependencies are met finishes: the completion signal drops (an empty copy
       leaves it alone, as in ROCr). */
    if (status == HSA_STATUS_SUCCESS && satisfied && size && !(how & 3))
        FUZZ_ASSERT(hsa_signal_wait_scacquire(completion, HSA_SIGNAL_CONDITION_LT, 1, BOUNDED_WAIT_NS,
                                              HSA_WAIT_STATE_BLOCKED) < 1, "async copy never completed");
}

static void op_host_memory(state_t *st, input_t *in) {
    int page = take_u8(in) % 16, pages = 1 + take_u8(in) % 4;
    if (page + pages > 16) pages = 16 - page;
    void *host = host_memory + page * PAGE;
    size_t size = (size_t)pages * PAGE;
    uint32_t bits = ((1u << pages) - 1) << page;
    uint8_t how = take_u8(in) % 6;
    if (how == 0) {
        if (CHECKED(hsa_memory_register(host, size)) == HSA_STATUS_SUCCESS) st->registered |= bits;
    } else if (how == 1) {
        CHECKED(hsa_memory_deregister(host, size));
        st->registered &= ~bits;
    } else if (how == 2) {
        hsa_agent_t gpu = {choose_handle(in, agents, n_agents, NULL, 0)};
        void *agent_ptr = NULL;
        uint8_t where = take_u8(in);
        hsa_status_t status;
        if (where & 8)
            status = CHECKED(hsa_amd_memory_lock_to_pool(host, size, &gpu, 1,
                                                         (hsa_amd_memory_pool_t){choose_handle(in, pools, n_pools, NULL, 0)},
                                                         0, where & 4 ? NULL : &agent_ptr));
        else
            status = CHECKED(hsa_amd_memory_lock(host, size, where & 1 ? NULL : &gpu, where & 2 ? take_u8(in) : 1,
                                                 where & 4 ? NULL : &agent_ptr));
        if (status == HSA_STATUS_SUCCESS) {
            st->locked |= 1u << page;
            if (!(where & 4)) FUZZ_ASSERT(agent_ptr != NULL, "locked %p without an agent address", host);
        }
    } else if (how == 3) {
        CHECKED(hsa_amd_memory_unlock(host));
        st->locked &= ~(1u << page);
    } else if (how == 4) {
        /* Foreign memory: dangling, read-only, NULL, garbage. */
        void *p = choose_pointer(st, in);
        size = choose_size(in);
        if (take_u8(in) & 1) {
            if (CHECKED(hsa_memory_register(p, size)) == HSA_STATUS_SUCCESS) CHECKED(hsa_memory_deregister(p, size));
        } else {
            void *agent_ptr;
            if (CHECKED(hsa_amd_memory_lock(p, size, NULL, 0, &agent_ptr)) == HSA_STATUS_SUCCESS)
                CHECKED(hsa_amd_memory_unlock(p));
        }
    } else {
        hsa_agent_t allowed[2] = {{choose_handle(in, agents, n_agents, NULL, 0)},
                                  {choose_handle(in, agents, n_agents, NULL, 0)}};
        CHECKED(hsa_amd_agents_allow_access(take_u8(in) % 3, allowed, NULL, choose_pointer(st, in)));
    }
}

static void op_pointer_info(state_t *st, input_t *in) {
    uint8_t how = take_u8(in);
    int which = st->n_allocs ? take_u8(in) % st->n_allocs : -1;
    void *p = how & 1 && which >= 0 ? st->allocs[which].ptr : choose_pointer(st, in);
    hsa_amd_pointer_info_t info;
    memset(&info, 0, sizeof info);
    info.size = how & 2 ? take_u32(in) : sizeof info;
    uint32_t n = 0;
    hsa_agent_t *accessible = NULL;
    hsa_status_t status = CHECKED(hsa_amd_pointer_info(p, how & 4 ? NULL : &info, how & 8 ? NULL : malloc,
                                                       how & 16 ? NULL : &n, how & 32 ? NULL : &accessible));
    if (status == HSA_STATUS_SUCCESS && accessible) {
        for (uint32_t i = 0; i < n; i++) FUZZ_ASSERT(index_of(agents, n_agents, accessible[i].handle) >= 0, "agent");
        free(accessible);
    }
    if (status == HSA_STATUS_SUCCESS && !(how & 6) && (how & 1) && which >= 0) {
        FUZZ_ASSERT(info.type == HSA_EXT_POINTER_TYPE_HSA && info.agentBaseAddress == p &&
                    info.sizeInBytes == page_round(st->allocs[which].size),
                    "pointer info of a live allocation: type %d base %p size %zu", info.type,
                    info.agentBaseAddress, info.sizeInBytes);
        CHECKED(hsa_amd_pointer_info_set_userdata(p, (void *)(uintptr_t)0x1234));
    }
    if (how & 64) CHECKED(hsa_amd_pointer_info_set_userdata(choose_pointer(st, in), NULL));
}

/* -- queues -------------------------------------------------------------------------- */

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

/* -- code object readers and executables ---------------------------------------------- */

static hsa_status_t keep_symbol(hsa_executable_t exe, hsa_executable_symbol_t symbol, void *data) {
    state_t *st = data;
    (void)exe;
    if (st->n_symbols < MAX_LIVE) st->symbols[st->n_symbols++] = symbol.handle;
    return HSA_STATUS_SUCCESS;
}

static void op_reader(state_t *st, input_t *in) {
    uint8_t how = take_u8(in) % 3;
    if (how == 0 && st->readers.n_live < MAX_LIVE) {
        hsa_code_object_reader_t reader;
        uint8_t where = take_u8(in);
        size_t size = where & 1 ? take_u32(in) % (code_object_size + 64) : code_object_size;
        const void *bytes = where & 2 ? (where & 4 ? dangling_page() : NULL) : code_object;
        if (CHECKED(hsa_code_object_reader_create_from_memory(bytes, size, where & 8 ? NULL : &reader)) ==
            HSA_STATUS_SUCCESS)
            add_live(&st->readers, reader.handle);
    } else if (how == 1) {
        hsa_code_object_reader_t reader = {pick(in, &st->readers)};
        hsa_status_t status = CHECKED(hsa_code_object_reader_destroy(reader));
        int i = find_live(&st->readers, reader.handle);
        if (i >= 0) {
            FUZZ_ASSERT(status == HSA_STATUS_SUCCESS, "destroying a live reader: 0x%x", status);
            make_stale(&st->readers, i);
        } else {
            FUZZ_ASSERT(status == HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER, "destroying a dead reader: 0x%x",
                        status);
        }
    } else {
        /* Never fds 0-2: a reader of stdin would block. */
        hsa_file_t files[4] = {code_object_fd, devnull_fd, -1, 1000};
        hsa_code_object_reader_t reader;
        if (CHECKED(hsa_code_object_reader_create_from_file(files[take_u8(in) % 4], &reader)) == HSA_STATUS_SUCCESS)
            CHECKED(hsa_code_object_reader_destroy(reader));
    }
}

static void op_executable(state_t *st, input_t *in) {
    uint8_t buffer[1024] __attribute__((aligned(16)));
    hsa_executable_t exe = {pick(in, &st->executables)};
    switch (take_u8(in) % 7) {
    case 0:
        if (st->executables.n_live < MAX_LIVE &&
            CHECKED(hsa_executable_create_alt((hsa_profile_t)(take_u8(in) % 3),
                                              (hsa_default_float_rounding_mode_t)(take_u8(in) % 4), NULL,
                                              take_u8(in) & 1 ? NULL : &exe)) == HSA_STATUS_SUCCESS)
            add_live(&st->executables, exe.handle);
        break;
    case 1: {
        hsa_code_object_reader_t reader = {pick(in, &st->readers)};
        hsa_agent_t agent = {choose_handle(in, agents, n_agents, NULL, 0)};
        hsa_loaded_code_object_t loaded;
        CHECKED(hsa_executable_load_agent_code_object(exe, agent, reader, take_u8(in) & 1 ? "-bad" : NULL,
                                                      take_u8(in) & 1 ? NULL : &loaded));
        break;
    }
    case 2:
        CHECKED(hsa_executable_freeze(exe, NULL));
        break;
    case 3: {
        static const char *names[] = {"empty.kd", "empty", "scale_add.kd", "", "no_such_symbol.kd"};
        hsa_agent_t agent = {choose_handle(in, agents, n_agents, NULL, 0)};
        hsa_executable_symbol_t symbol;
        uint8_t how = take_u8(in);
        if (CHECKED(hsa_executable_get_symbol_by_name(exe, how & 8 ? NULL : names[how % 5], how & 16 ? NULL : &agent,
                                                      how & 32 ? NULL : &symbol)) == HSA_STATUS_SUCCESS &&
            st->n_symbols < MAX_LIVE)
            st->symbols[st->n_symbols++] = symbol.handle;
        break;
    }
    case 4: {
        hsa_executable_symbol_t symbol = {choose_handle(in, st->symbols, st->n_symbols, NULL, 0)};
        CHECKED(hsa_executable_symbol_get_info(symbol, (hsa_executable_symbol_info_t)(take_u8(in) % 26),
                                               choose_out(in, buffer, readonly_page)));
        break;
    }
    case 5: {
        uint32_t result;
        CHECKED(hsa_executable_iterate_symbols(exe, take_u8(in) & 1 ? NULL : keep_symbol, st));
        CHECKED(hsa_executable_validate(exe, take_u8(in) & 1 ? NULL : &result));
        CHECKED(hsa_executable_get_info(exe, (hsa_executable_info_t)(take_u8(in) % 3),
                                        choose_out(in, buffer, readonly_page)));
        break;
    }
    default: {
        hsa_status_t status = CHECKED(hsa_executable_destroy(exe));
        int i = find_live(&st->executables, exe.handle);
        if (i >= 0) {
            FUZZ_ASSERT(status == HSA_STATUS_SUCCESS, "destroying a live executable: 0x%x", status);
            make_stale(&st->executables, i);
        } else {
            FUZZ_ASSERT(status == HSA_STATUS_ERROR_INVALID_EXECUTABLE, "destroying a dead executable: 0x%x", status);
        }
    }
    }
}

/* -- system, re-initialisation -------------------------------------------------------- */

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

static void record_avail(state_t *st) {
    for (int a = 0; a < n_agents; a++) st->avail_before[a] = memory_avail(a);
}

static void stale_all(handles_t *h) {
    while (h->n_live) make_stale(h, 0);
}

/* hsa_init/hsa_shut_down cycles: every handle of the old session is stale afterwards. */
static void op_reinit(state_t *st, input_t *in) {
    (void)in;
    uint64_t old_agent = agents[0];
    for (int i = 0; i < st->n_queues; i++) CHECKED(hsa_queue_destroy(st->queues[i]));
    st->n_queues = 0;
    FUZZ_ASSERT(hsa_shut_down() == HSA_STATUS_SUCCESS, "shutdown");
    FUZZ_ASSERT(hsa_init() == HSA_STATUS_SUCCESS, "init");
    for (int i = 0; i < st->signals.n_live; i++)
        FUZZ_ASSERT(hsa_signal_destroy((hsa_signal_t){st->signals.live[i]}) == HSA_STATUS_ERROR_INVALID_SIGNAL,
                    "a signal survived shutdown");
    for (int i = 0; i < st->executables.n_live; i++)
        FUZZ_ASSERT(hsa_executable_destroy((hsa_executable_t){st->executables.live[i]}) ==
                    HSA_STATUS_ERROR_INVALID_EXECUTABLE, "an executable survived shutdown");
    for (int i = 0; i < st->readers.n_live; i++)
        FUZZ_ASSERT(hsa_code_object_reader_destroy((hsa_code_object_reader_t){st->readers.live[i]}) ==
                    HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER, "a reader survived shutdown");
    stale_all(&st->signals);
    stale_all(&st->groups);
    stale_all(&st->readers);
    stale_all(&st->executables);
    st->n_allocs = st->n_freed = st->n_symbols = 0;
    st->locked = st->registered = 0;
    uint32_t node;
    FUZZ_ASSERT(hsa_agent_get_info((hsa_agent_t){old_agent}, HSA_AGENT_INFO_NODE, &node) ==
                HSA_STATUS_ERROR_INVALID_AGENT, "an agent handle survived shutdown");
    discover();
    record_avail(st);
}

static void release_all(state_t *st) {
    for (int i = 0; i < st->n_queues; i++) CHECKED(hsa_queue_destroy(st->queues[i]));
    for (int i = 0; i < st->groups.n_live; i++)
        CHECKED(hsa_signal_group_destroy((hsa_signal_group_t){st->groups.live[i]}));
    for (int i = 0; i < st->signals.n_live; i++) CHECKED(hsa_signal_destroy((hsa_signal_t){st->signals.live[i]}));
    for (int i = 0; i < st->executables.n_live; i++)
        CHECKED(hsa_executable_destroy((hsa_executable_t){st->executables.live[i]}));
    for (int i = 0; i < st->readers.n_live; i++)
        CHECKED(hsa_code_object_reader_destroy((hsa_code_object_reader_t){st->readers.live[i]}));
    for (int i = 0; i < 16; i++) {
        if (st->locked >> i & 1) CHECKED(hsa_amd_memory_unlock(host_memory + i * PAGE));
        if (st->registered >> i & 1) CHECKED(hsa_memory_deregister(host_memory + i * PAGE, PAGE));
    }
    while (st->n_allocs) {
        FUZZ_ASSERT(CHECKED(hsa_amd_memory_pool_free(st->allocs[0].ptr)) == HSA_STATUS_SUCCESS, "final free");
        forget_allocation(st, 0);
    }
    check_accounting(st);
}

typedef void (*op_t)(state_t *, input_t *);
static const op_t OPS[] = {op_signal_create, op_signal_destroy, op_signal_values, op_signal_values,
                           op_agent_info,    op_pool_info,      op_allocate,      op_free,
                           op_copy_fill,     op_queue,          op_system,        op_reinit,
                           op_signal_group,  op_async_handler,  op_async_copy,    op_host_memory,
                           op_pointer_info,  op_reader,         op_executable,    op_executable};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input_t in = {data, size, 0};
    static state_t st;
    memset(&st, 0, sizeof st);
    record_avail(&st);
    for (int steps = 0; more(&in) && steps < 64; steps++) {
        uint8_t op = take_u8(&in) % (sizeof OPS / sizeof OPS[0]);
        /* Re-initialisation is slow: allow it only where the input insists. */
        if (OPS[op] == op_reinit && take_u8(&in) != 0xA5) continue;
        OPS[op](&st, &in);
    }
    release_all(&st);
    return 0;
}
