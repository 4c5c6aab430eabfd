"""The library's generated HSA headers (softgpu_shim/include/hsa, ci/gen/vendor_headers.py) are
ABI-true: compiled by the ROCm 6.4 root's gcc, one probe program (ci/gen/abi_probe.py, made
from the official ROCr 6.4.3 headers' syntax tree) prints the same size, alignment, member
offset and size, bit-field position and enumerator value against ours as against the official
headers, and accepts every 6.4.3 prototype beside ours -- for everything 6.4.3 declares except
the few facts the newest ROCr (which ours follow) renamed or rewrote, listed here.

Without the root this skips on a developer's machine and fails in CI; the probe's own power
to see a difference is tested with the machine's gcc."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.support import rocm64
from tests.support.paths import ROOT
from tests.support.tools import missing, require_tool

GEN = os.path.join(ROOT, "ci", "gen")
OURS = os.path.join(ROOT, "softgpu_shim", "include")

# What ROCr 6.4.3 declares and the newest ROCr declares otherwise or not at all, so our headers
# too: the AIE ERT command types (rewritten: start_kernel_data's cu_mask became an 8-byte
# pdi_addr), amd_queue_t's reserved words (renumbered: scratch_backing_memory_byte_size is now
# reserved3, the same eight bytes, and reserved4 shrank to the gap before
# queue_inactive_signal, whose offset is unchanged) and amd_signal_t's
# legacy_hardware_doorbell_ptr (a union member dropped; the union keeps its size). Each entry
# names facts by a substring of their key; they are exactly EXCEPTED_FACTS facts.
EXCEPTED = ("HSA_AMD_AIE_ERT_CMD_TYPE_", "hsa_amd_aie_ert_cmd_type_t",
            "hsa_amd_aie_ert_start_kernel_header_t", "hsa_amd_aie_ert_command_chain_data_t",
            "hsa_amd_aie_ert_start_kernel_data_t", "amd_queue_t.scratch_backing_memory_byte_size",
            "amd_queue_t.reserved3", "amd_queue_t.reserved4", "amd_signal_t.legacy_hardware_doorbell_ptr")
EXCEPTED_FACTS = 39


def _probe():
    sys.path.insert(0, GEN)
    try:
        import abi_probe
    finally:
        sys.path.remove(GEN)
    return abi_probe


def _root():
    if os.geteuid() != 0:
        missing("the ROCm 6.4 root needs root (chroot)")
    if not os.path.exists(os.path.join(rocm64.STAMPS, "packages")):
        missing(f"no ROCm 6.4 root at {rocm64.ROOT_DIR}: run ci/rocm64_root.sh")


def _in_root(*command):
    proc = rocm64.run(*command, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_generated_headers_state_every_fact_of_rocr_643():
    _root()
    probe = _probe()
    official_include = rocm64.host_path("/usr/include")
    official = probe.probes(official_include)
    ours = probe.probes(OURS)
    absent = [fact for fact in official if fact not in ours]
    shared = [fact for fact in official if fact in ours]

    folder = f"{rocm64.WORK}/abi_headers"
    shutil.rmtree(rocm64.host_path(folder), ignore_errors=True)
    shutil.copytree(OURS, rocm64.host_path(f"{folder}/include"))
    with open(rocm64.host_path(f"{folder}/probe.c"), "w") as f:
        f.write(probe.program(official_include, only=set(shared)))
    _in_root("gcc", "-std=gnu11", "-o", f"{folder}/official", f"{folder}/probe.c")
    _in_root("gcc", "-std=gnu11", "-I", f"{folder}/include", "-o", f"{folder}/ours", f"{folder}/probe.c")
    expected, actual = _in_root(f"{folder}/official"), _in_root(f"{folder}/ours")

    printed = probe.facts(expected)
    assert len(printed) == len([f for f in shared if not f.startswith("prototype ")])
    assert printed["size hsa_kernel_dispatch_packet_t"] == "64"
    assert printed["align amd_queue_t"] == "64"
    differing = [d.split(": ")[0] for d in probe.differences(expected, actual)]
    excepted = absent + differing
    assert [fact for fact in excepted if not any(name in fact for name in EXCEPTED)] == []
    assert all(any(name in fact for fact in excepted) for name in EXCEPTED)
    assert len(excepted) == EXCEPTED_FACTS, excepted


def _build(tmp_path, include, name, source):
    gcc = require_tool("gcc", "the probe is a C program")
    exe = str(tmp_path / name)
    proc = subprocess.run([gcc, "-std=gnu11", "-I", include, "-o", exe, source], capture_output=True, text=True)
    return proc, exe


def test_the_probe_sees_a_changed_alignment_value_or_prototype(tmp_path):
    probe = _probe()
    source = tmp_path / "probe.c"
    source.write_text(probe.program(OURS))
    proc, exe = _build(tmp_path, OURS, "ours", str(source))
    assert proc.returncode == 0, proc.stderr
    expected = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    assert probe.differences(expected, expected) == []

    planted = tmp_path / "planted"
    shutil.copytree(OURS, planted)

    def plant(header, old, new):
        path = planted / "hsa" / header
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))

    plant("amd_hsa_queue.h", "struct __attribute__((aligned(64))) amd_queue_s", "struct amd_queue_s")
    plant("hsa.h", "HSA_STATUS_ERROR_FATAL = 0x1026", "HSA_STATUS_ERROR_FATAL = 0x1027")
    proc, exe = _build(tmp_path, str(planted), "planted_probe", str(source))
    assert proc.returncode == 0, proc.stderr
    actual = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    found = probe.differences(expected, actual)
    assert any(d.startswith("align amd_queue_t: 64 != ") for d in found), found
    assert "enum HSA_STATUS_ERROR_FATAL: 4134 != 4135" in found

    plant("hsa.h", "hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, void *value);",
          "hsa_status_t hsa_system_get_info(hsa_system_info_t attribute, int *value);")
    proc, _ = _build(tmp_path, str(planted), "prototype", str(source))
    assert proc.returncode != 0
    assert re.search(r"conflicting types for .hsa_system_get_info", proc.stderr), proc.stderr


def test_a_fact_the_headers_lack_is_a_difference():
    probe = _probe()
    assert probe.differences("size a_t\t8\nenum B\t1\n", "size a_t\t8\n") == ["enum B: 1 != None"]
    assert probe.differences("size a_t\t8\n", "size a_t\t8\nenum B\t1\n") == []
