// Streams, events and ordering as HIP programs use them: work on several streams,
// cross-stream dependencies through hipStreamWaitEvent, event queries before and after
// completion, many kernels in flight drained by hipDeviceSynchronize, host threads each
// driving their own stream, streams with priorities and CU masks, stream callbacks,
// stream memory operations (wait/write value), graphs captured from a stream, dynamic
// shared memory, and hipMemGetInfo. Prints "HIP STREAMS OK" when every check holds.
#include "hip_check.h"

#include <hip/hip_ext.h>

#include <thread>
#include <vector>

// Spins until the host sets *flag (pinned host memory), then writes its mark: lets the
// test hold a stream busy for exactly as long as it needs to observe "not ready".
__global__ void wait_for_host(const int *flag, int *out, int mark) {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) == 0) {
    }
    *out = mark;
}

// Reads what the producer wrote: only correct if it ran after the producer finished.
__global__ void scale_copy(const int *in, int *out, int factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * factor;
}

__global__ void fill_after(const int *gate, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = *gate + i;
}

__global__ void add_one(int *counter) { atomicAdd(counter, 1); }

__global__ void add_value(int *data, int value) { data[threadIdx.x] += value; }

// Reverses each block's slice through dynamically sized shared memory.
__global__ void reverse_blocks(const int *in, int *out) {
    extern __shared__ int tile[];
    int base = blockIdx.x * blockDim.x;
    tile[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

static void event_query_tracks_completion() {
    int *flag, *dout;
    HIP_CHECK(hipHostMalloc(&flag, sizeof(int), hipHostMallocDefault));
    *flag = 0;
    HIP_CHECK(hipMalloc(&dout, sizeof(int)));
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    hipEvent_t done;
    HIP_CHECK(hipEventCreate(&done));
    hipLaunchKernelGGL(wait_for_host, dim3(1), dim3(1), 0, stream, flag, dout, 77);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipEventRecord(done, stream));
    HIP_EXPECT_ERROR(hipEventQuery(done), hipErrorNotReady);
    HIP_EXPECT_ERROR(hipStreamQuery(stream), hipErrorNotReady);
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    HIP_CHECK(hipEventSynchronize(done));
    HIP_EXPECT_ERROR(hipEventQuery(done), hipSuccess);
    HIP_EXPECT_ERROR(hipStreamQuery(stream), hipSuccess);
    int out = 0;
    HIP_CHECK(hipMemcpy(&out, dout, sizeof(int), hipMemcpyDeviceToHost));
    EXPECT(out == 77);
    HIP_CHECK(hipEventDestroy(done));
    HIP_CHECK(hipStreamDestroy(stream));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipHostFree(flag));
}

