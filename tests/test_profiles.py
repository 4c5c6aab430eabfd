"""Device profiles: every shipped profile is valid, each kind of mistake gets a message that
names the file and the field, and hsa_init refuses a broken profile with a clear message."""
import copy
import json
import os

import pytest

from core import profile, profile_files
from core.errors import InvalidProfile
from softgpu_shim.hsa_abi import Status
from tests.support import cprog
from tests.support.paths import ROOT

GFX1030 = os.path.join(ROOT, "profiles", "gfx1030.json")


def gfx1030():
    with open(GFX1030) as f:
        return json.load(f)


@pytest.mark.parametrize("name", profile_files.available())
def test_shipped_profiles_are_valid(name):
    loaded = profile.load(name)
    assert loaded.name == name
    assert loaded.arena_bytes == loaded.device_bytes * loaded.gpu_count + loaded.system_bytes


def test_default_profile_is_gfx1030(monkeypatch):
    monkeypatch.delenv("SOFTGPU_PROFILE", raising=False)
    loaded = profile.load()
    assert loaded.path == GFX1030
    assert loaded.gpu["compute_units"] == 72
    assert loaded.arena_bytes == 17163091968 + host_memory_bytes()


def host_memory_bytes():
    with open("/proc/meminfo") as f:
        return int(f.readline().split()[1]) * 1024      # "MemTotal:  N kB"


def test_unpinned_cpu_fields_describe_the_host(tmp_path):
    """A profile pins each CPU field it names; the others (and the memory) are the host's."""
    data = gfx1030()
    data["cpu"]["name"] = "Pinned CPU"
    path = tmp_path / "half.json"
    path.write_text(json.dumps(data))
    loaded = profile.load(str(path))
    assert loaded.cpu["name"] == "Pinned CPU"
    assert loaded.cpu["compute_units"] == os.cpu_count()
    assert loaded.system_bytes == host_memory_bytes()
    assert profile.load("generic").cpu["name"] == "SoftGPU Host CPU"
    assert profile.load("generic").system_bytes == 1 << 30


def test_softgpu_profile_takes_a_name_or_a_path(monkeypatch, tmp_path):
    monkeypatch.setenv("SOFTGPU_PROFILE", "generic")
    assert profile.load().gpu["compute_units"] == 8
    path = tmp_path / "mine.json"
    data = gfx1030()
    data["gpu"]["compute_units"] = 60
    path.write_text(json.dumps(data))
    monkeypatch.setenv("SOFTGPU_PROFILE", str(path))
    assert profile.load().gpu["compute_units"] == 60


def _set(data, path, value):
    *parents, last = path
    for key in parents:
        data = data[key]
    if value is DELETE:
        del data[last]
    else:
        data[last] = value


DELETE = object()

