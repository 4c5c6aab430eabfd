"""IPC memory and signals (within a process and between processes), SVM as ROCr answers
without KFD SVM support, graphics interop without a graphics driver, and the finalizer
entry points without a finalizer library (C programs)."""
from tests.support import cprog
from tests.support.kernels import compile_opencl


def test_ipc_handles_rules_and_bad_handles_in_one_process():
    cprog.check("ipc_memory.c")


def test_ipc_memory_and_signals_between_processes():
    """A child attaches, reads, writes and computes on the parent's memory and hands a
    signal back and forth; a creator that exits early leaves its memory mapped and its
    signal's waiters released; a holder dying during an unbounded wait ends it."""
    cprog.check("ipc_processes.c", compile_opencl("aql_kernels.cl", opt="-O2"), timeout=300)


def test_svm_statuses_prefetch_completion_and_interop():
    cprog.check("svm_interop.c")


def test_finalizer_entries_answer_as_rocr_without_its_library():
    cprog.check("finalizer_stubs.c")
