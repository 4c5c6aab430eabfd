"""`softgpu settings [--markdown]`: every SOFTGPU_* variable (core.settings), and a check of
the environment's: one line naming the first bad value and exit status 1, as hsa_init
would refuse it.
"""
import os
import sys

from core import settings
from core.cli import command


@command("settings", help="list every SOFTGPU_* variable and check the environment's values")
def declare(parser):
    parser.add_argument("--markdown", action="store_true", help="print the README's table of settings")
    return run


def run(args):
    if args.markdown:
        sys.stdout.write(settings.markdown())
        return 0
    for s in settings.SETTINGS:
        value = os.environ.get(s.name)
        shown = f"= {value}" if value else "(unset)"
        print(f"{s.name} {shown}\n    {s.kind}; {s.doc}")
    try:
        settings.check()
    except settings.InvalidSetting as error:
        print(f"softgpu settings: {error}", file=sys.stderr)
        return 1
    return 0
