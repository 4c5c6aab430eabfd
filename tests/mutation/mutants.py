"""Planted bugs, replayed: each mutant is one small realistic bug in product code and the tests
that should catch it; the runner applies them one at a time in a scratch git worktree of HEAD
and reports which the tests catch and which survive (a survivor is a missing test).

Holds these invariants:
- the checkout it runs from is never written: mutants go into a detached worktree of HEAD
  under /tmp, removed at the end (commit a change before replaying against it);
- a mutant whose original text is not in its file exactly once is reported `stale`, never
  applied elsewhere;
- after a C mutant the library is rebuilt (build_shim.py) before its tests and after its
  revert, so the next mutant runs against the true library;
- not part of the normal suite (no test_ prefix): run `python3 tests/mutation/mutants.py`
  (all) or with mutant names.
"""
import os
import subprocess
import sys
import tempfile

PYTEST = ("python3", "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider")

# (name, file, original, mutated, tests run against it)
MUTANTS = [
    ("wait-stack-bound", "softgpu_shim/fastpath_exports.c",
     "int on_stack = signal_count <= ON_STACK;", "int on_stack = signal_count <= ON_STACK + 1;",
     ["tests/test_rocr_newest.py"]),
    ("wait-max-signals", "softgpu_shim/fastpath_exports.c",
     "if (signal_count > SG_MAX_SIGNALS ||", "if (signal_count >= SG_MAX_SIGNALS ||",
     ["tests/test_rocr_newest.py", "tests/test_signals.py"]),
    ("wait-all-zero", "softgpu_shim/fastpath_exports.c",
     "if (signal_count == 0) return 0;", "if (signal_count == 0) return UINT32_MAX;",
     ["tests/test_rocr_newest.py"]),
    ("init-overflow-status", "softgpu_shim/fastpath_exports.c",
     "counted > 0 ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_REFCOUNT_OVERFLOW",
     "counted > 0 ? HSA_STATUS_ERROR_REFCOUNT_OVERFLOW : HSA_STATUS_SUCCESS",
     ["tests/test_rocr_answers.py::test_nested_inits_share_one_session_until_the_last_shut_down"]),
    ("grid-dim-limit", "core/isa/plan.py",
     "any(s > m for s, m in zip(sizes, max_dim))", "any(s >= m for s, m in zip(sizes, max_dim))",
     ["tests/isa/test_dispatch_limits.py"]),
    ("grid-size-limit", "core/isa/plan.py",
     "math.prod(sizes) > max_size:", "math.prod(sizes) >= max_size:",
     ["tests/isa/test_dispatch_limits.py"]),
    ("groups-floor", "core/isa/plan.py",
     "groups = tuple(-(-g // w) for", "groups = tuple((g // w) for",
     ["tests/isa/test_dispatch_limits.py", "tests/isa/test_engine_launch.py"]),
    ("scratch-round-down", "core/isa/plan.py",
     "private_bytes=-(-private // 16) * 16", "private_bytes=private // 16 * 16",
     ["tests/isa/test_engine_limits.py", "tests/isa/test_engine_memory.py"]),
    ("setting-low-bound", "core/settings.py",
     "if value < low or", "if value <= low or", ["tests/test_settings.py"]),
    ("setting-high-bound", "core/settings.py",
     "(high is not None and value > high)", "(high is not None and value >= high)",
     ["tests/test_settings.py"]),
    ("seconds-zero", "core/settings.py",
     "math.isfinite(value) and value > 0", "math.isfinite(value) and value >= 0",
     ["tests/test_settings.py"]),
    ("vmem-align-min", "core/memory/vmem.py",
     "if alignment < PAGE or", "if alignment <= PAGE or", ["tests/test_vmem.py"]),
    ("vmem-range-end", "core/memory/vmem.py",
     "address + size > record.address + record.size", "address + size >= record.address + record.size",
     ["tests/test_vmem.py"]),
    ("vmem-alloc-max", "core/memory/vmem.py",
     "if size > pool.alloc_max_size:", "if size >= pool.alloc_max_size:", ["tests/test_vmem.py"]),
    ("vmem-map-size", "core/memory/vmem.py",
     "if size > handle.size:", "if size >= handle.size:", ["tests/test_vmem.py"]),
    ("vmem-access-end", "core/memory/vmem.py",
     "mapping is not None and address <= mapping.end else None",
     "mapping is not None and address < mapping.end else None", ["tests/test_vmem.py"]),
    ("vmem-overlap-next", "core/memory/vmem.py",
     "self._starts[i + 1] < address + size", "self._starts[i + 1] <= address + size",
     ["tests/test_vmem.py"]),
    ("vmem-free-mapped", "core/memory/vmem.py",
     "            if record.mappings:\n                raise ResourceFree",
     "            if False:\n                raise ResourceFree", ["tests/test_vmem.py"]),
    ("engine-id-bound", "core/copy_engines.py",
     "if offset > engines:", "if offset >= engines:",
     ["tests/test_rocr_newest.py", "tests/test_memory.py"]),
    ("engine-sdma1", "core/copy_engines.py",
     'agent.spec["sdma_engines"] > 1', 'agent.spec["sdma_engines"] > 2',
     ["tests/test_rocr_newest.py", "tests/test_memory.py"]),
    ("engine-same-agent", "core/copy_engines.py",
     "    if dst is src:\n        raise InvalidAgent", "    if False:\n        raise InvalidAgent",
     ["tests/test_rocr_newest.py", "tests/test_memory.py"]),
    ("replay-fault-verdict", "core/replay.py",
     "if (fault is None) != (want_fault is None) or (", "if (fault is None) == (want_fault is None) and (",
     ["tests/test_capture_replay.py"]),
    ("dpp-row-shr", "core/isa/semantics/lanes.py",
     "return base + src % ROW, src >= 0", "return base + src % ROW, src > 0",
     ["tests/isa/test_engine_dpp.py"]),
    ("dpp-row-shl", "core/isa/semantics/lanes.py",
     "return base + src % ROW, src < ROW", "return base + src % ROW, src <= ROW",
     ["tests/isa/test_engine_dpp.py"]),
    ("dpp-bank-mask", "core/isa/semantics/lanes.py",
     "enabled = (rows & banks)", "enabled = (rows | banks)", ["tests/isa/test_engine_dpp.py"]),
    ("dpp-bcast15", "core/isa/semantics/lanes.py",
     "return np.maximum(base - 1, 0), lane >= ROW", "return np.maximum(base - 1, 0), lane > ROW",
     ["tests/isa/test_engine_dpp.py"]),
    ("native-range-wrap", "core/isa/native/memory.py",
     'b.icmp_unsigned(">=", hi, lo))', 'b.icmp_unsigned(">=", hi, hi))',
     ["tests/isa/test_engine_wrapping_addresses.py"]),
    ("caller-frame-bound", "core/isa/native/runner.c",
     "if (d->frame_kib <= SG_CALLER_FRAME_KIB)", "if (d->frame_kib <= 4 * SG_CALLER_FRAME_KIB)",
     ["tests/isa/test_native_stack.py"]),
    ("frame-margin", "core/isa/native/dispatch.py",
     "frame_kib + C.STACK_MARGIN_KIB <= C.THREAD_STACK_KIB", "frame_kib + C.STACK_MARGIN_KIB < C.THREAD_STACK_KIB",
     ["tests/isa/test_native_stack.py"]),
    ("elf-file-bound", "core/loader/elf.py",
     "s.offset + s.filesz > len(self.data)", "s.offset + s.filesz >= len(self.data)",
     ["tests/test_loader_bad_input.py"]),
    ("elf-load-span", "core/loader/elf.py",
     "if self.load_span > MAX_LOAD_SPAN", "if self.load_span >= MAX_LOAD_SPAN",
     ["tests/test_loader_bad_input.py"]),
    ("code-object-end", "core/loader/executable.py",
     "address < self.allocation.address + self.load_size",
     "address <= self.allocation.address + self.load_size",
     ["tests/test_loader_c.py"]),
]


