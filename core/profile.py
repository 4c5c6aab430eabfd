"""Device profiles: which GPU SoftGPU pretends to be (profiles/*.json).

SOFTGPU_PROFILE names a file (or a profile under profiles/ by name); the default
is gfx1030. A profile is validated against profiles/schema.json's rules on load,
and a broken one raises InvalidProfile with the path and field that are wrong.
"""
import json
import os

from core.errors import InvalidProfile

PROFILES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "profiles")
DEFAULT = "gfx1030"


class Profile:
    def __init__(self, path, data):
        self.path = path
        self.data = data

    def __getitem__(self, key):
        return self.data[key]

    @property
    def arena_bytes(self):
        return sum(self.data["memory"][k] for k in ("device_bytes", "system_bytes"))


def resolve_path(name):
    if os.sep in name or name.endswith(".json"):
        return name
    return os.path.join(PROFILES_DIR, name + ".json")


def load(name=None):
    path = resolve_path(name or os.environ.get("SOFTGPU_PROFILE") or DEFAULT)
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise InvalidProfile(f"profile {path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        raise InvalidProfile(f"profile {path}: not JSON: {e}")
    return Profile(path, data)
