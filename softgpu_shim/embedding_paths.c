/* Where the embedded runtime finds its Python packages, and Python's own symbols.

   Holds four invariants:
   - the package root is the directory two levels above the library file (a checkout's
     build/lib/ and a wheel's softgpu_shim/lib/ both lie there), or the checkout the library
     was built from when the file sits elsewhere (SOFTGPU_LIBDIR);
   - sys.path gets the root first and the site-packages of the Python that built the library
     last, each once, so an installed library imports the installed package and a Python
     that is not the one SoftGPU was installed into still finds its dependencies;
   - when the library is loaded into a running Python (ctypes) by the thread that holds the
     GIL, this happens at load time, before cffi's start-up imports _cffi_backend; nothing
     else ever runs Python code from the constructor;
   - libpython's symbols are in the global scope once the library is loaded, so the extension
     modules the runtime imports (_cffi_backend, numpy) resolve PyExc_* and friends also when
     a client dlopens the library RTLD_LOCAL, as LLVM's OpenMP offloading plugin does (its
     dependency libpython then stays local and the first import fails). */
#include <Python.h>

#include "shim.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

/* build_shim.py defines SG_BUILT_ROOT (the checkout, a string) and SG_BUILD_SITE_PATHS_LIST
   (the building Python's site-packages: string literals, each followed by a comma). */
static const char *const SG_BUILD_SITE_PATHS[] = {SG_BUILD_SITE_PATHS_LIST NULL};

static char sg_root[PATH_MAX];

static int sg_holds_package(const char *root) {
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/softgpu_shim/__init__.py", root);
    return access(probe, R_OK) == 0;
}

const char *sg_package_root(void) {
    if (sg_root[0]) return sg_root;
    Dl_info info;
    char path[PATH_MAX];
    if (dladdr((void *)sg_package_root, &info) && info.dli_fname && realpath(info.dli_fname, path)) {
        char *root = dirname(dirname(dirname(path)));
        if (sg_holds_package(root)) {
            snprintf(sg_root, sizeof sg_root, "%s", root);
            return sg_root;
        }
    }
    snprintf(sg_root, sizeof sg_root, "%s", SG_BUILT_ROOT);
    return sg_root;
}

static int sg_add_path(PyObject *sys_path, const char *dir, int first) {
    PyObject *entry = PyUnicode_DecodeFSDefault(dir);
    if (!entry) return -1;
    int present = PySequence_Contains(sys_path, entry);
    int status = present != 0 ? present < 0 ? -1 : 0
                              : first ? PyList_Insert(sys_path, 0, entry) : PyList_Append(sys_path, entry);
    Py_DECREF(entry);
    return status;
}

int sg_add_package_paths(void) {
    PyGILState_STATE state = PyGILState_Ensure();
    PyObject *sys_path = PySys_GetObject("path");        /* borrowed */
    int status = -1;
    if (sys_path && PyList_Check(sys_path) && sg_add_path(sys_path, sg_package_root(), 1) == 0) {
        status = 0;
        for (const char *const *dir = SG_BUILD_SITE_PATHS; *dir && status == 0; dir++)
            status = sg_add_path(sys_path, *dir, 0);
    }
    if (status) PyErr_Clear();
    PyGILState_Release(state);
    return status;
}

/* Reopening the file that holds Py_Initialize with RTLD_NOLOAD | RTLD_GLOBAL promotes it
   (a no-op when it is global already, or is the python executable itself). The handle is
   kept: the promotion lasts as long as the process. */
static void sg_python_symbols_global(void) {
    Dl_info info;
    if (dladdr((void *)Py_Initialize, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
}

__attribute__((constructor)) static void sg_at_load(void) {
    sg_python_symbols_global();
    if (Py_IsInitialized() && PyGILState_Check()) sg_add_package_paths();
}
