/* IPC memory and signals between processes (this program run again as a child):
   - a child attaches the parent's device memory and IPC signal, reads and writes the
     memory, runs a kernel on it through its own AQL queue, and the two hand the signal
     back and forth;
   - a creator exits early without cleaning up: the memory it exported stays mapped and
     usable, a wait on its signal returns instead of hanging, and its handle attaches no more;
   - a process holding a signal dies during another's unbounded wait: the wait returns
     (also while the dead one is still an unreaped zombie), for wait_any too.
   usage: ipc_processes CODE_OBJECT   (aql_kernels.cl for gfx1030) */
#include <sys/wait.h>
#include <unistd.h>

#include "aql_util.h"

#define N 1024
#define OUT_OFFSET 8192                 /* where the child's kernel writes, in the buffer */
#define BUFFER_BYTES (64 * 1024)
#define MINUTE 60000000000ull

static void to_hex(const void *handle, char hex[65]) {
    const uint32_t *w = handle;
    for (int i = 0; i < 8; i++) sprintf(hex + 8 * i, "%08x", w[i]);
}

static void from_hex(const char *hex, void *handle) {
    uint32_t *w = handle;
    for (int i = 0; i < 8; i++) sscanf(hex + 8 * i, "%8x", &w[i]);
}

static pid_t spawn(char **argv, int *stdout_pipe) {
    int fds[2] = {-1, -1};
    if (stdout_pipe && pipe(fds) != 0) exit(2);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (stdout_pipe) dup2(fds[1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    if (stdout_pipe) {
        close(fds[1]);
        *stdout_pipe = fds[0];
    }
    return pid;
}

static int exit_code(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- the child that attaches, reads, writes, computes and signals ---- */

static int attacher(const char *kernels, const char *memory_hex, const char *signal_hex) {
    aql_env_t env;
    aql_setup(&env, kernels);
    hsa_amd_ipc_memory_t memory;
    hsa_amd_ipc_signal_t signal_handle;
    from_hex(memory_hex, &memory);
    from_hex(signal_hex, &signal_handle);
    float *shared = NULL;
    hsa_signal_t signal;
    CHECK_OK(hsa_amd_ipc_memory_attach(&memory, BUFFER_BYTES, 1, &env.gpu, (void **)&shared));
    CHECK_OK(hsa_amd_ipc_signal_attach(&signal_handle, &signal));
    if (!shared) return check_report();
    for (int i = 0; i < N; i++) CHECK(shared[i] == (float)i);
    ((uint32_t *)shared)[BUFFER_BYTES / 4 - 1] = 0xC0FFEE;       /* written by the CPU */

    /* This process's kernel reaches the attached memory: out[i] = a[i] * 2 + i. */
    struct __attribute__((packed)) { const float *a; float *out; float scale; uint32_t n; } *args =
        aql_alloc(&env, sizeof *args);
    args->a = shared;
    args->out = (float *)((char *)shared + OUT_OFFSET);
    args->scale = 2.0f;
    args->n = N;
    hsa_queue_t *queue = aql_queue(&env);
    hsa_signal_t done;
    MUST(hsa_signal_create(1, 0, NULL, &done));
    aql_dispatch(queue, aql_kernel(&env, "scale_add"), args, N, 64, done);
    CHECK(aql_wait_zero(done, 60));

    CHECK_EQ_U64(hsa_signal_load_scacquire(signal), 0);
    hsa_signal_store_screlease(signal, 1);                           /* wakes the parent */
    CHECK_EQ_U64(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 2, MINUTE, HSA_WAIT_STATE_BLOCKED), 2);
    CHECK_EQ_U64(((uint32_t *)shared)[N], 0xFEED);                   /* the parent's reply */

    CHECK_OK(hsa_signal_destroy(done));
    CHECK_OK(hsa_queue_destroy(queue));
    CHECK_OK(hsa_signal_destroy(signal));
    CHECK_OK(hsa_amd_ipc_memory_detach(shared));
    CHECK_OK(hsa_shut_down());
    return check_report();
}

static void share_with_a_child(aql_env_t *env, const char *self, const char *kernels) {
    float *buffer = NULL;
    hsa_signal_t signal;
    MUST(hsa_amd_memory_pool_allocate(env->device_pool, BUFFER_BYTES, 0, (void **)&buffer));
    for (int i = 0; i < N; i++) buffer[i] = (float)i;
    MUST(hsa_amd_signal_create(0, 0, NULL, HSA_AMD_SIGNAL_IPC, &signal));
    hsa_amd_ipc_memory_t memory;
    hsa_amd_ipc_signal_t signal_handle;
    CHECK_OK(hsa_amd_ipc_memory_create(buffer, BUFFER_BYTES, &memory));
    CHECK_OK(hsa_amd_ipc_signal_create(signal, &signal_handle));
    char memory_hex[65], signal_hex[65];
    to_hex(&memory, memory_hex);
    to_hex(&signal_handle, signal_hex);
    char *argv[] = {(char *)self, "attacher", (char *)kernels, memory_hex, signal_hex, NULL};
    pid_t child = spawn(argv, NULL);

    CHECK_EQ_U64(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 1, MINUTE, HSA_WAIT_STATE_BLOCKED), 1);
    CHECK_EQ_U64(((uint32_t *)buffer)[BUFFER_BYTES / 4 - 1], 0xC0FFEE);
    const float *out = (const float *)((char *)buffer + OUT_OFFSET);
    int wrong = 0;
    for (int i = 0; i < N; i++) wrong += out[i] != (float)i * 2.0f + (float)i;
    CHECK_EQ_U64(wrong, 0);
    ((uint32_t *)buffer)[N] = 0xFEED;
    hsa_signal_store_screlease(signal, 2);
    CHECK_EQ_U64(exit_code(child), 0);
    CHECK_OK(hsa_signal_destroy(signal));
    CHECK_OK(hsa_amd_memory_pool_free(buffer));
}

/* ---- the creator that leaves without cleaning up ---- */

static int creator(void) {
    aql_env_t env;
    memset(&env, 0, sizeof env);
    MUST(hsa_init());
    find_cpu_gpu(&env.cpu, &env.gpu);
    MUST(hsa_amd_agent_iterate_memory_pools(env.gpu, aql_pick_pool, &env));
    char *buffer = NULL;
    hsa_signal_t signal;
    MUST(hsa_amd_memory_pool_allocate(env.device_pool, 4096, 0, (void **)&buffer));
    memset(buffer, 0x42, 4096);
    MUST(hsa_amd_signal_create(0, 0, NULL, HSA_AMD_SIGNAL_IPC, &signal));
    hsa_amd_ipc_memory_t memory;
    hsa_amd_ipc_signal_t signal_handle;
    MUST(hsa_amd_ipc_memory_create(buffer, 4096, &memory));
    MUST(hsa_amd_ipc_signal_create(signal, &signal_handle));
    char memory_hex[65], signal_hex[65];
    to_hex(&memory, memory_hex);
    to_hex(&signal_handle, signal_hex);
    printf("%s %s\n", memory_hex, signal_hex);
    fflush(stdout);
    /* Gone as soon as the parent has attached: no free, no destroy, no hsa_shut_down. */
    hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 1, MINUTE, HSA_WAIT_STATE_BLOCKED);
    _exit(0);
}

