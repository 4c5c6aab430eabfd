/* The C side of SoftGPU that Python calls (cdef'd by build_shim.py).

   Signals live in a C table so that every hsa_signal_* and hsa_queue_* index
   operation runs without the GIL. As in ROCr, a signal handle is the address of the
   signal's amd_signal_t, so device code (HIP's hostcall: printf, assert) can reach
   the value at handle + 8. The table is mapped SG_SIGNAL_VIEWS times in a row: a
   slot's handle lies in the view its generation selects (generation % views), so a
   stale handle points into the wrong view and fails. Only fastpath.c decodes them. */
#define SG_SIGNAL_VIEWS 16
#define SG_MAX_SIGNALS 262144
#define SG_MAX_QUEUES 4096

int sg_signal_table_open(void);
void sg_signal_table_close(void);
uint64_t sg_signal_alloc(int64_t initial_value);
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
int64_t sg_signal_load(uint64_t handle);
void sg_signal_store(uint64_t handle, int64_t value);
int64_t sg_signal_add(uint64_t handle, int64_t delta);
int64_t sg_signal_cas(uint64_t handle, int64_t expected, int64_t value);
int sg_signal_set_timestamps(uint64_t handle, uint64_t start_ts, uint64_t end_ts);
int sg_signal_timestamps(uint64_t handle, uint64_t *start_ts, uint64_t *end_ts);
uint64_t sg_now_ns(void);

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
