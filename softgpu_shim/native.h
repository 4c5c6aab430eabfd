/* The C side of SoftGPU that Python calls (cdef'd by build_shim.py).

   Signals live in a C table so that every hsa_signal_* and hsa_queue_* index
   operation runs without the GIL. As in ROCr, a signal handle is the address of the
   signal's amd_signal_t, so device code (HIP's hostcall: printf, assert) can reach
   the value at handle + 8. The table is mapped SG_SIGNAL_VIEWS times in a row: a
   slot's handle lies in the view its generation selects (generation % views), so a
   stale handle points into the wrong view and fails. Only fastpath.c decodes them.
   An interrupt signal (sg_signal_alloc with `interrupt`) has an event mailbox and an
   event id in its amd_signal_t, as ROCr's InterruptSignal has. */
#define SG_SIGNAL_VIEWS 16
#define SG_MAX_SIGNALS 262144
#define SG_MAX_QUEUES 4096

int sg_signal_table_open(uint64_t poll_ms);
void sg_signal_table_close(void);
uint64_t sg_signal_alloc(int64_t initial_value, int interrupt);
int sg_signal_free(uint64_t handle);
int sg_signal_valid(uint64_t handle);
uintptr_t sg_signal_table_address(void);
size_t sg_signal_table_bytes(void);
int64_t *sg_signal_value_ptr(uint64_t handle);
void *sg_signal_amd_ptr(uint64_t handle);
size_t sg_signal_live_count(void);
int64_t sg_signal_wait(uint64_t handle, int condition, int64_t compare_value,
                       uint64_t timeout_ns, int *satisfied);
uint32_t sg_signal_wait_any(uint32_t count, const uint64_t *handles, const int *conditions,
                            const int64_t *values, uint64_t timeout_ns, int64_t *satisfying_value);
uint32_t sg_signal_wait_all(uint32_t count, const uint64_t *handles, const int *conditions,
                            const int64_t *values, uint64_t timeout_ns, int64_t *satisfying);
int64_t sg_signal_load(uint64_t handle);
void sg_signal_store(uint64_t handle, int64_t value);
int64_t sg_signal_add(uint64_t handle, int64_t delta);
int64_t sg_signal_cas(uint64_t handle, int64_t expected, int64_t value);
/* s_sendmsg MSG_INTERRUPT from a wave, with the message data (M0): wakes the waiters of
   every interrupt signal whose event mailbox device code wrote; returns how many. */
uint32_t sg_signal_interrupt(uint32_t data);
int sg_signal_set_timestamps(uint64_t handle, uint64_t start_ts, uint64_t end_ts);
int sg_signal_timestamps(uint64_t handle, uint64_t *start_ts, uint64_t *end_ts);

/* Pages shared with other processes (ipc_shared.c). sg_share_pages moves arena pages into
   a new memfd named `name` (contents kept) and returns its descriptor, or -1;
   sg_map_pages maps a memfd over arena pages; sg_unshare_pages puts private zeroed
   memory back. An IPC signal's page starts with its slot: sg_shared_signal_create lays a
   new one out and returns its handle (0 on failure); sg_shared_signal_open makes a page
   mapped from another process resolvable here (-1 unless it holds a signal);
   sg_shared_signal_close drops this process's hold (-1 if it had none). */
int sg_share_pages(uintptr_t address, size_t size, const char *name);
int sg_map_pages(uintptr_t address, size_t size, int fd);
int sg_unshare_pages(uintptr_t address, size_t size);
uint64_t sg_shared_signal_create(uintptr_t page, int64_t initial_value);
int sg_shared_signal_open(uintptr_t page);
int sg_shared_signal_close(uintptr_t page);

/* Queues are amd_queue_t addresses (as integers). Only registered addresses pass the
   exports' checks; the sg_queue_* accessors below trust their caller (the runtime). */
int sg_queue_register(uintptr_t amd_queue);
int sg_queue_unregister(uintptr_t amd_queue);
int sg_queue_registered(uintptr_t amd_queue);
void sg_queue_init(uintptr_t amd_queue, uintptr_t ring, uint32_t size, uint32_t type,
                   uint32_t features, uint64_t doorbell, uint64_t id, uint32_t max_cu_id,
                   uint32_t max_wave_id);