// Stream b must not start its consumer before stream a's producer is done: the producer
// is held by the host until after the consumer was enqueued.
static void stream_wait_event_orders_streams() {
    const int n = 512;
    int *flag, *gate, *dout;
    HIP_CHECK(hipHostMalloc(&flag, sizeof(int), hipHostMallocDefault));
    *flag = 0;
    HIP_CHECK(hipMalloc(&gate, sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
    HIP_CHECK(hipMemset(gate, 0, sizeof(int)));
    // hipMemset may return before the fill ran, and it runs on the null stream, which the
    // non-blocking streams below do not wait for: unordered, the fill could land after the
    // producer's write and the consumer would read 0.
    HIP_CHECK(hipDeviceSynchronize());
    hipStream_t a, b;
    HIP_CHECK(hipStreamCreateWithFlags(&a, hipStreamNonBlocking));
    HIP_CHECK(hipStreamCreateWithFlags(&b, hipStreamNonBlocking));
    hipEvent_t produced;
    HIP_CHECK(hipEventCreateWithFlags(&produced, hipEventDisableTiming));
    hipLaunchKernelGGL(wait_for_host, dim3(1), dim3(1), 0, a, flag, gate, 1000);
    HIP_CHECK(hipEventRecord(produced, a));
    HIP_CHECK(hipStreamWaitEvent(b, produced, 0));
    hipLaunchKernelGGL(fill_after, dim3(n / 128), dim3(128), 0, b, gate, dout, n);
    HIP_CHECK(hipGetLastError());
    HIP_EXPECT_ERROR(hipStreamQuery(b), hipErrorNotReady);
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    HIP_CHECK(hipStreamSynchronize(b));
    std::vector<int> out(n);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += out[i] != 1000 + i;
    EXPECT(wrong == 0);
    HIP_CHECK(hipEventDestroy(produced));
    HIP_CHECK(hipStreamDestroy(a));
    HIP_CHECK(hipStreamDestroy(b));
    HIP_CHECK(hipFree(gate));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipHostFree(flag));
}

// A pipeline over several streams: each stream copies in, scales, copies out its own
// slice; results come back only after hipDeviceSynchronize.
static void streams_run_independent_pipelines() {
    const int streams = 4, n = 1024;
    std::vector<int> in(streams * n), out(streams * n, -1);
    for (int i = 0; i < streams * n; i++) in[i] = i * 3 - 7;
    int *din, *dout;
    HIP_CHECK(hipMalloc(&din, in.size() * sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, out.size() * sizeof(int)));
    hipStream_t s[streams];
    for (int k = 0; k < streams; k++) HIP_CHECK(hipStreamCreate(&s[k]));
    for (int k = 0; k < streams; k++) {
        HIP_CHECK(hipMemcpyAsync(din + k * n, in.data() + k * n, n * sizeof(int),
                                 hipMemcpyHostToDevice, s[k]));
        hipLaunchKernelGGL(scale_copy, dim3(n / 256), dim3(256), 0, s[k], din + k * n,
                           dout + k * n, k + 2, n);
        HIP_CHECK(hipMemcpyAsync(out.data() + k * n, dout + k * n, n * sizeof(int),
                                 hipMemcpyDeviceToHost, s[k]));
    }
    HIP_CHECK(hipDeviceSynchronize());
    int wrong = 0;
    for (int k = 0; k < streams; k++)
        for (int i = 0; i < n; i++) wrong += out[k * n + i] != in[k * n + i] * (k + 2);
    EXPECT(wrong == 0);
    for (int k = 0; k < streams; k++) HIP_CHECK(hipStreamDestroy(s[k]));
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
}

// Many kernels in flight on the null stream and two created ones, none waited for
// individually: hipDeviceSynchronize must drain them all.
static void device_synchronize_drains_many_kernels() {
    const int per_stream = 40;
    int *counters;
    HIP_CHECK(hipMalloc(&counters, 3 * sizeof(int)));
    HIP_CHECK(hipMemset(counters, 0, 3 * sizeof(int)));
    hipStream_t s1, s2;
    HIP_CHECK(hipStreamCreate(&s1));
    HIP_CHECK(hipStreamCreate(&s2));
    for (int i = 0; i < per_stream; i++) {
        hipLaunchKernelGGL(add_one, dim3(2), dim3(32), 0, 0, counters);
        hipLaunchKernelGGL(add_one, dim3(1), dim3(64), 0, s1, counters + 1);
        hipLaunchKernelGGL(add_one, dim3(4), dim3(16), 0, s2, counters + 2);
    }
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());
    int got[3];
    HIP_CHECK(hipMemcpy(got, counters, sizeof(got), hipMemcpyDeviceToHost));
    EXPECT(got[0] == per_stream * 64);
    EXPECT(got[1] == per_stream * 64);
    EXPECT(got[2] == per_stream * 64);
    HIP_CHECK(hipStreamDestroy(s1));
    HIP_CHECK(hipStreamDestroy(s2));
    HIP_CHECK(hipFree(counters));
}

