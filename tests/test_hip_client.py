"""AMD's HIP runtime (libamdhip64 5.2.3, a real HSA client written by others) runs
hipcc-built programs on SoftGPU: it must load our library, find the GPU and run its
kernels (and its own blit kernels for memsets and copies) with correct results, answer
bad requests with HIP's errors, and abort on GPU faults the way HIP does on ROCr.

Each program under tests/hip/ checks its own results and prints "<NAME> OK"; here we
also require that SoftGPU recorded no internal error and no unsupported export."""
import json
import os
import re

import numpy as np
import pytest

from tests.kernels.checks import EXACT, Ulps
from tests.support import hipprog
from tests.support.profiles import cooperative_gfx1030
from tests.support.paths import ROOT

HIP_TESTS = os.path.join(ROOT, "tests", "hip")
# clang-15 as hipcc drives it, for device code alone (Debian's HIP layout under /usr).
_DEVICE_ONLY = ["clang-15", "-x", "hip", "--rocm-path=/usr",
                "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
                "--cuda-device-only", "--offload-arch=gfx1030", "-O2", "-c"]


def _cached(name, command, suffix=""):
    """Build tests/hip/<name> with `command` (output path appended) unless built already."""
    return hipprog.build(os.path.join(HIP_TESTS, name), command, suffix)


def hip_program(name, opt="-O2", arch="gfx1030"):
    return hipprog.program(os.path.join(HIP_TESTS, name), opt, arch=arch)


run, events = hipprog.run, hipprog.events


def check_ok(name, *args, tmp_path, marker, opt="-O2", arch="gfx1030", **environ):
    """Run a self-checking HIP program; it must print `marker` and leave a clean trace."""
    return hipprog.check_ok(hip_program(name, opt, arch), *args, tmp_path=tmp_path, marker=marker,
                            **environ)


def test_hip_runtime_runs_kernels_on_softgpu(tmp_path):
    recorded = check_ok("hip_client.cpp", tmp_path=tmp_path, marker="HIP CLIENT OK")
    assert any(e["event"] == "dispatch" for e in recorded)


@pytest.mark.parametrize("name,marker,opt", [
    ("hip_client.cpp", "HIP CLIENT OK", "-O2"), ("hip_kernels.cpp", "HIP KERNELS OK", "-O2"),
    ("hip_kernels.cpp", "HIP KERNELS OK", "-O0"), ("hip_streams.cpp", "HIP STREAMS OK", "-O2"),
    ("hip_memory.cpp", "HIP MEMORY OK", "-O2")])
def test_hip_programs_built_for_gfx90a_run_on_the_mi210_profile(name, marker, opt, tmp_path):
    """The same programs built with --offload-arch=gfx90a: HIP finds the MI210
    (gfx90a:sramecc+:xnack-) and runs their wave64 code, and its own blit kernels, on it."""
    args = ("gfx90a",) if name == "hip_client.cpp" else ()
    recorded = check_ok(name, *args, tmp_path=tmp_path, marker=marker, opt=opt, arch="gfx90a",
                        SOFTGPU_PROFILE="mi210")
    assert any(e["event"] == "dispatch" for e in recorded)


def test_hip_5_2_does_not_know_the_rx7900xtx(tmp_path):
    """HIP 5.2.3 (the runtime installed here) has no gfx1100 in its ISA table: it refuses the
    RX 7900 XTX's agent ("Unsupported HSA device") and the program finds no device (HIP then
    crashes freeing what its half-made device never set: a HIP 5.2 defect). HIP runtimes that
    list gfx1100 run on this profile; HIP device code for gfx1100 runs in the kernel suite
    (tests/kernels/*.hip)."""
    proc = run(hip_program("hip_client.cpp", arch="gfx1100"), "gfx1100", trace=tmp_path / "t.jsonl",
               SOFTGPU_PROFILE="rx7900xtx", AMD_LOG_LEVEL="1")
    assert "Unsupported HSA device gfx1100 (PCI ID 744c) for ISA amdgcn-amd-amdhsa--gfx1100" \
        in proc.stderr, proc.stderr
    assert proc.returncode != 0 and "HIP CLIENT OK" not in proc.stdout


