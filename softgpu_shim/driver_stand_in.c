/* libsoftgpu-driver.so: the kernel driver's files, as `softgpu run` shows them to the
   programs it runs (LD_PRELOAD).

   Some ROCm clients check for the amdgpu driver before they call HSA at all: rocminfo 7
   reads /sys/module/amdgpu/initstate (through a C++ stream, so fopen) and wants "live", then
   opens /dev/kfd read-write; both give up when that fails. SoftGPU's runtime needs no
   driver, so on a machine without one, an open of either path that fails with ENOENT opens
   a stand-in instead, with the caller's flags: /dev/null for /dev/kfd, a sealed in-memory
   file reading "live\n" for initstate. Holds two invariants:
   - every other open, and an open of a driver file that exists, is the C library's own;
   - errno and the result are the C library's whenever the stand-in does not apply. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char KFD_NODE[] = "/dev/kfd";
static const char KFD_STAND_IN[] = "/dev/null";
static const char INITSTATE[] = "/sys/module/amdgpu/initstate";
static const char INITSTATE_TEXT[] = "live\n";

static int absent(const char *path, int failed, const char *file) {
    return failed && errno == ENOENT && path != NULL && strcmp(path, file) == 0;
}

/* A read-only in-memory file holding the driver's "live" state, positioned at its start. */
static int initstate_file(int flags) {
    int fd = (int)syscall(SYS_memfd_create, "amdgpu-initstate",
                          (flags & O_CLOEXEC) ? MFD_CLOEXEC | MFD_ALLOW_SEALING : MFD_ALLOW_SEALING);
    if (fd < 0) {
        errno = ENOENT;               /* as if the stand-in did not apply */
        return -1;
    }
    if (write(fd, INITSTATE_TEXT, sizeof INITSTATE_TEXT - 1) != (ssize_t)(sizeof INITSTATE_TEXT - 1) ||
        lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        errno = ENOENT;
        return -1;
    }
    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL);
    return fd;
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

/* The stand-in descriptor for `path` after the C library failed with ENOENT, or -1 (errno
   kept) when `path` is no driver file SoftGPU stands in for. `reopen` opens a path as the
   caller's own entry point would. */
#define STAND_IN(path, fd, flags, reopen)                                           \
    (absent((path), (fd) < 0, KFD_NODE)    ? (reopen)                               \
     : absent((path), (fd) < 0, INITSTATE) ? initstate_file(flags)                  \
                                           : (fd))

/* The C library's `name`, then the stand-in when it found no driver file. */
static int open_or_stand_in(void **real, const char *name, const char *path, int flags, mode_t mode) {
    open_fn next = (open_fn)next_definition(real, name);
    int fd = next(path, flags, mode);
    return STAND_IN(path, fd, flags, next(KFD_STAND_IN, flags, mode));
}

static int openat_or_stand_in(void **real, const char *name, int dir, const char *path, int flags,
                              mode_t mode) {
    openat_fn next = (openat_fn)next_definition(real, name);
    int fd = next(dir, path, flags, mode);
    return STAND_IN(path, fd, flags, next(dir, KFD_STAND_IN, flags, mode));
}

static int open2_or_stand_in(void **real, const char *name, const char *path, int flags) {
    open2_fn next = (open2_fn)next_definition(real, name);
    int fd = next(path, flags);
    return STAND_IN(path, fd, flags, next(KFD_STAND_IN, flags));
}

typedef FILE *(*fopen_fn)(const char *, const char *);

/* fopen: the stdio (and C++ stream) way to read the driver's files. */
static FILE *fopen_or_stand_in(void **real, const char *name, const char *path, const char *mode) {
    fopen_fn next = (fopen_fn)next_definition(real, name);
    FILE *file = next(path, mode);
    if (absent(path, file == NULL, KFD_NODE)) return next(KFD_STAND_IN, mode);
    if (!absent(path, file == NULL, INITSTATE)) return file;
    int fd = initstate_file(strchr(mode, 'e') ? O_CLOEXEC : 0);
    if (fd < 0) return NULL;
    file = fdopen(fd, "r");
    if (file == NULL) close(fd);
    return file;
}

FILE *fopen(const char *path, const char *mode) {
    static void *real;
    return fopen_or_stand_in(&real, "fopen", path, mode);
}

FILE *fopen64(const char *path, const char *mode) {
    static void *real;
    return fopen_or_stand_in(&real, "fopen64", path, mode);
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
