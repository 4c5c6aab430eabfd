/* hsa_system_get_info and the extension queries, as a client sees them (ROCr 5.2's answers). */
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <string.h>
#include <time.h>

#include "check.h"

static uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bit(const uint8_t *mask, unsigned b) { return (mask[b / 8] >> (b % 8)) & 1; }

static void system_attributes(void) {
    uint16_t major = 0, minor = 0;
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor));
    CHECK_EQ_U64(major, 1);
    CHECK_EQ_U64(minor, 1);

    uint64_t before = monotonic_ns(), ts = 0, after;
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &ts));
    after = monotonic_ns();
    CHECK(before <= ts && ts <= after);   /* nanoseconds of CLOCK_MONOTONIC */

    uint64_t freq = 0, max_wait = 0;
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq));
    CHECK_EQ_U64(freq, 1000000000u);
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT, &max_wait));
    CHECK_EQ_U64(max_wait, UINT64_MAX);

    hsa_endianness_t endian = HSA_ENDIANNESS_BIG;
    hsa_machine_model_t model = HSA_MACHINE_MODEL_SMALL;
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_ENDIANNESS, &endian));
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_MACHINE_MODEL, &model));
    CHECK_EQ_U64(endian, HSA_ENDIANNESS_LITTLE);
    CHECK_EQ_U64(model, HSA_MACHINE_MODEL_LARGE);

    uint8_t ext[128];
    memset(ext, 0xEE, sizeof ext);
    CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, ext));
    CHECK(bit(ext, HSA_EXTENSION_IMAGES));
    CHECK(bit(ext, HSA_EXTENSION_AMD_PROFILER));
    CHECK(!bit(ext, HSA_EXTENSION_FINALIZER));
    CHECK(!bit(ext, HSA_EXTENSION_AMD_AQLPROFILE));
    int set = 0;
    for (unsigned b = 0; b < 128 * 8; b++) set += bit(ext, b);
    CHECK_EQ_U64(set, 2);

    const char *build = NULL;
    CHECK_OK(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_BUILD_VERSION, &build));
    CHECK(build != NULL && strstr(build, "SoftGPU") != NULL);
    bool svm = true, svm_default = true;
    CHECK_OK(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED, &svm));
    CHECK_OK(hsa_system_get_info(HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT, &svm_default));
    CHECK(!svm);
    CHECK(!svm_default);

    /* HSA_AMD_SYSTEM_INFO_* of later headers (0x203-0x208), as a client built against them
       asks: dma-buf export (0x204) and the virtual memory API (0x205) exist, mwaitx (0x203)
       and XNACK (0x206) do not. */
    for (int attribute = 0x203; attribute <= 0x206; attribute++) {
        bool feature = attribute == 0x203 || attribute == 0x206;
        CHECK_OK(hsa_system_get_info((hsa_system_info_t)attribute, &feature));
        CHECK_EQ_U64(feature, attribute == 0x204 || attribute == 0x205);
    }
    uint16_t ext_major = 0, ext_minor = 7;
    CHECK_OK(hsa_system_get_info((hsa_system_info_t)0x207, &ext_major));
    CHECK_OK(hsa_system_get_info((hsa_system_info_t)0x208, &ext_minor));
    /* The newest ROCr's AMD interface (1.11; the 5.2.3 header says 1.0). */
    CHECK_EQ_U64(ext_major, 1);
    CHECK_EQ_U64(ext_minor, 11);

    CHECK_STATUS(hsa_system_get_info((hsa_system_info_t)8, &ts), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_system_get_info((hsa_system_info_t)0x209, &ts), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_system_get_info((hsa_system_info_t)99, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void extension_names(void) {
    const char *name = NULL;
    CHECK_OK(hsa_extension_get_name(HSA_EXTENSION_IMAGES, &name));
    CHECK(name && strcmp(name, "HSA_EXTENSION_IMAGES") == 0);
    CHECK_OK(hsa_extension_get_name(HSA_EXTENSION_FINALIZER, &name));
    CHECK(name && strcmp(name, "HSA_EXTENSION_FINALIZER") == 0);
    CHECK_OK(hsa_extension_get_name(HSA_EXTENSION_AMD_LOADER, &name));
    CHECK(name && strcmp(name, "HSA_EXTENSION_AMD_LOADER") == 0);
    CHECK_OK(hsa_extension_get_name(HSA_EXTENSION_AMD_AQLPROFILE, &name));
    CHECK(name && strcmp(name, "HSA_EXTENSION_AMD_AQLPROFILE") == 0);
    CHECK_OK(hsa_extension_get_name(HSA_EXTENSION_PROFILING_EVENTS, &name));
    CHECK(name && strcmp(name, "HSA_EXTENSION_PROFILING_EVENTS") == 0);
    CHECK_STATUS(hsa_extension_get_name(4, &name), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK(name && strcmp(name, "HSA_EXTENSION_INVALID") == 0);
    CHECK_STATUS(hsa_extension_get_name(HSA_EXTENSION_IMAGES, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void extension_support(void) {
    bool yes = false;
    CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, &yes));
    CHECK(yes);
    CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, 0, &yes));
    CHECK(yes);
    CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 1, &yes));
    CHECK(!yes);
    CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 2, 0, &yes));
    CHECK(!yes);
    CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_PERFORMANCE_COUNTERS, 1, 0, &yes));
    CHECK(!yes);
    CHECK_STATUS(hsa_system_extension_supported(4, 1, 0, &yes), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* The newest ROCr's last AMD extension is PC sampling (0x203): one past it is refused. */
    CHECK_OK(hsa_system_extension_supported(0x203, 1, 0, &yes));
    CHECK(yes);
    CHECK_STATUS(hsa_system_extension_supported(0x204, 1, 0, &yes), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);

    uint16_t minor = 99;
    CHECK_OK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, &minor, &yes));
    CHECK(yes);
    CHECK_EQ_U64(minor, 0);
    CHECK_OK(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 2, &minor, &yes));
    CHECK(!yes);
    CHECK_OK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_PROFILER, 1, &minor, &yes));
    CHECK(!yes);
    CHECK_STATUS(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, NULL, &yes),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_system_major_extension_supported(HSA_EXTENSION_IMAGES, 1, &minor, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

static void extension_tables(void) {
    hsa_ext_images_1_pfn_t images;
    memset(&images, 0, sizeof images);
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof images, &images));
    /* The table points at this library's own exports. */
    CHECK(images.hsa_ext_image_create == hsa_ext_image_create);
    CHECK(images.hsa_ext_image_get_capability == hsa_ext_image_get_capability);
    CHECK(images.hsa_ext_sampler_destroy == hsa_ext_sampler_destroy);
    CHECK(images.hsa_ext_image_create_with_layout == hsa_ext_image_create_with_layout);

    /* Only table_length bytes are written. */
    hsa_ext_images_1_pfn_t partial;
    memset(&partial, 0xAB, sizeof partial);
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 2 * sizeof(void *), &partial));
    CHECK(partial.hsa_ext_image_get_capability == hsa_ext_image_get_capability);
    CHECK(partial.hsa_ext_image_data_get_info == hsa_ext_image_data_get_info);
    unsigned char untouched[sizeof partial - 2 * sizeof(void *)];
    memset(untouched, 0xAB, sizeof untouched);
    CHECK(memcmp((char *)&partial + 2 * sizeof(void *), untouched, sizeof untouched) == 0);

    hsa_ext_images_1_00_pfn_t old_images;
    memset(&old_images, 0, sizeof old_images);
    CHECK_OK(hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 0, &old_images));
    CHECK(old_images.hsa_ext_sampler_create == hsa_ext_sampler_create);

    hsa_ven_amd_loader_1_03_pfn_t loader;
    memset(&loader, 0, sizeof loader);
    CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof loader, &loader));
    CHECK(loader.hsa_ven_amd_loader_query_host_address != NULL);
    CHECK(loader.hsa_ven_amd_loader_iterate_executables != NULL);
    /* A table function is callable, and bad input is an error status, not a crash. */
    if (loader.hsa_ven_amd_loader_query_host_address) {
        hsa_status_t s = loader.hsa_ven_amd_loader_query_host_address((const void *)0x10, NULL);
        CHECK_STATUS(s, HSA_STATUS_ERROR_INVALID_ARGUMENT); /* ROCr: a NULL out-pointer */
    }
    hsa_ven_amd_loader_1_00_pfn_t loader100;
    memset(&loader100, 0, sizeof loader100);
    CHECK_OK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 0, &loader100));
    CHECK(loader100.hsa_ven_amd_loader_query_host_address == loader.hsa_ven_amd_loader_query_host_address);

    /* ROCr without the finalizer and aqlprofile libraries: no table. */
    hsa_ext_finalizer_1_00_pfn_t finalizer;
    CHECK_STATUS(hsa_system_get_extension_table(HSA_EXTENSION_FINALIZER, 1, 0, &finalizer), HSA_STATUS_ERROR);
    char buffer[256];
    CHECK_STATUS(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_AQLPROFILE, 1, sizeof buffer, buffer),
                 HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_PROFILER, 1, sizeof buffer, buffer),
                 HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 2, sizeof buffer, buffer),
                 HSA_STATUS_ERROR);
    CHECK_STATUS(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, 0, buffer),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_system_get_major_extension_table(HSA_EXTENSION_IMAGES, 1, sizeof buffer, NULL),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
    /* No 1.01 images table exists: its length is 0. */
    CHECK_STATUS(hsa_system_get_extension_table(HSA_EXTENSION_IMAGES, 1, 1, buffer),
                 HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

/* hsa_status_string: "<enumerator>: <meaning>", as ROCr's strings read (clients print them,
   HIP in its abort message on a GPU fault). */
static int starts_with(const char *text, const char *prefix) {
    return text && strncmp(text, prefix, strlen(prefix)) == 0 && strlen(text) > strlen(prefix) + 2;
}

static void status_strings(void) {
    const char *text = NULL;
    CHECK_OK(hsa_status_string(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, &text));
    CHECK(starts_with(text, "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: "));
    CHECK_OK(hsa_status_string(HSA_STATUS_ERROR_EXCEPTION, &text));
    CHECK(starts_with(text, "HSA_STATUS_ERROR_EXCEPTION: "));
    CHECK_OK(hsa_status_string(HSA_STATUS_SUCCESS, &text));
    CHECK(starts_with(text, "HSA_STATUS_SUCCESS: "));
    CHECK_OK(hsa_status_string((hsa_status_t)HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED, &text));
    CHECK(starts_with(text, "HSA_EXT_STATUS_ERROR_IMAGE_FORMAT_UNSUPPORTED: "));
    CHECK_OK(hsa_status_string((hsa_status_t)HSA_EXT_STATUS_ERROR_INVALID_PROGRAM, &text));
    CHECK(starts_with(text, "HSA_EXT_STATUS_ERROR_INVALID_PROGRAM: "));
    CHECK_STATUS(hsa_status_string((hsa_status_t)0x7777, &text), HSA_STATUS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(hsa_status_string(HSA_STATUS_ERROR, NULL), HSA_STATUS_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    uint16_t major;
    CHECK_STATUS(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major), HSA_STATUS_ERROR_NOT_INITIALIZED);
    bool yes;
    CHECK_STATUS(hsa_system_extension_supported(HSA_EXTENSION_IMAGES, 1, 0, &yes),
                 HSA_STATUS_ERROR_NOT_INITIALIZED);
    CHECK_OK(hsa_init());
    system_attributes();
    extension_names();
    extension_support();
    extension_tables();
    status_strings();
    CHECK_OK(hsa_shut_down());
    CHECK_STATUS(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major), HSA_STATUS_ERROR_NOT_INITIALIZED);
    return check_report();
}