def test_hip_streams_events_callbacks_graphs(tmp_path):
    """Cross-stream waits, event/stream queries that see unfinished work, many kernels in
    flight, callbacks, stream wait/write value, graphs, dynamic shared memory, hipMemGetInfo."""
    recorded = check_ok("hip_streams.cpp", tmp_path=tmp_path, marker="HIP STREAMS OK")
    kernels = {e.get("kernel") for e in recorded if e["event"] == "dispatch"}
    # HIP implements stream memory operations with its own blit kernels: they ran here.
    assert {"__amd_rocclr_streamOpsWait", "__amd_rocclr_streamOpsWrite"} <= kernels


def test_hip_memory_pitched_pinned_registered_managed(tmp_path):
    """2D/3D copies (async_copy_rect), pinned and registered host memory used by kernels,
    managed memory, device-to-device copies, typed memsets, __device__ symbols."""
    recorded = check_ok("hip_memory.cpp", tmp_path=tmp_path, marker="HIP MEMORY OK")
    # HIP sends pitched 2D/3D copies to hsa_amd_memory_async_copy_rect.
    assert any(e["event"] == "async" and e["op"] == "copy_rect" for e in recorded)


def test_kernels_with_more_than_32_kib_of_static_lds(tmp_path):
    """HIP's dispatch packet holds static plus dynamic LDS: a kernel with 40 KiB of static
    shared memory, and one with 32 KiB static and 16 KiB dynamic, get exactly that."""
    recorded = check_ok("hip_lds.cpp", tmp_path=tmp_path, marker="HIP LDS OK")
    assert not [e for e in recorded if e["event"] == "launch_warning"]
    assert {"_Z10big_staticPi", "_Z18static_and_dynamicPi"} <= {
        e.get("kernel") for e in recorded if e["event"] == "dispatch"}


def test_cooperative_launch_syncs_the_whole_grid(tmp_path):
    """HIP sees cooperative queues, initialises GWS with its own kernel on the cooperative
    queue, and grid.sync() (ds_gws_barrier) holds every workgroup until all arrive."""
    trace = tmp_path / "trace.jsonl"
    proc = run(hip_program("hip_cooperative.cpp"), trace=trace,
               SOFTGPU_PROFILE=cooperative_gfx1030(tmp_path))
    assert proc.returncode == 0 and "HIP COOPERATIVE OK" in proc.stdout, proc.stdout + proc.stderr
    recorded = events(trace)
    assert not [e for e in recorded if e["event"] in ("internal", "unsupported")]
    kernels = [e.get("kernel") for e in recorded if e["event"] == "dispatch"]
    assert "__amd_rocclr_gwsInit" in kernels and "_Z11grid_roundsPjS_S_i" in kernels


@pytest.mark.parametrize("opt", ["-O2", "-O0"])
def test_hip_device_code_features(opt, tmp_path):
    """HIP device code through HIP's headers and device libraries: warp shuffles and
    ballots, float/double/64-bit atomics (CAS loops on gfx1030), math functions, templates,
    structs by value, 3D blocks, cooperative-groups tiles, 64-bit integer arithmetic.
    -O0 too, as programs are debugged: stack in scratch, real calls into the device libraries."""
    check_ok("hip_kernels.cpp", tmp_path=tmp_path, marker="HIP KERNELS OK", opt=opt)


@pytest.fixture(scope="module", params=["bundled", "elf"])
def module_code_object(request):
    flags = _DEVICE_ONLY + (["--no-gpu-bundle-output"] if request.param == "elf" else [])
    return _cached("hip_module_kernels.cpp", flags, suffix=f".{request.param}.co")


def test_hip_module_api_loads_clang_code_objects(module_code_object, tmp_path):
    """hipModuleLoadData/hipModuleLoad, GetFunction/GetGlobal, LaunchKernel with parameter
    arrays and packed buffers, for a clang-15 code object, bundled or bare ELF; a gfx90a
    code object is refused (HIP checks it against the ISA SoftGPU's agent reports)."""
    foreign = _cached("hip_module_kernels.cpp",
                      [a.replace("gfx1030", "gfx90a") for a in _DEVICE_ONLY] + ["--no-gpu-bundle-output"],
                      suffix=".gfx90a.co")
    check_ok("hip_module.cpp", module_code_object, foreign, tmp_path=tmp_path, marker="HIP MODULE OK")