BROKEN = [
    (("gpu", "compute_units"), 0, "field 'gpu.compute_units' must be an integer in [1, 1024]"),
    (("gpu", "compute_units"), "72", "field 'gpu.compute_units' must be an integer in [1, 1024]"),
    (("gpu", "compute_units"), True, "field 'gpu.compute_units' must be an integer in [1, 1024]"),
    (("gpu", "compute_units"), DELETE, "field 'gpu.compute_units' is missing"),
    (("gpu", "compute_unit"), 72, "unknown field 'gpu.compute_unit'"),
    (("gpu", "workgroup_max_size"), 1000, "field 'gpu.workgroup_max_size' must be an integer power of two in [1, 1024]"),
    (("gpu", "lds_bytes"), 65535, "field 'gpu.lds_bytes' must be an integer multiple of 1024 in [1024, 262144]"),
    (("gpu", "lds_bytes"), 163841, "field 'gpu.lds_bytes' must be an integer multiple of 1024 in [1024, 262144]"),
    (("gpu", "lds_bytes"), 263168, "field 'gpu.lds_bytes' must be an integer multiple of 1024 in [1024, 262144]"),
    (("gpu", "wavefront_size"), 16, "field 'gpu.wavefront_size' must be one of 32, 64"),
    (("gpu", "wave64_supported"), 1, "field 'gpu.wave64_supported' must be true or false"),
    (("gpu", "marketing_name"), "x" * 64, "field 'gpu.marketing_name' must be a string of 1 to 63 characters"),
    (("gpu", "uuid"), "GPU-1", "field 'gpu.uuid' must be a string of 16 lowercase hexadecimal digits"),
    (("gpu", "workgroup_max_dim"), [1024, 1024], "field 'gpu.workgroup_max_dim' must be a list of exactly 3 items"),
    (("gpu", "workgroup_max_dim", 1), 0, "field 'gpu.workgroup_max_dim[1]' must be an integer in [1, 1024]"),
    (("gpu", "caches", 1, "level"), 5, "field 'gpu.caches[1].level' must be an integer in [1, 4]"),
    (("gpu", "caches"), [], "field 'gpu.caches' must be a list of 1 to 4 items"),
    (("gpu", "images", "max_2d"), [100, 100], "field 'gpu.images.max_2d[0]' must be an integer in [16384, 4294967295]"),
    (("memory", "device_bytes"), -1, "field 'memory.device_bytes' must be an integer in [1048576, 281474976710656]"),
    (("cpu",), DELETE, "field 'cpu' is missing"),
    (("cpu",), [], "field 'cpu' must be an object"),
    (("fidelity",), "cycle", "field 'fidelity' must be one of \"functional\""),
    (("gpu_count",), 9, "field 'gpu_count' must be an integer in [1, 8]"),
    (("quirks", "rocr_wavefront_size_64"), "yes", "field 'quirks.rocr_wavefront_size_64' must be true or false"),
    # Rules across fields.
    (("gpu", "isa"), "amdgcn-amd-amdhsa--gfx1030:xnack-",
     "field 'gpu.isa' must be an ISA name ROCr knows, such as amdgcn-amd-amdhsa--gfx1030"),
    (("gpu", "name"), "gfx1031", "field 'gpu.name' must be the ISA's processor name 'gfx1030' (ROCr names a GPU agent so)"),
    # ROCr registers generic ISAs for code objects; an agent's ISA is one processor's.
    (("gpu", "isa"), "amdgcn-amd-amdhsa--gfx10-3-generic",
     "field 'gpu.isa' names a generic target (gfx10-3-generic); an agent is one processor"),
    (("gpu", "workgroup_max_size"), 512, "field 'gpu.workgroup_max_dim[0]' (1024) must not exceed 'gpu.workgroup_max_size' (512)"),
    (("gpu", "grid_max_size"), 65536, "field 'gpu.grid_max_dim[0]' (4294967295) must not exceed 'gpu.grid_max_size' (65536)"),
    (("gpu", "queue_min_size"), 262144, "field 'gpu.queue_min_size' (262144) must not exceed 'gpu.queue_max_size' (131072)"),
    (("gpu", "caches", 2, "level"), 1, "field 'gpu.caches[2].level' repeats level 1"),
]


@pytest.mark.parametrize("path,value,message", BROKEN, ids=[m for _, _, m in BROKEN])
def test_each_broken_field_gets_a_precise_message(tmp_path, path, value, message):
    data = gfx1030()
    _set(data, path, value)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(InvalidProfile) as error:
        profile.load(str(broken))
    assert str(error.value) == f"profile {broken}: {message}"


def test_wave64_default_needs_wave64_support():
    data = gfx1030()
    data["gpu"].update(wavefront_size=64, wave64_supported=False)
    with pytest.raises(InvalidProfile, match="'gpu.wave64_supported' must be true when 'gpu.wavefront_size' is 64"):
        profile.validate(data, "p")


