/* The native tier's runner: the C side of core/isa/native (cdef'd by build_shim.py).

   A translated kernel is one function per kernel, `int32_t wave(sg_wave *, sg_group *,
   const sg_env *)`, that runs one wave from its resume point until it ends (SG_END), waits
   at s_barrier (SG_BARRIER), yields in a loop (SG_YIELD), lets the other waves of its group
   run before an LDS store (SG_TURN) or faults (SG_FAULT); every
   architectural register lives in sg_wave between calls. A wave that reaches an instruction
   the translator hands to the interpreter returns SG_CALLOUT (sg_wave.pc at it); the runner
   runs such waves in batches on the interpreter's handlers (sg_handover) and resumes them.
   sg_native_dispatch runs a whole grid of workgroups on a pool of native threads and needs
   no Python (but for callouts): a C packet processor can call it with a dispatch whose
   launch template Python computed once per kernel.
   Layouts here are the one definition the translator reads (through cffi's offsetof). */
#define SG_END 0
#define SG_BARRIER 1
#define SG_YIELD 2
#define SG_FAULT 3
#define SG_CALLOUT 4
#define SG_TURN 5

#define SG_FAULT_MEMORY 1            /* access outside every live allocation */
#define SG_FAULT_MISALIGNED_ATOMIC 2
#define SG_FAULT_WATCHDOG 3
#define SG_FAULT_TRAP 4              /* s_trap: HSA_STATUS_ERROR_EXCEPTION */
#define SG_FAULT_ILLEGAL 5           /* fault_detail names the reason (core/isa/native/faults) */
#define SG_FAULT_CALLOUT 6           /* the interpreter faulted in a callout: fault_detail indexes
                                        the dispatch's callout faults (core/isa/native/handover.py) */
#define SG_FAULT_TIME_LIMIT 7        /* the dispatch ran past its time limit (SOFTGPU_TIME_LIMIT) */
#define SG_FAULT_NO_THREAD 8         /* no thread with the stack the kernel's frame needs started */

/* Stacks. A wave function's frame can take megabytes (kernels compiled at -O0: each value the
   code generator spills has a slot of its own), more than a host program's thread may have.
   The pool's threads have SG_THREAD_STACK_KIB each; a dispatch whose frame (sg_dispatch
   .frame_kib) is above SG_CALLER_FRAME_KIB runs the calling thread's share on a thread of that
   size too, and Python hands a kernel whose frame leaves less than SG_STACK_MARGIN_KIB of it
   (for the C helpers and callouts it calls) to the interpreter. */
#define SG_THREAD_STACK_KIB 65536       /* 64 MiB: reserved address space, used as touched */
#define SG_CALLER_FRAME_KIB 256
#define SG_STACK_MARGIN_KIB 8192

#define SG_NO_SLOT -1
#define SG_TTMP 108                  /* ttmp0's slot in a wave's sgpr[] */
#define SG_MAX_SGPR_SLOTS 128
#define SG_USER_SGPRS 106

/* Valid device memory: [start, end) reaches host memory at address - delta (locked host
   memory has an agent address different from its host address; arena memory delta 0). */
typedef struct sg_range {
    uint64_t start, end, delta;
} sg_range;

/* CLOCK_MONOTONIC in nanoseconds: the one clock of the runner (watchdog, time limits,
   s_memtime in translated code) and of the library's C side (signal waits, packet times). */
uint64_t sg_now_ns(void);

/* What translated code reads besides its wave and workgroup. Translated code calls the C
   helpers runner_layout.EXTERNALS names (through its helper table, filled when it loads). */
typedef struct sg_env {
    uint64_t code_base;              /* device address PCs in the translation are relative to */
    const sg_range *ranges;          /* sorted, disjoint, touching ranges merged */
    uint64_t range_count;
    uint64_t lds_bytes;              /* LDS of a workgroup (the packet's group segment) */
    uint64_t clock_mhz;              /* the agent's shader clock: what s_memtime counts */
    void *callout;                   /* the dispatch's Python callout context (a cffi handle),
                                        NULL when the kernel has no callout */
    void *live;                      /* the Python context that finds memory allocated after
                                        `ranges` were published (a cffi handle), or NULL */
} sg_env;

