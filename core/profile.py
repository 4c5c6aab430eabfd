"""Device profiles: which GPU SoftGPU pretends to be (profiles/*.json).

Holds these invariants:
- SOFTGPU_PROFILE names a file (a path, or anything ending in .json) or a profile under
  profiles/ by name; the default is gfx1030;
- a Profile exists only once its data passed every rule of profiles/schema.json and the
  cross-field rules below: no key the schema does not declare ("$comment" aside), no
  missing field, every value of its kind and range;
- a broken profile raises InvalidProfile whose message names the file and the field,
  e.g. "profile /x/p.json: field 'gpu.compute_units' must be a positive integer";
- a machine may hold GPUs of several kinds: `other_gpus` adds `count` GPUs of another
  profile's board (its gpu section and device memory), after the profile's own; the
  referenced profile is loaded and checked like any other, and may not itself add more;
- the CPU agent describes the host as ROCr does, except for the fields a profile pins
  (HOST_CPU_FIELDS and memory.system_bytes), so CI can make its answers reproducible.
"""
import json
import os
import re

from core import host_cpu, settings
from core.errors import InvalidProfile
from core.isa_info import ISA_NAME_PREFIX, known_isa_names
from core.profile_files import PROFILES_DIR, resolve_path
from core.target import parse_isa_name

SCHEMA = os.path.join(PROFILES_DIR, "schema.json")
DEFAULT = settings.BY_NAME["SOFTGPU_PROFILE"].default
COMMENT = "$comment"
# The CPU agent's fields a profile may pin; unpinned ones describe the host (core.host_cpu).
HOST_CPU_FIELDS = ("name", "compute_units", "max_clock_mhz", "caches")


class Profile:
    def __init__(self, path, data, others=()):
        self.path = path
        self.data = data
        self.others = tuple(others)     # (Profile, count) for each entry of other_gpus

    def __getitem__(self, key):
        return self.data[key]

    @property
    def name(self):
        return self.data["name"]

    @property
    def cpu(self):
        """The CPU section, each field the profile does not pin read from the host."""
        host = host_cpu.description()
        return {**{key: host[key] for key in HOST_CPU_FIELDS}, **self.data["cpu"]}

    @property
    def gpu(self):
        return self.data["gpu"]

    @property
    def gpu_count(self):
        return self.data["gpu_count"]

    @property
    def device_bytes(self):
        """Device memory of each GPU of the profile's own board."""
        return self.data["memory"]["device_bytes"]

    @property
    def system_bytes(self):
        """The CPU agent's memory: pinned by the profile, or the host's."""
        return self.data["memory"].get("system_bytes") or host_cpu.description()["system_bytes"]

    def gpu_boards(self):
        """(gpu section, device bytes) of every GPU in agent order: the profile's own
        `gpu_count`, then those `other_gpus` adds."""
        boards = [(self.gpu, self.device_bytes)] * self.gpu_count
        for other, count in self.others:
            boards += [(other.gpu, other.device_bytes)] * count
        return boards

    @property
    def arena_bytes(self):
        return sum(size for _, size in self.gpu_boards()) + self.system_bytes

    def quirk(self, name):
        return self.data["quirks"][name]


