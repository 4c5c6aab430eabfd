/* What a client that probes for the amdgpu driver sees, as rocminfo probes before it calls
   HSA: /dev/kfd opens read-write (through every open entry point) and `lsmod` lists amdgpu
   under `softgpu run`; other paths fail as before, with the C library's errno.
   argv[1]: "run" when started by `softgpu run`, "plain" otherwise. Built with
   _FORTIFY_SOURCE, as distributions build their packages. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static int opens(int fd) {
    if (fd >= 0) close(fd);
    return fd >= 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    int under_run = strcmp(argv[1], "run") == 0;
    struct stat node;
    int driver_installed = stat("/dev/kfd", &node) == 0;
    int want = under_run || driver_installed;

    CHECK_EQ_U64(opens(open("/dev/kfd", O_RDWR)), want);
    CHECK_EQ_U64(opens(open64("/dev/kfd", O_RDWR | O_CLOEXEC)), want);
    CHECK_EQ_U64(opens(openat(AT_FDCWD, "/dev/kfd", O_RDWR)), want);
    CHECK_EQ_U64(opens(openat64(AT_FDCWD, "/dev/kfd", O_RDWR)), want);
    /* Flags unknown at compile time: _FORTIFY_SOURCE builds call __open_2 / __open64_2. */
    volatile int read_write = O_RDWR;
    CHECK_EQ_U64(opens(open("/dev/kfd", read_write)), want);
    CHECK_EQ_U64(opens(open64("/dev/kfd", read_write)), want);

    /* Anything else is the C library's own answer. */
    errno = 0;
    CHECK_EQ_U64(open("/dev/kfd-not-here", O_RDWR), (uint64_t)-1);
    CHECK_EQ_U64(errno, ENOENT);
    errno = 0;
    CHECK_EQ_U64(openat(AT_FDCWD, "/nonexistent/dev/kfd", O_RDONLY), (uint64_t)-1);
    CHECK_EQ_U64(errno, ENOENT);
    int fd = open("/dev/null", O_WRONLY);
    CHECK(fd >= 0 && write(fd, "x", 1) == 1);
    close(fd);

    FILE *modules = popen("lsmod | grep amdgpu", "r");
    char line[128] = "";
    int listed = modules && fgets(line, sizeof line, modules) != NULL && strncmp(line, "amdgpu", 6) == 0;
    if (modules) pclose(modules);
    if (under_run) CHECK(listed);
    return check_report();
}