// Host threads each create a stream and launch into it at the same time, as servers do.
static void host_threads_drive_their_own_streams() {
    const int threads = 4, launches = 10;
    int *counters;
    HIP_CHECK(hipMalloc(&counters, threads * 64 * sizeof(int)));
    HIP_CHECK(hipMemset(counters, 0, threads * 64 * sizeof(int)));
    std::vector<std::thread> workers;
    std::vector<hipError_t> results(threads, hipSuccess);
    for (int t = 0; t < threads; t++)
        workers.emplace_back([&, t] {
            hipStream_t stream;
            hipError_t e = hipStreamCreate(&stream);
            for (int i = 0; i < launches && e == hipSuccess; i++) {
                hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, stream, counters + 64 * t, t + 1);
                e = hipGetLastError();
            }
            if (e == hipSuccess) e = hipStreamSynchronize(stream);
            if (e == hipSuccess) e = hipStreamDestroy(stream);
            results[t] = e;
        });
    for (auto &w : workers) w.join();
    for (hipError_t e : results) EXPECT(e == hipSuccess);
    std::vector<int> out(threads * 64);
    HIP_CHECK(hipMemcpy(out.data(), counters, out.size() * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int t = 0; t < threads; t++)
        for (int i = 0; i < 64; i++) wrong += out[64 * t + i] != launches * (t + 1);
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(counters));
}

// Priority and CU-mask streams (hsa_amd_queue_set_priority, hsa_amd_queue_cu_set_mask)
// run their kernels like any other; hipMemcpyDefault infers the direction.
static void priority_and_cu_mask_streams() {
    int least = 0, greatest = 0;
    HIP_CHECK(hipDeviceGetStreamPriorityRange(&least, &greatest));
    hipStream_t urgent, masked;
    HIP_CHECK(hipStreamCreateWithPriority(&urgent, hipStreamDefault, greatest));
    int priority = least;
    HIP_CHECK(hipStreamGetPriority(urgent, &priority));
    EXPECT(priority == greatest);
    const uint32_t cu_mask[1] = {0x5};
    HIP_CHECK(hipExtStreamCreateWithCUMask(&masked, 1, cu_mask));
    int *data;
    HIP_CHECK(hipMalloc(&data, 64 * sizeof(int)));
    HIP_CHECK(hipMemset(data, 0, 64 * sizeof(int)));
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, urgent, data, 4);
    HIP_CHECK(hipStreamSynchronize(urgent));
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, masked, data, 30);
    HIP_CHECK(hipStreamSynchronize(masked));
    int out[64];
    HIP_CHECK(hipMemcpy(out, data, sizeof(out), hipMemcpyDefault));
    EXPECT(out[0] == 34 && out[63] == 34);
    HIP_CHECK(hipStreamDestroy(urgent));
    HIP_CHECK(hipStreamDestroy(masked));
    HIP_CHECK(hipFree(data));
}

struct CallbackSeen {
    const int *pinned;
    int value;
    int calls;
};

static void record_value(hipStream_t, hipError_t status, void *user) {
    auto seen = static_cast<CallbackSeen *>(user);
    seen->value = status == hipSuccess ? *seen->pinned : -1;
    seen->calls++;
}

// A callback runs after the work before it in its stream, and before the work after it.
static void stream_callbacks_follow_stream_order() {
    int *pinned;
    HIP_CHECK(hipHostMalloc(&pinned, 64 * sizeof(int), hipHostMallocDefault));
    for (int i = 0; i < 64; i++) pinned[i] = 1;
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    CallbackSeen seen = {pinned, 0, 0};
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, stream, pinned, 10);
    HIP_CHECK(hipStreamAddCallback(stream, record_value, &seen, 0));
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, stream, pinned, 100);
    HIP_CHECK(hipStreamSynchronize(stream));
    EXPECT(seen.calls == 1);
    EXPECT(seen.value == 11);
    EXPECT(pinned[0] == 111 && pinned[63] == 111);
    HIP_CHECK(hipStreamDestroy(stream));
    HIP_CHECK(hipHostFree(pinned));
}

