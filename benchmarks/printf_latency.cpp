// Device printf latency: from the moment a kernel starts (it raises a flag in pinned host
// memory, seen by this process) to the moment its printf line arrives on stdout (a pipe
// this process reads). Reference in the same run: the same line printed by host code.
// Prints "device MIN MEDIAN" and "host MIN MEDIAN" in microseconds.
#include <hip/hip_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

static double now_us() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int pipe_read_end;
static std::atomic<int> lines_seen{0};
static std::atomic<double> last_arrival{0};

static void *read_lines(void *) {
    char buffer[4096];
    ssize_t n;
    while ((n = read(pipe_read_end, buffer, sizeof buffer)) > 0) {
        double t = now_us();
        int newlines = (int)std::count(buffer, buffer + n, '\n');
        last_arrival = t;
        lines_seen += newlines;
    }
    return nullptr;
}

__global__ void say(volatile int *started, int i) {
    *started = 1;
    __threadfence_system();
    printf("line %d\n", i);
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

static void wait_lines(int count) {
    while (lines_seen < count) sched_yield();
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 50;
    int saved_stdout = dup(1);
    int fds[2];
    if (pipe(fds) != 0) return 1;
    pipe_read_end = fds[0];
    dup2(fds[1], 1);
    setvbuf(stdout, nullptr, _IONBF, 0);
    pthread_t reader;
    pthread_create(&reader, nullptr, read_lines, nullptr);

    volatile int *started;
    if (hipHostMalloc((void **)&started, sizeof(int), hipHostMallocMapped) != hipSuccess) return 1;
    std::vector<double> device, host;
    int expected = 0;
    for (int i = -1; i < rounds; i++) {  // round -1 warms up: loads the code, decodes the kernel
        *started = 0;
        hipLaunchKernelGGL(say, dim3(1), dim3(1), 0, 0, started, i);
        while (!*started) sched_yield();
        double start = now_us();
        wait_lines(++expected);
        if (i >= 0) device.push_back(last_arrival - start);
        if (hipDeviceSynchronize() != hipSuccess) return 1;
    }
    for (int i = 0; i < rounds; i++) {
        double start = now_us();
        printf("host line %d\n", i);
        wait_lines(++expected);
        host.push_back(last_arrival - start);
    }
    dup2(saved_stdout, 1);
    fprintf(stdout, "device %.1f %.1f\nhost %.1f %.1f\n", *std::min_element(device.begin(), device.end()),
            median(device), *std::min_element(host.begin(), host.end()), median(host));
    fflush(stdout);
    hipHostFree((void *)started);
    _exit(0);
}
