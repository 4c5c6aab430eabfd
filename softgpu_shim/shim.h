/* What every C file of the library includes first: the official HSA headers the exports
   implement, and the project's headers that cffi also reads (native.h, safe_memory.h,
   embedding_paths.h and the native tier's runner.h). Those are cdef'd by build_shim.py, whose
   parser takes no #include or include guard, so they include nothing themselves: this header
   gives them what they use, once (build_shim.py compiles the C files as one translation
   unit; each also compiles on its own). */
#ifndef SG_SHIM_H
#define SG_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_image.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ven_amd_loader.h>
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include "native.h"
#include "safe_memory.h"
#include "embedding_paths.h"
#include "runner.h"

/* A function the library exports (the version script names them all). */
#define EXPORT __attribute__((visibility("default")))
#endif