// hipStreamWaitValue32 holds a stream until the host writes the value;
// hipStreamWriteValue32 writes one in stream order.
static void stream_memory_operations() {
    int *flags, *dout;
    HIP_CHECK(hipHostMalloc(&flags, 2 * sizeof(int), hipHostMallocDefault));
    flags[0] = flags[1] = 0;
    HIP_CHECK(hipMalloc(&dout, 64 * sizeof(int)));
    HIP_CHECK(hipMemset(dout, 0, 64 * sizeof(int)));
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    HIP_CHECK(hipStreamWaitValue32(stream, flags, 5, hipStreamWaitValueEq, 0xFFFFFFFF));
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, stream, dout, 3);
    HIP_CHECK(hipStreamWriteValue32(stream, flags + 1, 9, 0));
    HIP_EXPECT_ERROR(hipStreamQuery(stream), hipErrorNotReady);
    EXPECT(__atomic_load_n(flags + 1, __ATOMIC_ACQUIRE) == 0);
    __atomic_store_n(flags, 5, __ATOMIC_RELEASE);
    HIP_CHECK(hipStreamSynchronize(stream));
    EXPECT(flags[1] == 9);
    int out[64];
    HIP_CHECK(hipMemcpy(out, dout, sizeof(out), hipMemcpyDeviceToHost));
    EXPECT(out[0] == 3 && out[63] == 3);
    HIP_CHECK(hipStreamDestroy(stream));
    HIP_CHECK(hipFree(dout));
    HIP_CHECK(hipHostFree(flags));
}

// Work captured from a stream into a graph replays, in order, each time it is launched.
static void graphs_replay_captured_work() {
    int *data;
    HIP_CHECK(hipMalloc(&data, 64 * sizeof(int)));
    HIP_CHECK(hipMemset(data, 0, 64 * sizeof(int)));
    hipStream_t stream;
    HIP_CHECK(hipStreamCreate(&stream));
    hipGraph_t graph;
    hipGraphExec_t exec;
    HIP_CHECK(hipStreamBeginCapture(stream, hipStreamCaptureModeGlobal));
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, stream, data, 1);
    hipLaunchKernelGGL(add_value, dim3(1), dim3(64), 0, stream, data, 20);
    HIP_CHECK(hipStreamEndCapture(stream, &graph));
    size_t nodes = 0;
    HIP_CHECK(hipGraphGetNodes(graph, nullptr, &nodes));
    EXPECT(nodes == 2);
    HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
    for (int i = 0; i < 3; i++) HIP_CHECK(hipGraphLaunch(exec, stream));
    HIP_CHECK(hipStreamSynchronize(stream));
    int out[64];
    HIP_CHECK(hipMemcpy(out, data, sizeof(out), hipMemcpyDeviceToHost));
    EXPECT(out[0] == 63 && out[63] == 63);
    HIP_CHECK(hipGraphExecDestroy(exec));
    HIP_CHECK(hipGraphDestroy(graph));
    HIP_CHECK(hipStreamDestroy(stream));
    HIP_CHECK(hipFree(data));
}

static void dynamic_shared_memory() {
    const int block = 192, blocks = 5, n = block * blocks;
    std::vector<int> in(n), out(n);
    for (int i = 0; i < n; i++) in[i] = i * i;
    int *din, *dout;
    HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
    HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
    hipLaunchKernelGGL(reverse_blocks, dim3(blocks), dim3(block), block * sizeof(int), 0,
                       din, dout);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
    int wrong = 0;
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < block; t++) wrong += out[b * block + t] != in[b * block + block - 1 - t];
    EXPECT(wrong == 0);
    HIP_CHECK(hipFree(din));
    HIP_CHECK(hipFree(dout));
}

static void mem_get_info_reports_device_memory() {
    size_t free_before = 0, total = 0;
    HIP_CHECK(hipMemGetInfo(&free_before, &total));
    hipDeviceProp_t props;
    HIP_CHECK(hipGetDeviceProperties(&props, 0));
    EXPECT(total == props.totalGlobalMem);
    EXPECT(free_before > 0 && free_before <= total);
    const size_t big = 64 << 20;
    void *p;
    HIP_CHECK(hipMalloc(&p, big));
    size_t free_during = 0;
    HIP_CHECK(hipMemGetInfo(&free_during, &total));
    EXPECT(free_during + big <= free_before);
    HIP_CHECK(hipFree(p));
}

int main() {
    event_query_tracks_completion();
    stream_wait_event_orders_streams();
    streams_run_independent_pipelines();
    device_synchronize_drains_many_kernels();
    host_threads_drive_their_own_streams();
    priority_and_cu_mask_streams();
    stream_callbacks_follow_stream_order();
    stream_memory_operations();
    graphs_replay_captured_work();
    dynamic_shared_memory();
    mem_get_info_reports_device_memory();
    return hip_report("HIP STREAMS");
}