typedef struct sg_group {
    uint8_t *lds;
    sg_range *sites;                 /* per checked access of the kernel: the range it hit
                                        last (start > end: none yet), kept by the thread
                                        across its workgroups while the dispatch runs */
    uint32_t id[3];
    uint32_t waves;                  /* waves in the workgroup */
} sg_group;

/* One wave's architectural state. VGPRs follow at SG_WAVE_VGPRS bytes from the start:
   `nvgpr` registers of `lanes` dwords each (register-major). */
typedef struct sg_wave {
    uint32_t sgpr[128];              /* by the decoder's operand field id (gfx10's, on every target:
                                        vcc 106-107, m0 124, exec 126-127; gfx9 flat_scratch 102-103) */
    uint64_t executed;               /* instructions issued (the watchdog's count) */
    uint64_t lane_instructions;      /* instructions x active lanes at issue */
    uint64_t yield_at;               /* loops return SG_YIELD once executed reaches it */
    uint64_t cut_at;                 /* LDS stores return SG_TURN once executed reaches it */
    uint64_t scratch;                /* flat scratch base of the wave */
    uint64_t pc;                     /* at every exit: the resume or faulting PC - code_base */
    uint64_t fault_address;
    uint64_t fault_detail;
    int32_t fault_code;
    int32_t fault_lane;
    uint32_t resume;                 /* resume point id, 0 = the kernel entry */
    uint32_t scc;
    uint32_t wave_in_group;
    uint32_t mode;
} sg_wave;

#define SG_WAVE_VGPRS 640

typedef int32_t (*sg_wave_fn)(sg_wave *wave, sg_group *group, const sg_env *env);

/* One dispatch: the kernel's launch template (from the kernel object alone) and the
   packet's grid; a C packet processor fills it per packet from a cached template. */
typedef struct sg_dispatch {
    sg_wave_fn wave;
    uint32_t frame_kib;              /* the wave function's frame (it measures it: translate.py) */
    sg_env env;
    uint32_t lanes, nvgpr, waves_per_group, workitem_dims;
    uint32_t packed_workitem_ids;    /* ids in v0 as x | y << 10 | z << 20 (gfx90a, gfx11) */
    uint32_t access_sites;           /* checked accesses in the translation (group.sites) */
    uint32_t grid[3], workgroup[3];
    uint32_t user_sgpr[106];         /* the user SGPRs every wave starts with */
    uint32_t user_sgpr_count;
    int32_t workgroup_id_slot[3];    /* SG_NO_SLOT when not enabled */
    int32_t workgroup_info_slot;
    int32_t wave_offset_slot;        /* private segment wave offset */
    uint32_t architected_ids;        /* gfx12: workgroup ids in ttmp9 (x) and ttmp7 (y | z << 16),
                                        the wave's number in its group in ttmp8 [29:25] */
    uint32_t mode;
    uint64_t scratch_base;           /* scratch of every wave in flight */
    uint64_t wave_scratch_bytes;
    uint32_t groups_in_flight;       /* per thread: what a GPU of the profile holds / threads */
    uint32_t threads;                /* 0: the pool's size */
    uint64_t watchdog;               /* instructions per wave; 0: no limit */
    uint64_t quantum;                /* instructions between yields */
    uint64_t store_turn;             /* instructions of a turn after which an LDS store ends it
                                        (if the turn read LDS), where the group has other
                                        runnable waves; 0: never */
    uint64_t time_limit_ns;          /* 0: none; else the dispatch faults once it ran this long */
    uint64_t notice_ns;              /* a dispatch still running after this is reported */
    const char *name;                /* the kernel's, for those reports */
    const int *stop;                 /* NULL, or a flag that ends the dispatch when set */
    uint64_t *workgroups_done;       /* NULL, or a count of ended workgroups (progress) */
    uint64_t first_group;            /* workgroups before it (in grid order) ran elsewhere: the
                                        interpreter, before a tier switch (core/isa/tiering.py) */
} sg_dispatch;

