"""Where the device profiles' files are, and which file a profile name means.

Holds these invariants: a checkout's profiles/ wins, else an installed wheel's
softgpu_shim/profiles/ (build_shim.py copies them there); a name with a path separator or
ending in .json is a file path as given, any other name is a profile under that directory
and raises InvalidProfile, listing the known names, when no such profile exists.
"""
import os

from core.errors import InvalidProfile

# The checkout, or site-packages for a wheel: core/ and softgpu_shim/ stand side by side in both.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CHECKOUT = os.path.join(_ROOT, "profiles")
PROFILES_DIR = _CHECKOUT if os.path.isdir(_CHECKOUT) else os.path.join(_ROOT, "softgpu_shim", "profiles")


def available():
    """Names of the profiles under profiles/."""
    return sorted(f[:-5] for f in os.listdir(PROFILES_DIR) if f.endswith(".json") and f != "schema.json")


def resolve_path(name):
    if os.sep in name or name.endswith(".json"):
        return name
    path = os.path.join(PROFILES_DIR, name + ".json")
    if name == "schema" or not os.path.exists(path):
        raise InvalidProfile(f"profile {name!r}: no such profile (profiles/ has {', '.join(available())}; "
                             "SOFTGPU_PROFILE may also be a path to a .json file)")
    return path
