"""Kernel faults: what the engine raises when a wave does something hardware would trap on,
or when a dispatch cannot start at all.

Holds these invariants:
- a fault is raised before the faulting access touches memory, so nothing outside the
  faulting access is ever written;
- every fault carries a complete report (kernel, pc, instruction, workgroup, wave, lane,
  address, reason) that the packet processor hands to the queue's error callback and the trace;
- a launch fault (raised before any wave ran) names the kernel, its entry as pc and the
  entry's first instruction, so a refused dispatch still says which kernel and why.
"""
from core.errors import HsaError
from core.hsa_abi import Status

REPORT_FIELDS = ("kernel", "pc", "instruction", "workgroup", "wave", "lane", "address", "reason")


class KernelFault(HsaError):
    """A wave faulted, or the dispatch could not start. `.status` is MEMORY_APERTURE_VIOLATION,
    ILLEGAL_INSTRUCTION, EXCEPTION (s_trap) or, for a launch, INVALID_ALLOCATION."""

    def __init__(self, reason, status=Status.ERROR_ILLEGAL_INSTRUCTION, **report):
        self.report = {field: report.get(field) for field in REPORT_FIELDS}
        self.report["reason"] = reason
        super().__init__(self._describe(), status)

    def _describe(self):
        r = self.report
        where = []
        if r["pc"] is not None:
            where.append(f"pc={r['pc']:#x}")
        for key in ("instruction", "workgroup", "wave", "lane"):
            if r[key] is not None:
                where.append(f"{key}={r[key]}")
        if r["address"] is not None:
            where.append(f"address={r['address']:#x}")
        kernel = r["kernel"] or "kernel"
        return f"{kernel}: {r['reason']}" + (f" ({', '.join(where)})" if where else "")


def memory_fault(reason, **report):
    return KernelFault(reason, Status.ERROR_MEMORY_APERTURE_VIOLATION, **report)


def illegal_instruction(reason, **report):
    return KernelFault(reason, Status.ERROR_ILLEGAL_INSTRUCTION, **report)


def launch_fault(reason, kernel, entry, instruction, status=Status.ERROR_ILLEGAL_INSTRUCTION):
    """A dispatch refused before any instruction ran: the report points at the kernel's entry."""
    return KernelFault(reason, status, kernel=kernel, pc=entry, instruction=instruction)


def time_limit_fault(seconds, report):
    """The dispatch ran past SOFTGPU_TIME_LIMIT: stopped as a queue error (HSA_STATUS_ERROR_EXCEPTION,
    what ROCr reports for a queue whose waves the hardware had to kill), at the wave `report` names."""
    report = dict(report)
    report.pop("reason", None)
    return KernelFault(f"time limit: the dispatch ran longer than SOFTGPU_TIME_LIMIT={seconds:g} s",
                       Status.ERROR_EXCEPTION, **report)
