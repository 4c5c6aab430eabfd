/* Device-to-host signalling as on ROCr: interrupt signals carry an event mailbox and an
   event id in their amd_signal_t, and a kernel that sets one through the device library
   (value, mailbox, s_sendmsg MSG_INTERRUPT) wakes a host thread asleep on it.
   usage: signal_interrupts CODE_OBJECT mailboxes|device_wakes_host
   Run with SOFTGPU_SIGNAL_POLL_MS set to minutes: a waiter that wakes then was woken by
   the interrupt, not by the safety-net poll. */
#define _GNU_SOURCE
#include <hsa/amd_hsa_signal.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "aql_util.h"

static int has_mailbox(hsa_signal_t signal) {
    const amd_signal_t *amd = (const amd_signal_t *)(uintptr_t)signal.handle;
    return amd->event_mailbox_ptr != 0 && amd->event_id != 0;
}

/* ROCr's rule: a signal the host may consume is an interrupt signal, unless it is IPC or
   GPU-only. */
static void test_mailboxes(aql_env_t *env) {
    struct {
        uint32_t consumers;
        hsa_agent_t *agents;
        uint64_t attributes;
        int interrupt;
    } cases[] = {
        {0, NULL, 0, 1},
        {1, &env->cpu, 0, 1},
        {2, (hsa_agent_t[]){env->gpu, env->cpu}, 0, 1},
        {1, &env->gpu, 0, 0},
        {0, NULL, HSA_AMD_SIGNAL_AMD_GPU_ONLY, 0},
        {0, NULL, HSA_AMD_SIGNAL_IPC, 0},
    };
    for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hsa_signal_t signal;
        MUST(hsa_amd_signal_create(0, cases[i].consumers, cases[i].agents, cases[i].attributes, &signal));
        CHECK_EQ_U64(has_mailbox(signal), cases[i].interrupt);
        MUST(hsa_signal_destroy(signal));
    }
}

typedef struct {
    hsa_signal_t signal;
    volatile pid_t tid;
    volatile int woke;
    hsa_signal_value_t seen;
} waiter_t;

static void *wait_for_one(void *arg) {
    waiter_t *w = arg;
    w->tid = (pid_t)syscall(SYS_gettid);
    w->seen = hsa_signal_wait_scacquire(w->signal, HSA_SIGNAL_CONDITION_EQ, 1, UINT64_MAX,
                                        HSA_WAIT_STATE_BLOCKED);
    w->woke = 1;
    return NULL;
}

/* The thread's scheduler state from /proc: 'S' while it sleeps in a system call. */
static char thread_state(pid_t tid) {
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return '?';
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    const char *after_name = strrchr(text, ')');
    return after_name ? after_name[2] : '?';
}

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void test_device_wakes_host(aql_env_t *env) {
    waiter_t waiter = {.tid = 0, .woke = 0};
    MUST(hsa_signal_create(0, 0, NULL, &waiter.signal));
    pthread_t thread;
    pthread_create(&thread, NULL, wait_for_one, &waiter);
    /* The waiter is asleep in the futex before the kernel runs. */
    for (int i = 0; i < 20000 && !(waiter.tid && thread_state(waiter.tid) == 'S'); i++) sleep_ms(1);
    CHECK(waiter.tid && thread_state(waiter.tid) == 'S');
    CHECK(!waiter.woke);

    struct {
        uint64_t signal;
        int64_t value;
    } *args = aql_alloc(env, 64);
    args->signal = waiter.signal.handle;
    args->value = 1;
    hsa_queue_t *queue = aql_queue(env);
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(env, "signal_host"), args, 1, 1, done);
    CHECK(aql_wait_zero(done, 60));
    for (int i = 0; i < 30000 && !waiter.woke; i++) sleep_ms(1);
    CHECK(waiter.woke);
    CHECK_EQ_U64(waiter.seen, 1);
    if (waiter.woke) pthread_join(thread, NULL);
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_signal_destroy(done));
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    aql_env_t env;
    aql_setup(&env, argv[1]);
    if (!strcmp(argv[2], "mailboxes"))
        test_mailboxes(&env);
    else if (!strcmp(argv[2], "device_wakes_host"))
        test_device_wakes_host(&env);
    else
        return 2;
    return check_report();
}
