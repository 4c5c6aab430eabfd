/* What a client that probes for the amdgpu driver sees, as rocminfo probes before it calls
   HSA: /sys/module/amdgpu/initstate reads "live" (through fopen, as C++ streams read it, and
   through open), /dev/kfd opens read-write (through every open entry point) and `lsmod`
   lists amdgpu under `softgpu run`; other paths fail as before, with the C library's errno.
   argv[1]: "run" when started by `softgpu run`, "plain" otherwise. Built with
   _FORTIFY_SOURCE, as distributions build their packages. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static int opens(int fd) {
    if (fd >= 0) close(fd);
    return fd >= 0;
}

static const char INITSTATE[] = "/sys/module/amdgpu/initstate";

/* The first line of an open stream (closed here), or "" when there is none. */
static const char *first_line(FILE *file, char *line, size_t size) {
    line[0] = 0;
    if (file == NULL) return line;
    if (fgets(line, (int)size, file) == NULL) line[0] = 0;
    fclose(file);
    return line;
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

    /* The module's state, as rocminfo 7 reads it before anything else. */
    struct stat module;
    int live = under_run || stat(INITSTATE, &module) == 0;
    char line[64];
    CHECK_EQ_U64(strcmp(first_line(fopen(INITSTATE, "r"), line, sizeof line), "live\n") == 0, live);
    CHECK_EQ_U64(strcmp(first_line(fopen64(INITSTATE, "re"), line, sizeof line), "live\n") == 0, live);
    int state = open(INITSTATE, O_RDONLY | O_CLOEXEC);
    CHECK_EQ_U64(state >= 0, live);
    if (state >= 0) {
        char text[8] = "";
        CHECK(read(state, text, sizeof text) == 5 && memcmp(text, "live\n", 5) == 0);
        CHECK(write(state, "dead", 4) < 0);          /* read-only, as sysfs has it */
        close(state);
    } else {
        CHECK_EQ_U64(errno, ENOENT);
    }
    errno = 0;
    CHECK(fopen("/sys/module/amdgpu/no-such-file", "r") == NULL && errno == ENOENT);

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
    int listed = modules && fgets(line, sizeof line, modules) != NULL && strncmp(line, "amdgpu", 6) == 0;
    if (modules) pclose(modules);
    if (under_run) CHECK(listed);
    return check_report();
}
