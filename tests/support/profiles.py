"""Device profiles for tests that need a board the shipped profiles do not describe."""
import json
import os

from tests.support.paths import ROOT


def cooperative_gfx1030(directory):
    """Path of the gfx1030 profile on a board whose driver gives the GPU GWS, so ROCr offers
    cooperative queues (written into `directory`)."""
    with open(os.path.join(ROOT, "profiles", "gfx1030.json")) as f:
        profile = json.load(f)
    profile["gpu"]["cooperative_queues"] = True
    path = os.path.join(directory, "gfx1030-cooperative.json")
    with open(path, "w") as f:
        json.dump(profile, f)
    return path
