/* Pages shared with other processes: the device memory behind IPC memory handles and the
   pages of IPC signals (cdef'd in native.h; one translation unit with fastpath.c).

   Holds these invariants:
   - a shared range is a memfd mapped MAP_SHARED | MAP_FIXED over arena pages; sharing keeps
     the contents, unsharing puts fresh private anonymous memory back (zeros), so an arena
     range never stays aliased to another process's memory once it is freed;
   - an IPC signal's page starts with an sg_signal_slot (amd_signal_t first: the handle is
     the page's address), so every value operation and wait of fastpath.c works on it, with
     process-shared futex words;
   - a process resolves an IPC signal handle only while it holds it: created or attached
     here, until it is destroyed or the session closes;
   - every process holding a signal is listed in its page (pid and start time); a wait on
     the signal returns, unsatisfied, once one of them has exited or become a zombie
     without letting go of it, so no process waits forever on a dead peer. */
#include "shim.h"
#include "fastpath.h"

#include <pthread.h>
#include <stdio.h>

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#define SG_SHARED_MAGIC 0x4c414e4749534753ull   /* "SGSIGNAL" */
#define SG_SHARED_HOLDERS 240
#define SG_MAX_SHARED_SIGNALS 4096
#define SG_PAGE 4096u

typedef struct {
    _Atomic uint32_t pid;      /* 0: a free entry */
    uint32_t reserved;
    _Atomic uint64_t start;    /* the process's start time (clock ticks after boot); 0 while written */
} sg_holder;

typedef struct {
    sg_signal_slot slot;
    _Atomic uint64_t magic;
    uint64_t reserved;
    sg_holder holders[SG_SHARED_HOLDERS];   /* one entry per create or attach; full: untracked */
} sg_shared_signal;
_Static_assert(sizeof(sg_shared_signal) <= SG_PAGE, "an IPC signal fits in one page");

/* ---- sharing arena pages ---- */

/* Copies only resident pages: the rest of an arena range reads as zeros, as does a new memfd. */
static int copy_resident(char *dst, const char *src, size_t size) {
    enum { CHUNK = 4096 };
    unsigned char resident[CHUNK];
    for (size_t done = 0; done < size; done += (size_t)CHUNK * SG_PAGE) {
        size_t bytes = size - done < (size_t)CHUNK * SG_PAGE ? size - done : (size_t)CHUNK * SG_PAGE;
        if (mincore((void *)(src + done), bytes, resident) != 0) return -1;
        for (size_t page = 0; page < bytes / SG_PAGE; page++)
            if (resident[page] & 1) memcpy(dst + done + page * SG_PAGE, src + done + page * SG_PAGE, SG_PAGE);
    }
    return 0;
}