def test_hip_error_paths_return_hip_errors(tmp_path):
    """Bad devices, out of memory (HIP's own limit and SoftGPU's pool budget), copies out of
    bounds or to unknown pointers, bad frees, oversized blocks: errors, then the device works."""
    recorded = check_ok("hip_errors.cpp", tmp_path=tmp_path, marker="HIP ERRORS OK")
    refused = [e for e in recorded if e["event"] == "error"]
    assert [e["api"] for e in refused] == ["hsa_amd_memory_pool_allocate"], refused


def test_hip_two_gpus_peer_copies_and_access(tmp_path):
    """A profile with two GPUs: HIP sees two devices; kernels on each, peer copies, and a
    kernel writing its peer's memory once peer access is enabled."""
    with open(os.path.join(ROOT, "profiles", "gfx1030.json")) as f:
        profile = json.load(f)
    profile["gpu_count"] = 2
    path = tmp_path / "two_gpus.json"
    path.write_text(json.dumps(profile))
    trace = tmp_path / "trace.jsonl"
    proc = run(hip_program("hip_multi_gpu.cpp"), trace=trace, SOFTGPU_PROFILE=path)
    assert proc.returncode == 0 and "HIP MULTI GPU OK" in proc.stdout, proc.stdout + proc.stderr
    bad = [e for e in events(trace) if e["event"] in ("internal", "unsupported")]
    assert not bad, bad


@pytest.mark.parametrize("queue_errors", ["abort", "continue"])
@pytest.mark.parametrize("fault, status, code", [
    ("memory", "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION", "0x29"),
    ("trap", "HSA_STATUS_ERROR_EXCEPTION", "0x1016"),
])
def test_hip_aborts_on_kernel_fault(fault, status, code, queue_errors, tmp_path):
    """HIP's queue error callback aborts the process naming the status, as on ROCr.
    SOFTGPU_QUEUE_ERRORS=continue changes nothing here: it only concerns queues without a
    callback, and HIP registers one on every queue."""
    trace = tmp_path / "trace.jsonl"
    proc = run(hip_program("hip_fault.cpp"), fault, trace=trace, timeout=120,
               SOFTGPU_QUEUE_ERRORS=queue_errors)
    assert proc.returncode == -6, proc.stdout + proc.stderr       # SIGABRT
    assert "launching" in proc.stdout and "survived" not in proc.stdout
    # HIP prints hsa_status_string's "<status>: <meaning>", then the code.
    message = re.search(r"callbackQueue aborting with error : (\S+): (.+) code: (0x[0-9a-f]+)", proc.stderr)
    assert message and message.group(1, 3) == (status, code), proc.stderr
    faults = [e for e in events(trace) if e["event"] == "queue_error"]
    assert len(faults) == 1
    report = faults[0]["report"]
    if fault == "memory":
        assert report["kernel"] == "_Z8store_toPii" and report["address"] == 0x10000
        # SoftGPU names the kernel, instruction and address, as ROCr prints its fault line.
        assert "_Z8store_toPii" in proc.stderr and "address=0x10000" in proc.stderr
    else:
        assert report["kernel"] == "_Z7trap_ifPKi" and report["instruction"].startswith("s_trap")


def test_hip_device_printf_reaches_stdout(tmp_path):
    """HIP's printf is a hostcall: device code rings a doorbell at hsa_signal_t.handle + 8,
    so signal handles must be amd_signal_t addresses that kernels may touch, as in ROCr."""
    trace = tmp_path / "trace.jsonl"
    proc = run(hip_program("hip_printf.cpp"), trace=trace, timeout=120)
    lines = proc.stdout.splitlines()
    for i in range(4):
        assert f"thread {i} of 4: {100 + i} {0.5 * i:.2f} {'odd' if i % 2 else 'even'}" in lines
    assert "HIP PRINTF DONE hipSuccess" in lines
    assert proc.returncode == 0


def _hip_image_inputs(rng):
    """The inputs hip_images.cpp reads, in its order (W=7, H=5, D=3, K=64)."""
    from tests.kernels.image_cases import coordinates
    w, h, d = 7, 5, 3
    texels = rng.uniform(-2, 2, (h, w, 4)).astype(np.float32)
    pixels = rng.integers(0, 256, (h, w, 4)).astype(np.uint8)
    volume = rng.uniform(-2, 2, (d, h, w, 4)).astype(np.float32)
    normalized = coordinates(rng, (w, h), True)
    unnormalized = coordinates(rng, (w, h), False)
    coords3 = np.concatenate([coordinates(rng, (w, h, d), True), np.zeros((64, 1), np.float32)], axis=1)
    layered = np.concatenate([normalized, rng.integers(0, d, (64, 1)).astype(np.float32),
                              np.zeros((64, 1), np.float32)], axis=1)
    return texels, pixels, volume, normalized, unnormalized, coords3, layered


