/* A failure inside packet processing that no setting could foresee — the capture directory
   SOFTGPU_CAPTURE names is replaced by a file after hsa_init — becomes the queue's error.
   Usage: queue_internal_error CODE_OBJECT CAPTURE_PATH block|keep callback|none [stderr-full]
     block: CAPTURE_PATH becomes a regular file before the dispatch; keep: it is left alone.
     callback: the queue has an error callback; the program waits for the dispatch's
               completion or the callback, whichever comes, and prints what happened;
     none: no callback; the program waits for the completion (ROCr's abort ends it when the
           queue fails);
     stderr-full: the program's stderr becomes /dev/full once the queue exists, so reporting
           the failure fails too (the processor's last route: error state, callback or abort). */
#include <fcntl.h>
#include <unistd.h>

#include "aql_util.h"

static hsa_queue_t *volatile g_queue_seen;

static void on_error(hsa_status_t status, hsa_queue_t *queue, void *data) {
    g_queue_seen = queue;
    aql_record_error(status, queue, data);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        printf("usage: %s CODE_OBJECT CAPTURE_PATH block|keep callback|none\n", argv[0]);
        return 2;
    }
    int with_callback = !strcmp(argv[4], "callback");
    aql_env_t env;
    aql_setup(&env, argv[1]);
    if (!strcmp(argv[3], "block")) {
        rmdir(argv[2]);
        int fd = open(argv[2], O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (fd < 0) { perror("open"); return 2; }
        close(fd);
    }
    hsa_queue_t *queue;
    MUST(hsa_queue_create(env.gpu, 64, HSA_QUEUE_TYPE_MULTI, with_callback ? on_error : NULL, NULL,
                          UINT32_MAX, UINT32_MAX, &queue));
    if (argc > 5 && !strcmp(argv[5], "stderr-full")) {
        int full = open("/dev/full", O_WRONLY);
        if (full < 0 || dup2(full, 2) < 0) { perror("/dev/full"); return 2; }
    }
    uint32_t *flags = aql_alloc(&env, 2 * sizeof(uint32_t));
    flags[0] = 1;                                  /* spin_until ends at once */
    void **args = aql_alloc(&env, 2 * sizeof(void *));
    args[0] = &flags[0];
    args[1] = &flags[1];
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "spin_until"), args, 64, 64, done);
    if (aql_wait_done_or_error(done))
        printf("callback status=0x%x same_queue=%d completion=%ld seen=%u\n", (unsigned)aql_error_status,
               g_queue_seen == queue, (long)hsa_signal_load_scacquire(done), flags[1]);
    else
        printf("completed seen=%u\n", flags[1]);
    return 0;
}