def test_comments_and_optional_fields_are_accepted(tmp_path):
    data = gfx1030()
    data["gpu"]["$comment"] = "notes"
    data["links"] = {"pcie": {"numa_distance": 20}}
    del data["description"]
    path = tmp_path / "commented.json"
    path.write_text(json.dumps(data))
    loaded = profile.load(str(path))
    # Loaded as written: the comment is kept (ignored), the optional link field is there and
    # the GPU is the one described.
    assert loaded.gpu["$comment"] == "notes" and loaded.data["links"]["pcie"]["numa_distance"] == 20
    assert "description" not in loaded.data and loaded.gpu == data["gpu"]
    # The same place without the "$" is an unknown field: the comment is accepted by name.
    data["gpu"]["comment"] = data["gpu"].pop("$comment")
    with pytest.raises(InvalidProfile, match="unknown field 'gpu.comment'"):
        profile.validate(data, "p")


def test_unreadable_unparsable_and_unknown_profiles(tmp_path):
    with pytest.raises(InvalidProfile, match=r"profile /nonexistent/p.json: cannot read: No such file"):
        profile.load("/nonexistent/p.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(InvalidProfile, match=r"bad.json: not JSON: "):
        profile.load(str(bad))
    with pytest.raises(InvalidProfile, match=r"profile 'gfx9999': no such profile \(profiles/ has generic, gfx1030"):
        profile.load("gfx9999")
    with pytest.raises(InvalidProfile, match="no such profile"):
        profile.load("schema")
    top = tmp_path / "list.json"
    top.write_text("[]")
    with pytest.raises(InvalidProfile, match="the profile must be a JSON object"):
        profile.load(str(top))


def test_hsa_init_fails_on_a_broken_profile_with_a_clear_message(tmp_path):
    data = gfx1030()
    data["gpu"]["compute_units"] = -4
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    trace = tmp_path / "trace.jsonl"
    proc = cprog.run("system_init.c", SOFTGPU_PROFILE=str(broken), SOFTGPU_TRACE=str(trace))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ROCr's answer when it cannot bring up the device topology.
    assert f"hsa_init 0x{Status.ERROR_OUT_OF_RESOURCES:x}" in proc.stdout
    message = f"profile {broken}: field 'gpu.compute_units' must be an integer in [1, 1024]"
    assert f"softgpu: hsa_init failed: {message}" in proc.stderr
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    init = [e for e in events if e["api"] == "hsa_init" and e["event"] != "api"]      # not the call's own slice
    assert len(init) == 1
    assert {"event": "error", "status": Status.ERROR_OUT_OF_RESOURCES, "message": message}.items() <= init[0].items()


def test_hsa_init_uses_the_profile_named_by_softgpu_profile():
    proc = cprog.run("system_init.c", SOFTGPU_PROFILE="generic")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "hsa_init 0x0\ngpu compute units 8 bdfid 256 uuid GPU-0000000000000001\n" in proc.stdout


def test_unknown_profile_name_fails_hsa_init():
    proc = cprog.run("system_init.c", SOFTGPU_PROFILE="nosuchgpu")
    assert f"hsa_init 0x{Status.ERROR_OUT_OF_RESOURCES:x}" in proc.stdout
    assert "profile 'nosuchgpu': no such profile" in proc.stderr


def test_two_gpus_from_one_profile(tmp_path):
    data = copy.deepcopy(gfx1030())
    data["gpu_count"] = 2
    data["memory"]["device_bytes"] = 1 << 30
    path = tmp_path / "two.json"
    path.write_text(json.dumps(data))
    proc = cprog.run("system_init.c", SOFTGPU_PROFILE=str(path))
    assert ("gpu compute units 72 bdfid 768 uuid GPU-5f3c9a1e0d2b4c67\n"
            "gpu compute units 72 bdfid 1024 uuid GPU-5f3c9a1e0d2b4c68\n") in proc.stdout, proc.stdout + proc.stderr