@pytest.mark.parametrize("opt", ["-O2", "-O0"])
def test_hip_arrays_textures_and_surfaces(opt, tmp_path):
    """hipMemcpy2DToArray / hipMemcpy3D to and from arrays (HIP's blit kernels: image_store,
    image_load), tex2D in every address and filter mode with normalized and unnormalized
    coordinates, normalized-float reads of uchar4, tex3D, tex2DLayered, tex1Dfetch on linear
    memory, surf2Dread/surf2Dwrite: each against the numpy reference of the sampling rules."""
    from softgpu_shim.hsa_abi import (HsaExtImageChannelOrder as Order, HsaExtImageChannelType as Type,
                                      HsaExtSamplerAddressingMode as Address)
    from tests.kernels import image_reference as ref
    rng = np.random.default_rng(14)
    inputs = _hip_image_inputs(rng)
    texels, pixels, volume, normalized, unnormalized, coords3, layered = inputs
    source, result = tmp_path / "in.bin", tmp_path / "out.bin"
    source.write_bytes(b"".join(np.ascontiguousarray(a).tobytes() for a in inputs))
    check_ok("hip_images.cpp", source, result, tmp_path=tmp_path, marker="HIP IMAGES OK", opt=opt)
    got = np.fromfile(result, np.float32)

    plane = ref.colors(texels[None], Order.RGBA, Type.FLOAT)
    expected, tolerances = [], []
    modes = {"wrap": Address.REPEAT, "clamp": Address.CLAMP_TO_EDGE, "mirror": Address.MIRRORED_REPEAT,
             "border": Address.CLAMP_TO_BORDER}
    samples = [(m, linear, True) for m in ("wrap", "clamp", "mirror", "border") for linear in (False, True)] + \
              [(m, linear, False) for m in ("clamp", "border") for linear in (False, True)]
    for mode, linear, is_normalized in samples:
        coords = normalized if is_normalized else unnormalized
        expected.append(ref.sample(plane, coords, normalized=is_normalized, address=modes[mode], linear=linear,
                                   order=Order.RGBA))
        tolerances.append((f"tex2D {mode} {'linear' if linear else 'point'} "
                           f"{'normalized' if is_normalized else 'texel'} coordinates", 1 if linear else 0))
    expected.append(ref.sample(ref.colors(pixels[None], Order.RGBA, Type.UNORM_INT8), normalized, normalized=True,
                               address=Address.CLAMP_TO_EDGE, linear=True, order=Order.RGBA))
    tolerances.append(("tex2D of uchar4 as normalized floats", 1))
    expected.append(ref.sample(ref.colors(volume, Order.RGBA, Type.FLOAT), coords3[:, :3], normalized=True,
                               address=Address.CLAMP_TO_EDGE, linear=True, order=Order.RGBA))
    tolerances.append(("tex3D trilinear", 1))
    expected.append(ref.sample(ref.colors(volume, Order.RGBA, Type.FLOAT), layered[:, :3], normalized=True,
                               address=Address.REPEAT, linear=False, order=Order.RGBA, arrayed=True))
    tolerances.append(("tex2DLayered", 0))
    expected.append(texels.reshape(-1)[:64])
    tolerances.append(("tex1Dfetch", 0))
    expected.append(texels * np.float32(2) + np.float32(1))
    tolerances.append(("surf2Dread/surf2Dwrite", 0))
    offset = 0
    for want, (what, ulps) in zip(expected, tolerances):
        want = np.ravel(want).astype(np.float32)
        part = got[offset:offset + want.size]
        offset += want.size
        (Ulps(ulps) if ulps else EXACT).assert_matches(part, want, what)
    assert offset == got.size


def test_a_wave_looping_20_million_times_runs_to_its_end(tmp_path):
    """Issue 23 D4: no instruction limit kills a valid kernel (native tier, the default)."""
    check_ok("hip_long_loop.cpp", tmp_path=tmp_path, marker="HIP LONG LOOP OK",
             SOFTGPU_ENGINE="native")