typedef struct sg_outcome {
    uint64_t waves, workgroups, wave_instructions, lane_instructions;
    int32_t fault_code;              /* 0: the dispatch completed (or stopped) */
    int32_t stopped;                 /* d->stop was set: workgroups were left unrun */
    int32_t fault_lane;
    uint32_t fault_workgroup[3];
    uint32_t fault_wave;
    uint32_t fault_resume;
    uint64_t fault_pc, fault_address, fault_detail;
} sg_outcome;

/* sg_native_access flags: check addresses (and turn them into host addresses), load
   elements into data, store elements from data; the lanes' addresses are a run, lane i's
   addresses[0] + i * esize, and only addresses[0] is filled in (the translator knows the
   access is contiguous: building 64 addresses inline costs -O0 kernels compile time). */
#define SG_ACCESS_CHECK 1
#define SG_ACCESS_LOAD 2
#define SG_ACCESS_STORE 4
#define SG_ACCESS_RUN 8

/* A MUBUF access through the V# `rsrc` (the interpreter's core/isa/interp/vmem.py rules:
   swizzled, the private segment buffer among them, or linear with bounds), out of line:
   lane i (mask bit i) has offset `offset` + soffset (+ voffset[i] when `offen`) and index
   vindex[i] (when `idxen`) plus i (ADD_TID). Elements outside a linear V#'s bounds are not
   checked, load 0 and are not stored; with SG_ACCESS_CHECK alone, addresses[i] receives the
   host address of lane i's first element (0 when it is out of bounds). Returns as
   sg_native_access. */
int32_t sg_native_buffer(const sg_env *env, sg_wave *wave, sg_range *site, const uint32_t *rsrc,
                         uint32_t soffset, uint32_t offset, uint32_t offen, uint32_t idxen,
                         const uint32_t *vindex, const uint32_t *voffset, uint64_t mask,
                         uint32_t lanes, uint32_t elements, uint32_t esize, uint64_t *addresses,
                         uint32_t *data, uint32_t flags);

/* A translated kernel bound for the packet processors' C loops (sg_kernel_bind with
   sg_native_entry): the dispatch Python prepared for the last launch shape it ran (workgroup
   size, group and private segment sizes), where the user SGPRs that depend on the packet
   are marked in `sources`, and the valid ranges Python published with the memory version
   they hold for. A packet of another shape, or memory changed since (sg_native_memory_changed),
   is declined to Python, which runs it and prepares the binding again. */
#define SG_SOURCE_CONSTANT 0          /* user SGPR sources: the template's value */
#define SG_SOURCE_KERNARG 1           /* ...lo, +1 hi; the same for the next three */
#define SG_SOURCE_PACKET 3
#define SG_SOURCE_QUEUE 5
#define SG_SOURCE_DISPATCH_ID 7
typedef struct sg_native_binding sg_native_binding;
sg_native_binding *sg_native_binding_create(void);
void sg_native_binding_destroy(sg_native_binding *binding);
/* Prepare `binding` for packets of the shape (workgroup, group_segment_size,
   private_segment_size): `d` (copied) with its per-packet user SGPRs marked in sources[106];
   `ranges` (copied) valid at memory `version`. Returns 0, -1 without memory. */
int sg_native_binding_prepare(sg_native_binding *binding, const sg_dispatch *d,
                              const uint8_t *sources, const uint32_t *workgroup,
                              uint32_t group_segment_size, uint32_t private_segment_size,
                              const sg_range *ranges, uint64_t range_count, uint64_t version);
/* What a dispatch packet asks of an entry, as the packet processor read it from the packet
   (the runner knows launches, not the AQL format), with where the packet and its queue
   live and the packet's index: the user SGPRs that point at them take these values. */