static void creator_exits_early(const char *self) {
    char *argv[] = {(char *)self, "creator", NULL};
    int out = -1;
    pid_t child = spawn(argv, &out);
    char line[160] = "";
    FILE *from_child = fdopen(out, "r");
    if (!fgets(line, sizeof line, from_child)) {
        printf("FAIL: the creator printed no handles\n");
        check_failures++;
        return;
    }
    hsa_amd_ipc_memory_t memory;
    hsa_amd_ipc_signal_t signal_handle;
    from_hex(line, &memory);
    from_hex(line + 65, &signal_handle);
    char *mapped = NULL;
    hsa_signal_t signal;
    CHECK_OK(hsa_amd_ipc_memory_attach(&memory, 4096, 0, NULL, (void **)&mapped));
    CHECK_OK(hsa_amd_ipc_signal_attach(&signal_handle, &signal));
    hsa_signal_store_screlease(signal, 1);
    CHECK_EQ_U64(exit_code(child), 0);
    fclose(from_child);

    /* The creator's memory outlives it here: readable and writable. */
    CHECK(mapped[0] == 0x42 && mapped[4095] == 0x42);
    mapped[7] = 0x24;
    CHECK(mapped[7] == 0x24);
    /* Nobody is left to set the signal: an unbounded wait returns, unsatisfied, with the
       value it saw, as a wait on a destroyed signal does. */
    CHECK_EQ_U64(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 7, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 1);
    CHECK_EQ_U64(hsa_signal_load_relaxed(signal), 1);
    /* Its handles attach no more: the memory is known only to those who mapped it. */
    void *again = NULL;
    CHECK_STATUS(hsa_amd_ipc_memory_attach(&memory, 4096, 0, NULL, &again), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    hsa_signal_t again_signal;
    CHECK_STATUS(hsa_amd_ipc_signal_attach(&signal_handle, &again_signal), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_OK(hsa_signal_destroy(signal));
    CHECK_OK(hsa_amd_ipc_memory_detach(mapped));
}

/* ---- a holder that dies while another process waits ---- */

static int quitter(const char *signal_hex) {
    MUST(hsa_init());
    hsa_amd_ipc_signal_t signal_handle;
    hsa_signal_t signal;
    from_hex(signal_hex, &signal_handle);
    MUST(hsa_amd_ipc_signal_attach(&signal_handle, &signal));
    hsa_signal_store_screlease(signal, 3);                 /* "attached": the parent now waits */
    usleep(300000);
    _exit(0);                                              /* without ever setting 9 */
}

static void holder_dies_during_wait(const char *self) {
    hsa_signal_t signal;
    hsa_amd_ipc_signal_t signal_handle;
    MUST(hsa_amd_signal_create(0, 0, NULL, HSA_AMD_SIGNAL_IPC, &signal));
    MUST(hsa_amd_ipc_signal_create(signal, &signal_handle));
    char signal_hex[65];
    to_hex(&signal_handle, signal_hex);
    char *argv[] = {(char *)self, "quitter", signal_hex, NULL};
    pid_t child = spawn(argv, NULL);
    CHECK_EQ_U64(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 3, MINUTE, HSA_WAIT_STATE_BLOCKED), 3);
    /* The child dies (and stays an unreaped zombie) while this wait has no bound. */
    CHECK_EQ_U64(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 9, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 3);
    hsa_signal_condition_t eq = HSA_SIGNAL_CONDITION_EQ;
    hsa_signal_value_t nine = 9;
    CHECK_EQ_U64(hsa_amd_signal_wait_any(1, &signal, &eq, &nine, UINT64_MAX, HSA_WAIT_STATE_BLOCKED, NULL), UINT32_MAX);
    CHECK_EQ_U64(exit_code(child), 0);
    /* What is set is still seen: the signal itself works on. */
    hsa_signal_store_screlease(signal, 9);
    CHECK_EQ_U64(hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 9, UINT64_MAX, HSA_WAIT_STATE_BLOCKED), 9);
    CHECK_OK(hsa_signal_destroy(signal));
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "attacher") == 0) return attacher(argv[2], argv[3], argv[4]);
    if (argc == 2 && strcmp(argv[1], "creator") == 0) return creator();
    if (argc == 3 && strcmp(argv[1], "quitter") == 0) return quitter(argv[2]);
    if (argc != 2) return 2;
    aql_env_t env;
    aql_setup(&env, argv[1]);
    share_with_a_child(&env, argv[0], argv[1]);
    creator_exits_early(argv[0]);
    holder_dies_during_wait(argv[0]);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