def load(name=None, nested=False):
    path = resolve_path(name or settings.get("SOFTGPU_PROFILE"))
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise InvalidProfile(f"profile {path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        raise InvalidProfile(f"profile {path}: not JSON: {e}")
    validate(data, path)
    others = []
    for i, entry in enumerate(data.get("other_gpus", ())):
        if nested:
            raise InvalidProfile(f"profile {path}: field 'other_gpus' may not be used in a "
                                 "profile another one's other_gpus names")
        try:
            others.append((load(entry["profile"], nested=True), entry["count"]))
        except InvalidProfile as e:
            raise InvalidProfile(f"profile {path}: field 'other_gpus[{i}].profile': {e}")
    return Profile(path, data, others)


def validate(data, where):
    """Check `data` against the schema and the cross-field rules; raise InvalidProfile."""
    with open(SCHEMA) as f:
        schema = json.load(f)
    problem = _check({"type": "object", "fields": schema["fields"]}, data, "") or _cross_field_problem(data)
    if problem:
        raise InvalidProfile(f"profile {where}: {problem}")


# ---- the schema's field kinds ---------------------------------------------------------

def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _expectation(spec):
    """What a value of this spec must be, in words ("a positive integer", ...)."""
    kind = spec["type"]
    if kind == "integer":
        low, high = spec.get("min"), spec.get("max")
        pow2 = " power of two" if spec.get("power_of_two") else ""
        if "multiple_of" in spec:
            pow2 = f" multiple of {spec['multiple_of']}"        # the two are never combined
        if high is None:
            return {0: f"a non-negative integer{pow2}", 1: f"a positive integer{pow2}"}.get(
                low, f"an integer{pow2} >= {low}")
        return f"an integer{pow2} in [{low}, {high}]"
    if kind == "string":
        if "pattern" in spec:
            return f"a string of {spec['pattern_text']}"
        low, high = spec.get("min_length", 0), spec.get("max_length")
        return "a string" if high is None else f"a string of {low} to {high} characters"
    if kind == "boolean":
        return "true or false"
    if kind == "enum":
        return "one of " + ", ".join(json.dumps(v) for v in spec["values"])
    if kind == "object":
        return "an object"
    if "length" in spec:
        return f"a list of exactly {spec['length']} items"
    return f"a list of {spec.get('min_items', 0)} to {spec['max_items']} items"


def _fits(spec, value):
    kind = spec["type"]
    if kind == "integer":
        return (_is_int(value) and spec.get("min", value) <= value <= spec.get("max", value)
                and (not spec.get("power_of_two") or (value > 0 and value & (value - 1) == 0))
                and value % spec.get("multiple_of", 1) == 0)
    if kind == "string":
        if not isinstance(value, str):
            return False
        if "pattern" in spec:
            return re.fullmatch(spec["pattern"], value) is not None
        return spec.get("min_length", 0) <= len(value) <= spec.get("max_length", len(value))
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "enum":
        return any(type(value) is type(v) and value == v for v in spec["values"])
    if kind == "object":
        return isinstance(value, dict)
    if not isinstance(value, list):
        return False
    if "length" in spec:
        return len(value) == spec["length"]
    return spec.get("min_items", 0) <= len(value) <= spec["max_items"]


def _check(spec, value, path):
    """The first problem with `value` at `path`, or None."""
    if not _fits(spec, value):
        return f"field '{path}' must be {_expectation(spec)}" if path else "the profile must be a JSON object"
    if spec["type"] == "object":
        fields = spec["fields"]
        for key in value:
            if key != COMMENT and key not in fields:
                return f"unknown field '{_join(path, key)}'"
        for key, field in fields.items():
            if key == COMMENT:
                continue
            if key not in value:
                if not field.get("optional"):
                    return f"field '{_join(path, key)}' is missing"
                continue
            problem = _check(field, value[key], _join(path, key))
            if problem:
                return problem
    if spec["type"] == "array":
        for index, item in enumerate(value):
            problem = _check(spec["items"], item, f"{path}[{index}]")
            if problem:
                return problem
    return None


def _join(path, key):
    return f"{path}.{key}" if path else key


# ---- rules across fields ---------------------------------------------------------------

def _cross_field_problem(data):
    gpu = data["gpu"]
    if gpu["isa"] not in known_isa_names():
        return f"field 'gpu.isa' must be an ISA name ROCr knows, such as {ISA_NAME_PREFIX}gfx1030"
    target = parse_isa_name(gpu["isa"])
    processor = target.processor
    if target.is_generic:
        return f"field 'gpu.isa' names a generic target ({processor}); an agent is one processor"
    if gpu["name"] != processor:
        return f"field 'gpu.name' must be the ISA's processor name {processor!r} (ROCr names a GPU agent so)"
    for i, dim in enumerate(gpu["workgroup_max_dim"]):
        if dim > gpu["workgroup_max_size"]:
            return (f"field 'gpu.workgroup_max_dim[{i}]' ({dim}) must not exceed "
                    f"'gpu.workgroup_max_size' ({gpu['workgroup_max_size']})")
    for i, dim in enumerate(gpu["grid_max_dim"]):
        if dim > gpu["grid_max_size"]:
            return (f"field 'gpu.grid_max_dim[{i}]' ({dim}) must not exceed "
                    f"'gpu.grid_max_size' ({gpu['grid_max_size']})")
    if gpu["queue_min_size"] > gpu["queue_max_size"]:
        return (f"field 'gpu.queue_min_size' ({gpu['queue_min_size']}) must not exceed "
                f"'gpu.queue_max_size' ({gpu['queue_max_size']})")
    if gpu["wavefront_size"] == 64 and not gpu["wave64_supported"]:
        return "field 'gpu.wave64_supported' must be true when 'gpu.wavefront_size' is 64"
    for agent in ("cpu", "gpu"):
        seen = set()
        for i, cache in enumerate(data[agent].get("caches", ())):
            if cache["level"] in seen:
                return f"field '{agent}.caches[{i}].level' repeats level {cache['level']}"
            seen.add(cache["level"])
    return None