uint64_t sg_queue_read_index(uintptr_t amd_queue);
void sg_queue_store_read_index(uintptr_t amd_queue, uint64_t value);
uint64_t sg_queue_write_index(uintptr_t amd_queue);
void sg_queue_set_profiling(uintptr_t amd_queue, int enabled);

uint64_t sg_invalid_fastpath_calls(void);

/* A kernel's native entry: the native tier binds one per translated kernel object
   (sg_kernel_bind). The queue threads then run that kernel's dispatch packets in C, with no
   Python, unless they are being recorded (the dispatch then goes to Python). The entry
   runs the whole dispatch the packet describes (an sg_launch the processor fills from it) on
   the caller's thread (it may use its own pool) and returns an SG_ENTRY_* outcome (runner.h),
   with `fault` filled in when it faulted. `*stop` (read it with a relaxed atomic load) turns
   nonzero when the queue is destroyed or deactivated: the entry may then end between
   workgroups (SG_ENTRY_STOPPED), and the packet is neither retired nor completed, as the
   interpreter's dispatch ends (run_dispatch's `stop`).
   A binding never outlives its kernel: the loader unbinds every kernel of an executable it
   destroys, and unbinding waits for dispatches of that kernel in flight. */
typedef uint32_t (*sg_dispatch_entry)(void *kernel, const sg_launch *launch, const int *stop,
                                      sg_fault *fault);
int sg_kernel_bind(uint64_t kernel_object, sg_dispatch_entry entry, void *kernel);
void sg_kernel_unbind(uint64_t kernel_object);

/* The packet processor's loop (processor.c). A queue's Python thread calls sg_proc_next,
   which runs packets in C (GIL released) and returns only for what needs Python:
   SG_PROC_DISPATCH (a checked kernel dispatch packet in `packet` whose kernel has no native
   entry; after running it the thread calls sg_proc_retire), SG_PROC_ERROR (`status` and
   `text`; the packet is neither retired nor completed), SG_PROC_FAULT (a native entry's
   fault: `status`, `packet` and `fault`; neither retired nor completed), SG_PROC_BARRIER
   (while recording: a barrier packet that finished, its snapshot in `packet` and its start
   in `start`; the thread records it and calls sg_proc_retire), SG_PROC_NOTE (`text` for
   the trace; processing goes on) or SG_PROC_STOPPED (sg_proc_stop or sg_proc_deactivate
   was called). Recording (SOFTGPU_TRACE, SOFTGPU_TIMELINE or SOFTGPU_CAPTURE set) sends every
   dispatch and barrier packet through Python, which records them. */
#define SG_PROC_STOPPED 0
#define SG_PROC_DISPATCH 1
#define SG_PROC_ERROR 2
#define SG_PROC_NOTE 3
#define SG_PROC_FAULT 4
#define SG_PROC_BARRIER 5
#define SG_PROC_CONTINUE 6
typedef struct sg_proc sg_proc;
typedef struct {
    uint64_t index;                      /* the packet's id: its position in the queue */
    uint64_t packet_address;             /* device address of its slot */
    uint64_t start;                      /* when it started (sg_now_ns) */
    uint32_t status;                     /* SG_PROC_ERROR: the hsa_status_t */
    char text[200];                      /* SG_PROC_ERROR, SG_PROC_NOTE: what happened */
    hsa_kernel_dispatch_packet_t packet; /* SG_PROC_DISPATCH, _FAULT, _BARRIER: the snapshot */
    sg_fault fault;                      /* SG_PROC_FAULT: where and why (Python gives the status) */
} sg_proc_event;
sg_proc *sg_proc_create(uintptr_t amd_queue, uint32_t workgroup_max_size, uint32_t max_x,
                        uint32_t max_y, uint32_t max_z, uint32_t group_segment_max,
                        uint64_t grid_max_size, int recording);
void sg_proc_destroy(sg_proc *p);
void sg_proc_stop(sg_proc *p);
void sg_proc_deactivate(sg_proc *p);
int sg_proc_next(sg_proc *p, sg_proc_event *ev);
int sg_proc_retire(sg_proc *p, sg_proc_event *ev);

/* Answers that cannot change while a session lives, remembered for the C-fronted exports
   (answers.c): `query` names the export, `handle` and `attribute` the question. */
#define SG_QUERY_AGENT_INFO 1
void sg_answer_remember(uint32_t query, uint64_t handle, uint32_t attribute, const void *bytes, uint32_t size);
void sg_answers_forget(void);