def _run(cmd, cwd, timeout=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout).returncode


def _build(scratch):
    if _run(("python3", "build_shim.py"), scratch) != 0:
        raise SystemExit("build_shim.py failed in the scratch worktree")


def replay(mutant, scratch, timeout):
    """'caught', 'survived' or 'stale' for one mutant, its file restored afterwards."""
    name, path, original, mutated, tests = mutant
    full = os.path.join(scratch, path)
    with open(full) as f:
        text = f.read()
    if text.count(original) != 1:
        return "stale"
    is_c = path.endswith((".c", ".h"))
    try:
        with open(full, "w") as f:
            f.write(text.replace(original, mutated))
        if is_c:
            _build(scratch)
        try:
            rc = _run(PYTEST + tuple(tests), scratch, timeout)
        except subprocess.TimeoutExpired:
            return "caught (timed out)"
        # 5: no tests collected, a wrong test path: not a catch.
        return "stale" if rc == 5 else "caught" if rc else "survived"
    finally:
        with open(full, "w") as f:
            f.write(text)
        if is_c:
            _build(scratch)


def main(names):
    root = subprocess.check_output(("git", "rev-parse", "--show-toplevel"), text=True).strip()
    chosen = [m for m in MUTANTS if not names or m[0] in names]
    scratch = tempfile.mkdtemp(prefix="softgpu-mutation-")
    os.rmdir(scratch)
    subprocess.check_call(("git", "-C", root, "worktree", "add", "--detach", scratch, "HEAD"))
    try:
        _build(scratch)
        verdicts = {}
        for mutant in chosen:
            verdicts[mutant[0]] = replay(mutant, scratch, timeout=900)
            print(f"{mutant[0]:24} {verdicts[mutant[0]]}", flush=True)
        caught = sum(v.startswith("caught") for v in verdicts.values())
        print(f"score: {caught} of {len(verdicts)} caught")
        return 0 if caught == len(verdicts) else 1
    finally:
        subprocess.call(("git", "-C", root, "worktree", "remove", "--force", scratch))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
