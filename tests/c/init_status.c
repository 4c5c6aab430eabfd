/* Prints the statuses of hsa_init, hsa_status_string and of a code object reader's
   creation (the first call that needs the loader), for runtime start-up tests. */
#include <hsa/hsa.h>
#include <stdio.h>

int main(void) {
    const char *text = NULL;
    static const char bytes[16];
    hsa_code_object_reader_t reader;
    hsa_status_t init = hsa_init();
    hsa_status_t string = hsa_status_string(HSA_STATUS_ERROR, &text);
    hsa_status_t load = hsa_code_object_reader_create_from_memory(bytes, sizeof bytes, &reader);
    printf("hsa_init=0x%x hsa_status_string=0x%x reader=0x%x\n", (unsigned)init, (unsigned)string,
           (unsigned)load);
    return 0;
}
