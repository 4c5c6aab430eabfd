"""`softgpu warm` and `softgpu cache` as a CI job uses them: warm the translations of a
program's kernels into a private cache, and the program's next run, a new process, finds
every one of them there; prune and clear that cache by its limits."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from core.isa.native import cache_files
from tests.support import cprog, hipprog
from tests.support.kernels import compile_opencl
from tests.support.paths import ROOT
from tests.test_hip_client import hip_program


def softgpu(cache, *args, **environ):
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), **environ)
    return subprocess.run([sys.executable, "-m", "core.cli", *map(str, args)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def compiles(trace):
    with open(trace) as f:
        events = [json.loads(line) for line in f]
    return [e for e in events if e["event"] == "native_compile"]


@pytest.fixture(scope="module")
def code_object():
    return compile_opencl("aql_kernels.cl", opt="-O2")


def test_a_dispatch_in_a_new_process_finds_the_warmed_translation(code_object, tmp_path):
    done = softgpu(tmp_path, "warm", code_object)
    assert done.returncode == 0, done.stderr
    assert "code objects: 1\n" in done.stdout
    assert "kernels: 7: 7 translated, 0 already cached, 0 untranslatable, 0 failed" in done.stdout
    trace = tmp_path / "trace.jsonl"
    cprog.check("aql_dispatch.c", code_object, "dispatch", timeout=600, SOFTGPU_ENGINE="native",
                SOFTGPU_TRACE=trace, XDG_CACHE_HOME=tmp_path)
    compiled = compiles(trace)
    assert compiled and all(e["cached"] for e in compiled), compiled
    again = softgpu(tmp_path, "warm", code_object)
    assert "kernels: 7: 0 translated, 7 already cached" in again.stdout, again.stdout


def test_the_translation_key_does_not_depend_on_the_load_address(code_object, tmp_path, monkeypatch):
    """Warm loads a code object where its own process puts it; a program's loads lie
    elsewhere. The same kernel loaded at two addresses gets one translation."""
    from core import trace
    from core.isa.layout import layout
    from core.isa.native.dispatch import native_for
    from tests.test_loader_api import Hsa
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    api = Hsa()
    try:
        session = api.session
        kernels = []
        for _ in range(2):
            executable = session.loader.create_executable()
            with open(code_object, "rb") as f:
                executable.load(session.loader.reader_from_file(f.fileno()), session.agents.gpus[0])
            kernels.append(executable.loaded[0].kernels["scale_add"])
        assert kernels[0].entry != kernels[1].entry
        for kernel in kernels:
            native_for(session, kernel, layout(kernel))
        compiled = [e for e in trace.recent() if e["event"] == "native_compile"
                    and e["kernel"] == "scale_add"][-2:]
        assert [e["cached"] for e in compiled] == [False, True]
    finally:
        assert api.lib.hsa_shut_down() == 0


def test_a_hip_program_warmed_runs_its_kernels_from_the_cache(tmp_path):
    program = hip_program("hip_client.cpp")
    done = softgpu(tmp_path, "warm", program)
    assert done.returncode == 0, done.stderr
    assert "code objects: 1\n" in done.stdout and "kernels: 2: 2 translated" in done.stdout
    recorded = hipprog.check_ok(program, tmp_path=tmp_path, marker="HIP CLIENT OK",
                                SOFTGPU_ENGINE="native", XDG_CACHE_HOME=tmp_path)
    own = [e for e in recorded if e["event"] == "native_compile"
           and ("saxpy" in e["kernel"] or "block_sum" in e["kernel"])]
    assert {("saxpy" in e["kernel"]) for e in own} == {True, False}
    assert all(e["cached"] for e in own), own


def test_a_directory_is_warmed_recursively(code_object, tmp_path):
    """A library folder: a plain code object, an offload bundle (hipcc's own, taken out of a
    program's .hip_fatbin), a program built for another GPU, and files that are none of these."""
    library = tmp_path / "library"
    (library / "kernels").mkdir(parents=True)
    shutil.copy(code_object, library / "kernels" / "aql.hsaco")
    subprocess.run(["llvm-objcopy-15", "-O", "binary", "--only-section=.hip_fatbin",
                    hip_program("hip_client.cpp"), library / "kernels" / "client.co"], check=True)
    shutil.copy(hip_program("hip_client.cpp", arch="gfx90a"), library / "client_gfx90a")
    (library / "README.txt").write_text("not a code object\n")
    done = softgpu(tmp_path / "cache", "warm", library)
    assert done.returncode == 0, done.stderr
    assert "code objects: 2 (1 for other targets skipped)" in done.stdout
    assert "kernels: 9: 9 translated, 0 already cached, 0 untranslatable, 0 failed" in done.stdout
    assert "skipped (built for amdgcn-amd-amdhsa--gfx90a" in done.stdout
    # The profile's GPU decides: on an MI210 the gfx90a program is the one to translate.
    mi210 = softgpu(tmp_path / "cache", "warm", library, SOFTGPU_PROFILE="mi210")
    assert "code objects: 1 (2 for other targets skipped)" in mi210.stdout, mi210.stdout
    assert "kernels: 2: 2 translated" in mi210.stdout


def test_a_kernel_the_loader_cannot_load_alone_is_reported_and_the_rest_go_on(code_object, tmp_path):
    extern = compile_opencl("loader_extern.cl")
    done = softgpu(tmp_path, "warm", extern, code_object)
    assert done.returncode == 0, done.stderr
    assert "kernels: 8: 7 translated, 0 already cached, 1 untranslatable, 0 failed" in done.stdout
    assert "untranslatable: read_app_variables in" in done.stdout
    assert "the loader refuses it alone" in done.stdout


def test_a_file_without_code_objects_is_refused(code_object, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n")
    host = cprog.build("aql_dispatch.c")          # a host program with no .hip_fatbin
    for path in (text, host):
        done = softgpu(tmp_path, "warm", path)
        assert done.returncode == 1
        assert f"softgpu warm: {path}: holds no AMDGPU code object" in done.stderr
    # Named beside one that has code objects, it still fails the command, after the warming.
    done = softgpu(tmp_path, "warm", code_object, text)
    assert done.returncode == 1 and "kernels: 7: 7 translated" in done.stdout
    missing = softgpu(tmp_path, "warm", tmp_path / "missing.co")
    assert missing.returncode == 1 and "No such file or directory" in missing.stderr


def test_nothing_for_the_profiles_gpus_is_an_error(tmp_path):
    done = softgpu(tmp_path, "warm", hip_program("hip_client.cpp", arch="gfx90a"))
    assert done.returncode == 1
    assert "no code object found is for the profile's GPUs (amdgcn-amd-amdhsa--gfx1030" in done.stderr
    assert "code objects: 0 (1 for other targets skipped)" in done.stdout


# ---- the cache ----------------------------------------------------------------------------
DAY = cache_files.DAY_SECONDS
NOW = 1_800_000_000


def _entry(directory, stem, size, days_ago, now=NOW):
    """One cache entry of two files (the file format is not the cache command's business)."""
    directory.mkdir(exist_ok=True)
    for suffix, part in ((".o", size - size // 4), (".json", size // 4)):
        path = directory / (stem + suffix)
        path.write_bytes(b"\0" * part)
        os.utime(path, (now - days_ago * DAY, now - days_ago * DAY))


def _stems(directory):
    return sorted(e.stem for e in cache_files.entries(directory))


def test_prune_by_age_keeps_an_entry_used_exactly_the_limit_ago(tmp_path):
    _entry(tmp_path, "at_limit", 100, 7)
    _entry(tmp_path, "past_limit", 100, 7 + 1 / DAY)          # one second older
    _entry(tmp_path, "recent", 100, 1)
    removed = cache_files.prune(tmp_path, older_than_days=7, now=NOW)
    assert [e.stem for e in removed] == ["past_limit"]
    assert _stems(tmp_path) == ["at_limit", "recent"]


def test_prune_by_size_removes_the_least_recently_used_until_it_fits(tmp_path):
    cache = tmp_path / "softgpu"
    for stem, days in (("old", 3), ("middle", 2), ("new", 1)):
        _entry(cache, stem, 1000, days, now=os.path.getmtime(tmp_path))
    exactly = softgpu(tmp_path, "cache", "prune", "--max-size", "3000")
    assert exactly.returncode == 0, exactly.stderr
    assert _stems(cache) == ["middle", "new", "old"] and "removed 0 entries" in exactly.stdout
    one_past = softgpu(tmp_path, "cache", "prune", "--max-size", "2999")
    assert one_past.returncode == 0 and "removed 1 entries" in one_past.stdout
    assert _stems(cache) == ["middle", "new"]
    assert sorted(p.name for p in cache.iterdir()) == ["middle.json", "middle.o", "new.json", "new.o"]
    by_age = softgpu(tmp_path, "cache", "prune", "--older-than", "1.5")
    assert by_age.returncode == 0 and _stems(cache) == ["new"]


def test_info_and_clear(tmp_path):
    cache = tmp_path / "softgpu"
    empty = softgpu(tmp_path, "cache")
    assert empty.returncode == 0
    assert empty.stdout == f"cache: {cache}\nentries: 0\nsize: 0 bytes\n"
    for stem in ("a", "b"):
        _entry(cache, stem, 2048, 0)
    (cache / "elsewhere").mkdir()
    info = softgpu(tmp_path, "cache", "info")
    assert info.stdout == f"cache: {cache}\nentries: 2\nsize: 4096 bytes (4.0 KiB)\n"
    cleared = softgpu(tmp_path, "cache", "clear")
    assert cleared.returncode == 0 and "removed 2 entries (4.0 KiB)" in cleared.stdout
    assert [p.name for p in cache.iterdir()] == ["elsewhere"]   # not the cache's: left alone


def test_cache_usage_errors(tmp_path):
    for args, message in ((["prune"], "prune needs --older-than DAYS and/or --max-size SIZE"),
                          (["prune", "--max-size", "5Q"], "'5Q' is not a size"),
                          (["prune", "--older-than", "-1"], "'-1' is not a number of days"),
                          (["clear", "--max-size", "1G"], "are options of prune")):
        done = softgpu(tmp_path, "cache", *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)


def test_sizes_as_people_write_them():
    assert cache_files.parse_size("500M") == 500 << 20
    assert cache_files.parse_size("1.5GiB") == 3 << 29
    assert cache_files.parse_size("4096") == 4096
    assert cache_files.parse_size("2k") == 2048


def test_the_cache_key_names_what_entries_depend_on(tmp_path):
    first, second = softgpu(tmp_path, "cache", "--key"), softgpu(tmp_path, "cache", "--key")
    assert first.returncode == 0 and first.stdout == second.stdout
    assert first.stdout.startswith("softgpu-native-") and len(first.stdout.strip()) == 39
