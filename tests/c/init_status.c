/* Prints hsa_init's status and hsa_status_string's, for runtime start-up tests. */
#include <hsa/hsa.h>
#include <stdio.h>

int main(void) {
    const char *text = NULL;
    hsa_status_t init = hsa_init();
    hsa_status_t string = hsa_status_string(HSA_STATUS_ERROR, &text);
    printf("hsa_init=0x%x hsa_status_string=0x%x\n", (unsigned)init, (unsigned)string);
    return 0;
}
