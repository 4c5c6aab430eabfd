/* Calls the exports named on the command line (every export that answers a status, given by
   the test) with zero arguments, as a client whose runtime could not start would go on calling
   them, and prints "NAME 0xSTATUS" for each: hsa_init first, as a client does. With the
   runtime unable to start, none may answer HSA_STATUS_SUCCESS (nor read its arguments). */
#include <dlfcn.h>
#include <hsa/hsa.h>
#include <stdint.h>
#include <stdio.h>

typedef hsa_status_t (*any_export)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                                   uint64_t, uint64_t);

int main(int argc, char **argv) {
    printf("hsa_init 0x%x\n", (unsigned)hsa_init());
    void *library = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_NOLOAD);
    for (int i = 1; i < argc; i++) {
        any_export call = (any_export)dlsym(library, argv[i]);
        if (!call) {
            printf("%s missing\n", argv[i]);
            continue;
        }
        /* Zero arguments: x86-64 passes these in registers and on the stack alike. */
        printf("%s 0x%x\n", argv[i], (unsigned)call(0, 0, 0, 0, 0, 0, 0, 0));
    }
    return 0;
}