int sg_share_pages(uintptr_t address, size_t size, const char *name) {
    int fd = (int)syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */);
    if (fd < 0) return -1;
    char *staging = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0)
        staging = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int copied = staging != MAP_FAILED && copy_resident(staging, (const char *)address, size) == 0;
    if (staging != MAP_FAILED) munmap(staging, size);
    if (!copied || sg_map_pages(address, size, fd) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int sg_map_pages(uintptr_t address, size_t size, int fd) {
    return mmap((void *)address, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED
               ? -1 : 0;
}

int sg_unshare_pages(uintptr_t address, size_t size) {
    return mmap((void *)address, size, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED ? -1 : 0;
}

/* ---- who holds a signal ---- */

/* 1 and the start time of a running process, 0 for one that exited or is a zombie. */
static int process_start(uint32_t pid, uint64_t *start) {
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%u/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    /* After the command name in parentheses: state (field 3) ... starttime (field 22). */
    char *p = strrchr(text, ')');
    if (!p || p[1] != ' ') return 0;
    char state = p[2];
    if (state == 'Z' || state == 'X') return 0;
    p += 2;
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p, ' ');
        if (p) p++;
    }
    if (!p) return 0;
    *start = strtoull(p, NULL, 10);
    return 1;
}

static uint32_t my_pid(void) { return (uint32_t)getpid(); }

static uint64_t my_start(void) {
    static _Atomic uint64_t cached;
    uint64_t start = atomic_load(&cached);
    if (!start && process_start(my_pid(), &start)) atomic_store(&cached, start);
    return start;
}

static void holder_add(sg_shared_signal *p) {
    uint32_t me = my_pid();
    for (int i = 0; i < SG_SHARED_HOLDERS; i++) {
        uint32_t free_entry = 0;
        if (atomic_compare_exchange_strong(&p->holders[i].pid, &free_entry, me)) {
            atomic_store(&p->holders[i].start, my_start());
            return;
        }
    }
}

static void holder_remove(sg_shared_signal *p) {
    uint32_t me = my_pid();
    for (int i = 0; i < SG_SHARED_HOLDERS; i++) {
        if (atomic_load(&p->holders[i].pid) == me && atomic_load(&p->holders[i].start) == my_start()) {
            atomic_store(&p->holders[i].start, 0);
            atomic_store(&p->holders[i].pid, 0);
            return;
        }
    }
}

static int shared_peer_died(const sg_signal_slot *s) {
    const sg_shared_signal *p = (const sg_shared_signal *)s;
    uint32_t me = my_pid();
    for (int i = 0; i < SG_SHARED_HOLDERS; i++) {
        uint32_t pid = atomic_load(&p->holders[i].pid);
        uint64_t start = atomic_load(&p->holders[i].start), now_start = 0;
        if (pid == 0 || start == 0 || (pid == me && start == my_start())) continue;
        if (!process_start(pid, &now_start) || now_start != start) return 1;
    }
    return 0;
}

/* ---- the signals this process holds: an open-addressing set of page addresses ---- */

static _Atomic uintptr_t g_shared[SG_MAX_SHARED_SIGNALS];
static _Atomic uint32_t g_shared_count;
static pthread_mutex_t g_shared_lock = PTHREAD_MUTEX_INITIALIZER;
#define SHARED_TOMBSTONE ((uintptr_t)1)

static size_t shared_slot(uintptr_t page) {
    return (size_t)((page * 0x9E3779B97F4A7C15ull) >> 52) % SG_MAX_SHARED_SIGNALS;
}

static int shared_registered(uint64_t handle) {
    if (!atomic_load_explicit(&g_shared_count, memory_order_acquire) || handle % SG_PAGE || handle <= 1)
        return 0;
    for (size_t i = shared_slot(handle), n = 0; n < SG_MAX_SHARED_SIGNALS; n++, i = (i + 1) % SG_MAX_SHARED_SIGNALS) {
        uintptr_t seen = atomic_load_explicit(&g_shared[i], memory_order_acquire);
        if (seen == handle) return 1;
        if (seen == 0) return 0;
    }
    return 0;
}

static sg_signal_slot *resolve_shared(uint64_t handle) {
    return shared_registered(handle) ? (sg_signal_slot *)(uintptr_t)handle : NULL;
}

/* Caller holds g_shared_lock. */
static int shared_add(uintptr_t page) {
    for (size_t i = shared_slot(page), n = 0; n < SG_MAX_SHARED_SIGNALS; n++, i = (i + 1) % SG_MAX_SHARED_SIGNALS) {
        uintptr_t seen = atomic_load(&g_shared[i]);
        if (seen == 0 || seen == SHARED_TOMBSTONE) {
            atomic_store(&g_shared[i], page);
            atomic_fetch_add(&g_shared_count, 1);
            return 0;
        }
    }
    return -1;
}

/* Caller holds g_shared_lock. */
static int shared_remove(uintptr_t page) {
    for (size_t i = shared_slot(page), n = 0; n < SG_MAX_SHARED_SIGNALS; n++, i = (i + 1) % SG_MAX_SHARED_SIGNALS) {
        uintptr_t seen = atomic_load(&g_shared[i]);
        if (seen == page) {
            atomic_store(&g_shared[i], SHARED_TOMBSTONE);   /* probing goes on past removed entries */
            atomic_fetch_sub(&g_shared_count, 1);
            return 0;
        }
        if (seen == 0) return -1;
    }
    return -1;
}

int sg_shared_signal_open(uintptr_t page) {
    sg_shared_signal *p = (sg_shared_signal *)page;
    if (page % SG_PAGE || atomic_load(&p->magic) != SG_SHARED_MAGIC) return -1;
    pthread_mutex_lock(&g_shared_lock);
    int status = shared_registered(page) ? -1 : shared_add(page);
    pthread_mutex_unlock(&g_shared_lock);
    if (status == 0) holder_add(p);
    return status;
}

uint64_t sg_shared_signal_create(uintptr_t page, int64_t initial_value) {
    sg_shared_signal *p = (sg_shared_signal *)page;
    memset(p, 0, sizeof *p);
    p->slot.amd.kind = AMD_SIGNAL_KIND_USER;
    p->slot.amd.value = initial_value;
    atomic_store(&p->slot.live, 1);
    atomic_store(&p->magic, SG_SHARED_MAGIC);
    return sg_shared_signal_open(page) == 0 ? page : 0;
}

static int close_shared(uintptr_t page) {
    if (shared_remove(page) != 0) return -1;
    sg_shared_signal *p = (sg_shared_signal *)page;
    holder_remove(p);
    wake(&p->slot);   /* this process's waiters return instead of sleeping on */
    return 0;
}

int sg_shared_signal_close(uintptr_t page) {
    pthread_mutex_lock(&g_shared_lock);
    int status = close_shared(page);
    pthread_mutex_unlock(&g_shared_lock);
    return status;
}

static void close_shared_signals(void) {
    pthread_mutex_lock(&g_shared_lock);
    for (size_t i = 0; i < SG_MAX_SHARED_SIGNALS; i++) {
        uintptr_t page = atomic_load(&g_shared[i]);
        if (page > SHARED_TOMBSTONE) close_shared(page);
    }
    for (size_t i = 0; i < SG_MAX_SHARED_SIGNALS; i++) atomic_store(&g_shared[i], 0);
    pthread_mutex_unlock(&g_shared_lock);
}
