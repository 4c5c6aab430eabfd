"""`softgpu replay DIR`: run captured dispatches again (core.replay) and compare.

Exits 0 when every dispatch replayed identically, 1 when one differs, 2 when DIR holds no
capture or a capture cannot be replayed (one line naming it).
"""
import os
import sys

from core.capture import store
from core.errors import HsaError
from core.replay import replay
from core.cli import command


@command("replay", help="run captured dispatches (softgpu run --capture) again and compare the results")
def declare(parser):
    parser.add_argument("directory", help="a capture directory, or one dispatch's folder in it")
    parser.add_argument("--engine", choices=("native", "interp"), help="the engine tier (SOFTGPU_ENGINE)")
    return run


def run(args):
    folders = store.captures(args.directory) if os.path.isdir(args.directory) else []
    if not folders:
        sys.stderr.write(f"softgpu replay: {args.directory} holds no capture\n")
        return 2
    same = True
    for folder in folders:
        try:
            lines, identical = replay(folder, args.engine)
        except (OSError, ValueError, KeyError, HsaError) as error:
            sys.stderr.write(f"softgpu replay: {folder}: cannot replay: {error}\n")
            return 2
        print("\n".join(lines))
        same = same and identical
    return 0 if same else 1
