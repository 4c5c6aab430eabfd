/* Where the embedded runtime finds its Python packages.

   Holds three invariants:
   - the package root is the directory two levels above the library file (a checkout's
     build/lib/ and a wheel's softgpu_shim/lib/ both lie there), or the checkout the library
     was built from when the file sits elsewhere (SOFTGPU_LIBDIR);
   - sys.path gets the root first and the site-packages of the Python that built the library
     last, each once, so an installed library imports the installed package and a Python
     that is not the one SoftGPU was installed into still finds its dependencies;
   - when the library is loaded into a running Python (ctypes) by the thread that holds the
     GIL, this happens at load time, before cffi's start-up imports _cffi_backend; nothing
     else ever runs Python code from the constructor. */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

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

__attribute__((constructor)) static void sg_paths_at_load(void) {
    if (Py_IsInitialized() && PyGILState_Check()) sg_add_package_paths();
}
