/* _amdgpu_r_debug: ROCr's rendezvous with GPU debuggers (ROCdbgapi finds it by name in the
   runtime's dynamic symbols, as GDB finds glibc's _r_debug). Laid out as glibc's struct
   r_debug, filled in as ROCr fills it while it starts: version 11 (ROCr's, not glibc's 1),
   no code object in the map, r_brk the function a debugger breaks on to see the map change,
   the map consistent. SoftGPU's code objects are never GPU-loaded, so the map stays empty. */
#include "shim.h"

#include <link.h>
#include <stddef.h>

/* Not inlined nor removed: its address is what a debugger sets its breakpoint on. */
__attribute__((noinline, used, visibility("hidden"))) void sg_loader_debug_state(void) {
    __asm__ volatile("" ::: "memory");
}

__attribute__((visibility("default"))) struct r_debug _amdgpu_r_debug = {
    .r_version = 11,
    .r_map = NULL,
    .r_brk = (ElfW(Addr))&sg_loader_debug_state,
    .r_state = RT_CONSISTENT,
    .r_ldbase = 0,
};
