/* The CPU agent describes the machine it runs on, as ROCr's does: the model name from
   /proc/cpuinfo, the online CPUs, the clock, the system memory (/proc/meminfo) and one cache
   per physical data or unified cache in sysfs, CPU by CPU. A profile may pin all of it.
   usage: agents_host_cpu                          expect this machine (read here, in C)
          agents_host_cpu NAME CUS MHZ BYTES KIB,KIB,...   expect these pinned values */
#include <ctype.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

typedef struct {
    char name[64];
    uint32_t cpus, mhz;
    uint64_t memory;
    int caches;
    uint32_t level[512], kib[512];
} host_t;

static int read_text(const char *path, char *out, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(out, 1, size - 1, f);
    fclose(f);
    out[n] = 0;
    while (n && isspace((unsigned char)out[n - 1])) out[--n] = 0;
    return 1;
}

/* The value of the first "key : value" line of /proc/cpuinfo. */
static int cpuinfo(const char *key, char *out, size_t size) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, key, strlen(key)) || !colon) continue;
        snprintf(out, size, "%s", colon + 2);
        out[strcspn(out, "\n")] = 0;
        found = 1;
    }
    if (f) fclose(f);
    return found;
}

static int cache_attribute(uint32_t cpu, int index, const char *attribute, char *out, size_t size) {
    char path[160];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/cache/index%d/%s", cpu, index, attribute);
    return read_text(path, out, size);
}

static void read_host(host_t *h) {
    memset(h, 0, sizeof *h);
    char text[256];
    if (cpuinfo("model name", text, sizeof text)) snprintf(h->name, sizeof h->name, "%.63s", text);
    h->cpus = (uint32_t)sysconf(_SC_NPROCESSORS_ONLN);
    if (read_text("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", text, sizeof text))
        h->mhz = (uint32_t)(atoll(text) / 1000);
    else if (cpuinfo("cpu MHz", text, sizeof text))
        h->mhz = (uint32_t)atof(text);
    h->memory = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kb;
    if (f && fscanf(f, "MemTotal: %llu kB", &kb) == 1) h->memory = kb * 1024;
    if (f) fclose(f);
    /* Each cache is listed once, by the first CPU sharing it; instruction caches are not. */
    for (uint32_t cpu = 0; cpu < 4096; cpu++) {
        char path[128];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%u/online", cpu);
        if (read_text(path, text, sizeof text) && text[0] == '0') continue;
        for (int index = 0; index < 16; index++) {
            char level[16], type[32], size[32], shared[256];
            if (!cache_attribute(cpu, index, "level", level, sizeof level)) break;
            cache_attribute(cpu, index, "type", type, sizeof type);
            cache_attribute(cpu, index, "size", size, sizeof size);
            cache_attribute(cpu, index, "shared_cpu_list", shared, sizeof shared);
            if (strcmp(type, "Instruction") == 0 || (uint32_t)atoi(shared) != cpu || h->caches == 512) continue;
            uint32_t kib = (uint32_t)atoi(size);
            if (strchr(size, 'M')) kib *= 1024;
            h->level[h->caches] = (uint32_t)atoi(level);
            h->kib[h->caches++] = kib;
        }
    }
}

static void pinned(host_t *h, char **argv) {
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", argv[1]);
    h->cpus = (uint32_t)atoi(argv[2]);
    h->mhz = (uint32_t)atoi(argv[3]);
    h->memory = strtoull(argv[4], NULL, 0);
    for (char *kib = strtok(argv[5], ","); kib; kib = strtok(NULL, ",")) {
        h->level[h->caches] = (uint32_t)h->caches + 1;
        h->kib[h->caches++] = (uint32_t)atoi(kib);
    }
}

typedef struct {
    hsa_cache_t list[512];
    int count;
} caches_t;

static hsa_status_t add_cache(hsa_cache_t cache, void *data) {
    caches_t *c = data;
    if (c->count < 512) c->list[c->count++] = cache;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t first_pool(hsa_amd_memory_pool_t pool, void *data) {
    *(hsa_amd_memory_pool_t *)data = pool;
    return HSA_STATUS_INFO_BREAK;
}

int main(int argc, char **argv) {
    host_t want;
    if (argc > 5) pinned(&want, argv);
    else read_host(&want);
    MUST(hsa_init());
    hsa_agent_t cpu, gpu;
    find_cpu_gpu(&cpu, &gpu);

    char name[64];
    CHECK_OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_NAME, name));
    CHECK(strcmp(name, want.name) == 0);
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_PRODUCT_NAME, name));
    CHECK(strcmp(name, want.name) == 0);
    uint32_t value = 0;
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &value));
    CHECK_EQ_U64(value, want.cpus);
    CHECK_OK(hsa_agent_get_info(cpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, &value));
    CHECK_EQ_U64(value, want.mhz);
    hsa_amd_memory_pool_t pool = {0};
    CHECK(hsa_amd_agent_iterate_memory_pools(cpu, first_pool, &pool) == HSA_STATUS_INFO_BREAK);
    size_t bytes = 0;
    CHECK_OK(hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &bytes));
    CHECK_EQ_U64(bytes, want.memory);

    caches_t got = {.count = 0};
    CHECK_OK(hsa_agent_iterate_caches(cpu, add_cache, &got));
    CHECK_EQ_U64(got.count, want.caches);
    uint32_t per_level[4] = {0, 0, 0, 0};
    for (int i = 0; i < got.count && i < want.caches; i++) {
        uint8_t level = 0;
        uint32_t kib = 0, length = 0;
        const char *cache_name = NULL;
        char expected[80];
        CHECK_OK(hsa_cache_get_info(got.list[i], HSA_CACHE_INFO_LEVEL, &level));
        CHECK_OK(hsa_cache_get_info(got.list[i], HSA_CACHE_INFO_SIZE, &kib));
        CHECK_OK(hsa_cache_get_info(got.list[i], HSA_CACHE_INFO_NAME, &cache_name));
        CHECK_OK(hsa_cache_get_info(got.list[i], HSA_CACHE_INFO_NAME_LENGTH, &length));
        snprintf(expected, sizeof expected, "%s L%u", want.name, want.level[i]);
        CHECK_EQ_U64(level, want.level[i]);
        CHECK_EQ_U64(kib, want.kib[i]);
        CHECK(cache_name && strcmp(cache_name, expected) == 0);
        CHECK_EQ_U64(length, strlen(expected));
        if (level >= 1 && level <= 4) per_level[level - 1] = kib * 1024;
    }
    uint32_t sizes[4] = {1, 1, 1, 1};
    CHECK_OK(hsa_agent_get_info(cpu, HSA_AGENT_INFO_CACHE_SIZE, sizes));
    for (int i = 0; i < 4; i++) CHECK_EQ_U64(sizes[i], per_level[i]);
    CHECK_OK(hsa_shut_down());
    return check_report();
}
