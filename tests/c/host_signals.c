/* The host program's signal dispositions belong to the host: SoftGPU (and the Python it
   embeds) neither changes them nor blocks a signal, also while a dispatch runs.
   Modes:
     dispositions  every signal's disposition and the signal mask are the same after
                   hsa_init, a queue and a finished dispatch as before hsa_init;
     default       SIGINT left at its default: prints "spinning", then waits for a
                   dispatch that never ends; a SIGINT must kill the process;
     handler       a SIGINT handler of the program's own: prints "spinning"; the handler
                   (on SIGINT) tells the kernel to stop, the dispatch completes, and the
                   program prints what the kernel saw and exits 0. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "aql_util.h"

static volatile uint32_t *g_stop;
static volatile sig_atomic_t g_handled;

static void on_sigint(int sig) {
    (void)sig;
    g_handled = 1;
    *g_stop = 7;                 /* the spinning kernel reads it and ends */
}

typedef struct {
    struct sigaction action[NSIG];
    sigset_t mask;
} dispositions_t;

static void snapshot(dispositions_t *d) {
    for (int s = 1; s < NSIG; s++) sigaction(s, NULL, &d->action[s]);
    pthread_sigmask(SIG_BLOCK, NULL, &d->mask);
}

static int compare(const dispositions_t *a, const dispositions_t *b, const char *when) {
    int changed = 0;
    for (int s = 1; s < NSIG; s++) {
        if (s > SIGSYS && s < SIGRTMIN) continue;        /* the C library's own signals */
        /* SA_RESTORER is the C library's business: sigaction adds it whenever a handler is set. */
        int flags_a = a->action[s].sa_flags & ~0x04000000, flags_b = b->action[s].sa_flags & ~0x04000000;
        if (a->action[s].sa_handler != b->action[s].sa_handler || flags_a != flags_b) {
            printf("FAIL: %s changed the disposition of signal %d (%s): %p/%#x -> %p/%#x\n", when, s,
                   strsignal(s), (void *)a->action[s].sa_handler, flags_a, (void *)b->action[s].sa_handler,
                   flags_b);
            changed = 1;
        }
        if (sigismember(&a->mask, s) != sigismember(&b->mask, s)) {
            printf("FAIL: %s changed whether signal %d (%s) is blocked\n", when, s, strsignal(s));
            changed = 1;
        }
    }
    return changed;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        printf("usage: %s CODE_OBJECT dispositions|default|handler\n", argv[0]);
        return 2;
    }
    const char *mode = argv[2];
    dispositions_t before, after;
    snapshot(&before);
    if (!strcmp(mode, "handler")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigint;
        sigaction(SIGINT, &sa, NULL);
        snapshot(&before);
    }
    aql_env_t env;
    aql_setup(&env, argv[1]);
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX,
                          &queue));
    uint32_t *flags = aql_alloc(&env, 2 * sizeof(uint32_t));     /* stop, seen */
    void **args = aql_alloc(&env, 2 * sizeof(void *));
    args[0] = &flags[0];
    args[1] = &flags[1];
    g_stop = &flags[0];
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    if (!strcmp(mode, "dispositions")) {
        flags[0] = 1;            /* the kernel ends at once */
        aql_dispatch(queue, aql_kernel(&env, "spin_until"), args, 128, 64, done);
        hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
        CHECK(flags[1] == 1);
        snapshot(&after);
        CHECK(!compare(&before, &after, "hsa_init, a queue and a dispatch"));
        MUST(hsa_queue_destroy(queue));
        MUST(hsa_shut_down());
        snapshot(&after);
        CHECK(!compare(&before, &after, "hsa_shut_down"));
        return check_report();
    }
    aql_dispatch(queue, aql_kernel(&env, "spin_until"), args, 128, 64, done);
    printf("spinning\n");
    fflush(stdout);
    while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                     HSA_WAIT_STATE_BLOCKED) != 0)
        ;
    /* Only the handler mode gets here: SIGINT's default ends the process mid-wait. */
    printf("handled=%d seen=%u\n", (int)g_handled, flags[1]);
    MUST(hsa_queue_destroy(queue));
    MUST(hsa_shut_down());
    return 0;
}
