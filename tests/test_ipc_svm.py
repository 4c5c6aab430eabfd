"""IPC memory within a process (and refused across processes), SVM as ROCr answers without
KFD SVM support, graphics interop without a graphics driver, and the finalizer entry
points without a finalizer library (C programs)."""
from tests.support import cprog


def test_ipc_memory_attaches_in_process_only():
    cprog.check("ipc_memory.c")


def test_svm_statuses_prefetch_completion_and_interop():
    cprog.check("svm_interop.c")


def test_finalizer_entries_answer_as_rocr_without_its_library():
    cprog.check("finalizer_stubs.c")
