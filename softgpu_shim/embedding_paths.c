/* Where the embedded runtime finds its Python packages, and Python's own symbols.

   Holds these invariants:
   - the package root is the directory two levels above the library file (a checkout's
     build/lib/ and a wheel's softgpu_shim/lib/ both lie there), or the checkout the library
     was built from when the file sits elsewhere (SOFTGPU_LIBDIR);
   - sys.path gets the root first and the site-packages of the Python that built the library
     last, each once, so an installed library imports the installed package and a Python
     that is not the one SoftGPU was installed into still finds its dependencies;
   - the embedded Python of a program that has none starts without site (no .pth file, no
     sitecustomize: the host's Python environment's, not the runtime's), and runs site's work
     only when cffi's backend or the runtime's packages are not found without it (here and in
     bootstrap.py);
   - both happen before cffi's start-up imports _cffi_backend (which may live only in the
     building Python's site-packages: a virtual environment's, say): when the library is
     loaded into a running Python (ctypes) by the thread that holds the GIL, at load time;
     in a program without Python, the first call starts the embedded Python itself and adds
     them before cffi's start-up runs; nothing else ever runs Python code from the constructor;
   - libpython's symbols are in the global scope once the library is loaded, so the extension
     modules the runtime imports (_cffi_backend, numpy) resolve PyExc_* and friends also when
     a client dlopens the library RTLD_LOCAL, as LLVM's OpenMP offloading plugin does (its
     dependency libpython then stays local and the first import fails);
   - the host program's signal dispositions are its own: Python's signal module, when first
     imported, installs its SIGINT handler (KeyboardInterrupt) over a default one, which
     swallowed Ctrl-C. The embedding init code saves every disposition before Python code
     runs, imports the module at once, and puts back whatever changed
     (sg_host_signals_save/restore), so Ctrl-C acts as the program set it;
   - a runtime that cannot run answers, never hangs nor lies: in a process whose Python is
     not the minor version the library was built for (ctypes from another Python; one process
     holds one Python, and its Py_* symbols are the ones every library binds to) no Python
     code is ever entered, and when the embedded Python fails to start (cffi's init code) or
     the runtime fails to import (bootstrap.py), every export that would enter Python answers
     HSA_STATUS_ERROR instead of cffi's 0 = SUCCESS, and one line says why (sg_runtime_failure,
     which hsa_init repeats each time it fails). */
#include <Python.h>

#include "shim.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
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

static char sg_failure[1024];

/* The first reason wins: later failures are its consequences. */
void sg_runtime_failed(const char *reason) {
    static atomic_flag taken = ATOMIC_FLAG_INIT;
    if (!atomic_flag_test_and_set(&taken)) snprintf(sg_failure, sizeof sg_failure, "%s", reason);
}

const char *sg_runtime_failure(void) {
    return sg_failure[0] ? sg_failure : NULL;
}

/* 1 when the process's Python (whichever libpython the Py_* symbols bound to) is the minor
   version the library was compiled for; otherwise records why not. Py_GetVersion needs no
   interpreter state, so asking is safe in any Python. */
static int sg_python_serves(void) {
    static int answer = -1;
    if (answer >= 0) return answer;
    const char *running = Py_GetVersion();
    int major = 0, minor = 0;
    answer = sscanf(running, "%d.%d", &major, &minor) == 2 && major == PY_MAJOR_VERSION &&
             minor == PY_MINOR_VERSION;
    if (!answer) {
        char reason[512];
        snprintf(reason, sizeof reason,
                 "this process runs Python %.*s, but this SoftGPU library was built for Python %d.%d "
                 "and a process holds one Python; build the library with the program's Python "
                 "(python%d.%d build_shim.py, or install SoftGPU into it), or run the program with "
                 "Python %d.%d", (int)strcspn(running, " "), running, PY_MAJOR_VERSION,
                 PY_MINOR_VERSION, major, minor, PY_MAJOR_VERSION, PY_MINOR_VERSION);
        sg_runtime_failed(reason);
    }
    return answer;
}

/* Run by the embedded Python once the package paths are in: site's work, only when cffi's
   backend cannot be imported without it (bootstrap.py does the same for the runtime's
   packages). Importing it is what cffi does next; importlib.util's find_spec would cost
   hsa_init the modules it imports. */
