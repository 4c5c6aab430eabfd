"""`softgpu warm PROGRAM|CODE-OBJECT|DIR...`: translate every kernel of the code objects found
into the native tier's disk cache, so their first dispatches find them translated (a CI
machine warms once, caches the directory, and its later runs skip translating).

Code objects are found in plain AMDGPU ELF files, clang offload bundles, and HIP host
executables and shared libraries (.hip_fatbin), directories walked recursively
(core.loader.containers); those for the profile's GPUs (SOFTGPU_PROFILE) are translated on
every core (core.warm), with a progress bar on a terminal.

Exit status: 0 when every kernel was translated, found cached or is one the translator does
not take (it runs on the interpreter); 1 when a kernel's translation failed, a file named
holds no code object or cannot be read, or nothing found is for the profile's GPUs.
"""
import os
import sys
import time

from core.cli import Refused, command


@command("warm", help="translate the kernels of code objects, HIP programs and libraries into "
                      "the native tier's disk cache")
def declare(parser):
    parser.add_argument("paths", nargs="+", metavar="PROGRAM|CODE-OBJECT|DIR",
                        help="code objects, offload bundles, HIP executables or shared libraries, "
                             "or directories of them (walked recursively)")
    parser.add_argument("--jobs", "-j", type=int, default=len(os.sched_getaffinity(0)),
                        help="worker processes (default: the cores this process may use)")
    return run


def run(args):
    from core import warm
    if args.jobs < 1:
        raise Refused(f"--jobs {args.jobs}: at least one worker process is needed")
    start = time.perf_counter()
    targets = _gpu_targets()
    found = warm.survey(args.paths, targets)
    for path, reason in found.errors:
        print(f"softgpu warm: {path}: {reason}", file=sys.stderr)
    for path in found.empty:
        print(f"softgpu warm: {path}: holds no AMDGPU code object (neither an AMDGPU ELF, an "
              f"offload bundle, nor a program or library with a {_FATBIN} section)", file=sys.stderr)
    for unreadable in found.unreadable:
        print(f"softgpu warm: {unreadable}", file=sys.stderr)
    outcomes = warm.run(found.tasks, args.jobs, _progress(len(found.tasks)))
    seconds = time.perf_counter() - start
    for line in summary(found, outcomes, seconds, min(args.jobs, len(found.tasks))):
        print(line)
    nothing = not found.code_objects and (found.other_targets or found.unreadable)
    if nothing:
        print(f"softgpu warm: no code object found is for the profile's GPUs "
              f"({', '.join(sorted({t.isa_name for t in targets}))}; SOFTGPU_PROFILE chooses them)",
              file=sys.stderr)
    failed = any(o.kind == "failed" for o in outcomes)
    return 1 if failed or found.empty or found.errors or nothing else 0


_FATBIN = ".hip_fatbin"


def _gpu_targets():
    """The core.target Target of each GPU agent the profile makes, in agent order."""
    from core import profile
    from core.agents import Agents
    from core.errors import InvalidProfile
    try:
        agents = Agents(profile.load())
    except InvalidProfile as error:
        raise Refused(str(error)) from None
    try:
        return [gpu.isa.target for gpu in agents.gpus]
    finally:
        agents.close()


def _progress(total):
    """on_outcome for warm.run: a tqdm bar where progress is shown (core.progress.wanted)."""
    from core import progress
    if not progress.wanted() or not total:
        return lambda outcome: None
    from tqdm import tqdm
    bar = tqdm(total=total, unit="kernel", desc="softgpu warm", file=sys.stderr, leave=False)

    def advance(outcome):
        bar.update(1)
        if bar.n == total:
            bar.close()
    return advance


def summary(found, outcomes, seconds, processes):
    """The lines printed when warming ends."""
    count = {kind: sum(o.kind == kind for o in outcomes)
             for kind in ("translated", "cached", "untranslatable", "failed")}
    skipped = [f"{len(found.other_targets)} for other targets skipped"] if found.other_targets else []
    skipped += [f"{found.duplicates} duplicates"] if found.duplicates else []
    skipped += [f"{len(found.unreadable)} unreadable"] if found.unreadable else []
    yield (f"code objects: {found.code_objects}" + (f" ({', '.join(skipped)})" if skipped else ""))
    yield (f"kernels: {len(outcomes)}: {count['translated']} translated, {count['cached']} already "
           f"cached, {count['untranslatable']} untranslatable, {count['failed']} failed")
    for source, isa in found.other_targets:
        yield f"  skipped (built for {isa}): {source}"
    for outcome in outcomes:
        if outcome.kind in ("untranslatable", "failed"):
            yield f"  {outcome.kind}: {outcome.task.kernel} in {outcome.task.source}: {outcome.detail}"
    from core.isa.native.compiler import cache_dir
    yield f"{seconds:.1f} s on {max(processes, 1)} processes; cache: {cache_dir()}"
