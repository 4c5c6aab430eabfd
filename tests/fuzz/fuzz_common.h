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

typedef struct {
    const uint8_t *data;
    size_t size, pos;
} input_t;

static uint8_t take_u8(input_t *in) { return in->pos < in->size ? in->data[in->pos++] : 0; }

static uint64_t take_u64(input_t *in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)take_u8(in) << (8 * i);
    return v;
}

static uint32_t take_u32(input_t *in) { return (uint32_t)take_u64(in); }
static int more(const input_t *in) { return in->pos < in->size; }

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

static int is_hsa_status(hsa_status_t s) {
    if (s == HSA_STATUS_SUCCESS || s == HSA_STATUS_INFO_BREAK) return 1;
    if (s >= HSA_STATUS_ERROR && s <= HSA_STATUS_ERROR_FATAL) return 1;
    if (s >= (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL && s <= (hsa_status_t)44) return 1;
    if (s >= (hsa_status_t)0x2000 && s <= (hsa_status_t)0x2006) return 1; /* finalizer */
    if (s >= (hsa_status_t)0x3000 && s <= (hsa_status_t)0x3003) return 1; /* images */
    return 0;
}

#define CHECKED(call)                                                                 \
    ({                                                                                \
        hsa_status_t checked_s_ = (call);                                             \
        FUZZ_ASSERT(is_hsa_status(checked_s_), "%s returned 0x%x", #call,              \
                    (unsigned)checked_s_);                                            \
        checked_s_;                                                                   \
    })

/* A handle: live, stale (destroyed), forged (live with bits flipped) or garbage. */
static uint64_t choose_handle(input_t *in, const uint64_t *live, int n_live, const uint64_t *stale,
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

/* An out-pointer: a valid buffer, NULL, misaligned, or into a read-only page. */
static void *choose_out(input_t *in, uint8_t *buffer, void *readonly_page) {
    switch (take_u8(in) % 6) {
    case 0: return NULL;
    case 1: return buffer + 1;
    case 2: return readonly_page;
    case 3: return (void *)(uintptr_t)0x10; /* unmapped */
    default: return buffer;
    }
}
#endif