static const char SG_SITE_IF_NEEDED[] =
    "try:\n"
    "    import _cffi_backend\n"
    "except ImportError:\n"
    "    import site\n"
    "    site.main()\n";

/* The embedded Python of a program that has none, started as cffi starts it (no signal
   handlers, the GIL released) but with the package paths in place before cffi imports
   _cffi_backend, and without site: its .pth files and sitecustomize are the host's Python
   environment's (editable installs, distribution hooks), not the runtime's, and cost 5 ms on
   a bare Python, 35 ms on one with a few .pth files; the site-packages the runtime needs are
   the building Python's, added here. Once: the first calls may come from several threads at
   the same time. */
static void sg_start_python_with_paths(void) {
    if (Py_IsInitialized()) return;
    /* Py_InitializeEx reads the legacy flag (its PyConfig has no public initialiser that keeps
       Py_InitializeEx's other choices, such as leaving the host's C locale alone). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    Py_NoSiteFlag = 1;
#pragma GCC diagnostic pop
    Py_InitializeEx(0);
    (void)PyEval_SaveThread();
    sg_add_package_paths();
    PyGILState_STATE state = PyGILState_Ensure();
    (void)PyRun_SimpleString(SG_SITE_IF_NEEDED);     /* prints and clears its own error */
    PyGILState_Release(state);
}

#ifdef _CFFI_USE_EMBEDDING
/* Stands in for cffi's _cffi_start_and_call_python (which answers 0 = HSA_STATUS_SUCCESS when
   the start fails, and hangs in its GIL set-up under another Python's interpreter). Once the
   start succeeded, cffi points _cffi_call_python at its real entry and this is not called
   again. Every embedding_api entry returns hsa_status_t (exports_table.python_entries). */
static void sg_start_and_call_python(struct _cffi_externpy_s *externpy, char *args) {
    static atomic_flag reported = ATOMIC_FLAG_INIT;
    static pthread_once_t started = PTHREAD_ONCE_INIT;
    int saved_errno = errno;
    _cffi_call_python_fnptr call = NULL;
    if (sg_python_serves()) {
        pthread_once(&started, sg_start_python_with_paths);
        call = _cffi_start_python();
    }
    errno = saved_errno;
    if (call) {
        call(externpy, args);
        return;
    }
    /* The usual cause: a Python without cffi's backend loaded the library (ctypes from a bare
       system Python), so the message says what to install. */
    sg_runtime_failed("the embedded Python did not start (Python's own report, \"Failed to "
                      "initialize the Python-CFFI embedding logic\", was printed then); the Python "
                      "that loads SoftGPU needs cffi, numpy, pyelftools and msgpack (python3 -m pip "
                      "install cffi numpy pyelftools msgpack), or load the library from the Python "
                      "environment SoftGPU was installed into");
    if (!atomic_flag_test_and_set(&reported))
        fprintf(stderr, "softgpu: %s; every HSA call answers HSA_STATUS_ERROR\n", sg_failure);
    *(hsa_status_t *)args = HSA_STATUS_ERROR;
    errno = saved_errno;
}
#endif

__attribute__((constructor)) static void sg_at_load(void) {
#ifdef _CFFI_USE_EMBEDDING
    _cffi_call_python = &sg_start_and_call_python;
#endif
    if (!sg_python_serves()) return;     /* no Python code, not even the paths */
    sg_python_symbols_global();
    if (Py_IsInitialized() && PyGILState_Check()) sg_add_package_paths();
}

static struct sigaction sg_host_actions[NSIG];
static unsigned char sg_host_saved[NSIG];

void sg_host_signals_save(void) {
    for (int s = 1; s < NSIG; s++) sg_host_saved[s] = sigaction(s, NULL, &sg_host_actions[s]) == 0;
}

/* Only what changed is set again: a handler the host installed meanwhile on another thread
   is not overwritten by a stale copy. */
void sg_host_signals_restore(void) {
    for (int s = 1; s < NSIG; s++) {
        struct sigaction now;
        if (!sg_host_saved[s] || sigaction(s, NULL, &now) != 0) continue;
        if (now.sa_handler != sg_host_actions[s].sa_handler ||
            now.sa_flags != sg_host_actions[s].sa_flags)
            (void)sigaction(s, &sg_host_actions[s], NULL);
    }
}
