// One kernel per kind of fault, for the fault report (issue 23, D12): every kind must be
// reported the same way (kernel, PC, instruction, wave, lane, address).
#include <hip/hip_runtime.h>

// A memory fault: loads through whatever pointer it is given.
extern "C" __global__ void load_through(const unsigned *where, unsigned *out) {
    out[threadIdx.x] = where[threadIdx.x];
}

// A trap.
extern "C" __global__ void trap_now(const unsigned *unused, unsigned *out) {
    out[0] = 1;
    __builtin_trap();
}

// An illegal instruction: calls "code" at a data address, where the program counter leaves
// the code object.
extern "C" __global__ void call_through(const unsigned *where, unsigned *out) {
    reinterpret_cast<void (*)(unsigned *)>(const_cast<unsigned *>(where))(out);
}
