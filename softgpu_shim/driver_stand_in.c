/* libsoftgpu-driver.so: the kernel driver's device node, as `softgpu run` shows it to the
   programs it runs (LD_PRELOAD).

   Some ROCm clients check for the amdgpu driver before they call HSA at all: rocminfo opens
   /dev/kfd read-write and gives up when that fails. SoftGPU's runtime needs no driver, so on
   a machine without one an open of /dev/kfd that fails with ENOENT opens /dev/null instead,
   with the caller's flags. Holds two invariants:
   - every other open, and an open of a /dev/kfd that exists, is the C library's own;
   - errno and the result are the C library's whenever the stand-in does not apply. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>

static const char KFD_NODE[] = "/dev/kfd";
static const char STAND_IN[] = "/dev/null";

static int absent_kfd(const char *path, int fd) {
    return fd < 0 && errno == ENOENT && path != NULL && strcmp(path, KFD_NODE) == 0;
}

/* open's optional third argument: read only when the flags say it was passed. */
#define MODE_ARGUMENT(flags, mode)                                 \
    do {                                                           \
        if ((flags) & (O_CREAT | __O_TMPFILE)) {                   \
            va_list args_;                                         \
            va_start(args_, flags);                                \
            (mode) = va_arg(args_, mode_t);                        \
            va_end(args_);                                         \
        }                                                          \
    } while (0)

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);

/* The C library's definition of `name`: the next one after this library's. */
static void *next_definition(void **cache, const char *name) {
    if (*cache == NULL) *cache = dlsym(RTLD_NEXT, name);
    return *cache;
}

/* The C library's `name`, then the stand-in when it found no /dev/kfd. */
static int open_or_stand_in(void **real, const char *name, const char *path, int flags, mode_t mode) {
    open_fn next = (open_fn)next_definition(real, name);
    int fd = next(path, flags, mode);
    return absent_kfd(path, fd) ? next(STAND_IN, flags, mode) : fd;
}

static int openat_or_stand_in(void **real, const char *name, int dir, const char *path, int flags,
                              mode_t mode) {
    openat_fn next = (openat_fn)next_definition(real, name);
    int fd = next(dir, path, flags, mode);
    return absent_kfd(path, fd) ? next(dir, STAND_IN, flags, mode) : fd;
}

static int open2_or_stand_in(void **real, const char *name, const char *path, int flags) {
    open2_fn next = (open2_fn)next_definition(real, name);
    int fd = next(path, flags);
    return absent_kfd(path, fd) ? next(STAND_IN, flags) : fd;
}

int open(const char *path, int flags, ...) {
    static void *real;
    mode_t mode = 0;
    MODE_ARGUMENT(flags, mode);
    return open_or_stand_in(&real, "open", path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    static void *real;
    mode_t mode = 0;
    MODE_ARGUMENT(flags, mode);
    return open_or_stand_in(&real, "open64", path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...) {
    static void *real;
    mode_t mode = 0;
    MODE_ARGUMENT(flags, mode);
    return openat_or_stand_in(&real, "openat", dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...) {
    static void *real;
    mode_t mode = 0;
    MODE_ARGUMENT(flags, mode);
    return openat_or_stand_in(&real, "openat64", dir, path, flags, mode);
}

/* What _FORTIFY_SOURCE builds call for open(path, flags) with flags not known at compile time. */
int __open_2(const char *path, int flags) {
    static void *real;
    return open2_or_stand_in(&real, "__open_2", path, flags);
}

int __open64_2(const char *path, int flags) {
    static void *real;
    return open2_or_stand_in(&real, "__open64_2", path, flags);
}
