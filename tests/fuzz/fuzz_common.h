/* Shared by the fuzz harnesses: input decoding, handle choice, and the invariants
   every call must keep (a status from the HSA enum; no crash, no hang). */
#ifndef SOFTGPU_FUZZ_COMMON_H
#define SOFTGPU_FUZZ_COMMON_H
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {
    const uint8_t *data;
    size_t size, pos;
} input_t;

static inline uint8_t take_u8(input_t *in) { return in->pos < in->size ? in->data[in->pos++] : 0; }

static inline uint64_t take_u64(input_t *in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)take_u8(in) << (8 * i);
    return v;
}

static inline uint32_t take_u32(input_t *in) { return (uint32_t)take_u64(in); }
static inline int more(const input_t *in) { return in->pos < in->size; }

/* An invariant broke: report like a crash so libFuzzer keeps the reproducer. */
#define FUZZ_ASSERT(cond, ...)                                                        \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "invariant broken at %s:%d: %s: ", __FILE__, __LINE__, #cond);\
            fprintf(stderr, __VA_ARGS__);                                             \
            fputc('\n', stderr);                                                      \
            abort();                                                                  \
        }                                                                             \
    } while (0)

static inline int is_hsa_status(hsa_status_t s) {
    if (s == HSA_STATUS_SUCCESS || s == HSA_STATUS_INFO_BREAK) return 1;
    if (s >= HSA_STATUS_ERROR && s <= HSA_STATUS_ERROR_FATAL) return 1;
    if (s >= (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL && s <= (hsa_status_t)44) return 1;
    if (s >= (hsa_status_t)0x2000 && s <= (hsa_status_t)0x2006) return 1; /* finalizer */
    if (s >= (hsa_status_t)0x3000 && s <= (hsa_status_t)0x3003) return 1; /* images */
    return 0;
}

/* libFuzzer sees only the harness's own edges (the runtime behind the ABI is Python), so
   each (call site, status) pair is a feature of its own: an input that makes a call answer
   a status it never answered there before is kept and mutated further. */
__attribute__((section("__libfuzzer_extra_counters"), used)) static uint8_t status_features[1 << 14];

static inline void count_status(unsigned site, hsa_status_t s) {
    status_features[(site * 2654435761u ^ (unsigned)s * 40503u) % sizeof status_features]++;
}

#define CHECKED(call)                                                                 \
    ({                                                                                \
        hsa_status_t checked_s_ = (call);                                             \
        FUZZ_ASSERT(is_hsa_status(checked_s_), "%s returned 0x%x", #call,              \
                    (unsigned)checked_s_);                                            \
        count_status(__LINE__, checked_s_);                                           \
        checked_s_;                                                                   \
    })

/* A handle: live, stale (destroyed), forged (live with bits flipped) or garbage. */
static inline uint64_t choose_handle(input_t *in, const uint64_t *live, int n_live, const uint64_t *stale,
                              int n_stale) {
    uint8_t how = take_u8(in);
    switch (how % 5) {
    case 0:
    case 1:
        if (n_live) return live[take_u8(in) % n_live];
        break;
    case 2:
        if (n_stale) return stale[take_u8(in) % n_stale];
        break;
    case 3:
        if (n_live) return live[take_u8(in) % n_live] ^ ((uint64_t)1 << (take_u8(in) % 64));
        break;
    }
    return take_u64(in);
}

/* A page no access reaches: every pointer into it faults as a dangling one does (PROT_NONE
   rather than unmapped, so that no later mmap can bring the address back to life). */
static inline void *dangling_page(void) {
    static void *page;
    if (!page) page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return page;
}

/* An out-pointer: a valid buffer, NULL, misaligned, read-only, unmapped or dangling. */
static inline void *choose_out(input_t *in, uint8_t *buffer, void *readonly_page) {
    switch (take_u8(in) % 7) {
    case 0: return NULL;
    case 1: return buffer + 1;
    case 2: return readonly_page;
    case 3: return (void *)(uintptr_t)0x10; /* unmapped */
    case 4: return (uint8_t *)dangling_page() + 8;
    default: return buffer;
    }
}

#endif