typedef struct {
    uint32_t workgroup[3], grid[3];
    uint32_t group_segment_size, private_segment_size;
    uint64_t kernarg, packet, queue, dispatch_id;
} sg_launch;
/* Where and why an entry's dispatch faulted, as sg_outcome says it (SG_FAULT_* code and
   detail, PC relative to the code base): Python turns it into the kernel's fault report
   (core/isa/native/dispatch.py: entry_fault). */
typedef struct {
    uint64_t pc, address;
    uint32_t workgroup[3];
    uint32_t wave, lane;
    int32_t native_code;
    uint64_t native_detail;
} sg_fault;
/* An entry's outcomes: it ran the dispatch; it faulted (`fault` says where); it ended early
   because *stop was set; or it declined the packet to Python (a launch shape it has not
   seen, memory changed since its ranges were published), which runs it as a packet of a
   kernel without an entry. */
#define SG_ENTRY_RAN 0
#define SG_ENTRY_FAULTED 1
#define SG_ENTRY_STOPPED 2
#define SG_ENTRY_DECLINED 3
uint32_t sg_native_entry(void *binding, const sg_launch *launch, const int *stop, sg_fault *fault);
void sg_native_memory_changed(void);
uint64_t sg_native_memory_version(void);

/* Runs every workgroup of `d`; returns 0, or 1 with the first fault in `out`. */
int sg_native_dispatch(const sg_dispatch *d, sg_outcome *out);
uint64_t sg_native_scratch_slots(const sg_dispatch *d);
/* The pool's size; `requested` (SOFTGPU_THREADS, 0: the usable cores) counts only when the
   pool starts, on the first dispatch of the process. */
uint32_t sg_native_pool_threads(uint32_t requested);
/* The index of the range holding [lo, hi), or -1. */
int64_t sg_native_find_range(const sg_env *env, uint64_t lo, uint64_t hi);
/* The out-of-line path of a vector memory instruction: lane i (mask bit i) accesses
   `elements` elements of `esize` bytes at addresses[i] + e * stride. With SG_ACCESS_CHECK
   every element is checked first (the first bad lane is returned, its first bad element's
   address in wave->fault_address, and nothing moves) and addresses become host addresses;
   LOAD reads data[e * lanes + i] (zero-extended), STORE writes its low bytes, lane by lane
   in lane order. Returns -1 when the access completed. A checked access leaves the range its
   first lane hit in *site (the access site's cache, which translated code tests inline). */
int32_t sg_native_access(const sg_env *env, sg_wave *wave, sg_range *site, uint64_t *addresses,
                         uint64_t mask, uint32_t lanes, uint32_t elements, uint32_t esize,
                         uint64_t stride, uint32_t *data, uint32_t flags);
/* sg_native_access's moves, without its checks: lane i (mask bit i) loads (SG_ACCESS_LOAD)
   or stores (SG_ACCESS_STORE) `elements` elements of `esize` bytes at host address
   addresses[i] + e * stride, in lane order, aligned dword pairs and quads each as one access,
   and lanes reading one address see one value. Translated code calls it for the gathers and
   scatters it has checked inline: LLVM expands them lane by lane on x86 without AVX-512
   (a quarter of a small kernel's machine code). Returns -1, as
   sg_native_access does when an access completed. */
int32_t sg_native_move(const uint64_t *addresses, uint64_t mask, uint32_t lanes, uint32_t elements,
                       uint32_t esize, uint64_t stride, uint32_t *data, uint32_t flags);
/* The host atomic under the interpreter's atomics in callouts (core/isa/native/host_atomics.py):
   for each i, a compare-and-swap of the `width`-byte (4 or 8) word at host address addresses[i]
   from expected[i] to desired[i], sequentially consistent as translated atomics are; swapped[i]
   is 1 where it stored, else 0 with expected[i] now the word it found. */
void sg_native_compare_exchange(const uint64_t *addresses, void *expected, const void *desired,
                                uint8_t *swapped, uint64_t count, uint32_t width);
