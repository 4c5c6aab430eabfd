"""The `softgpu` command: tools for people, one subcommand each, one module each here.

    softgpu info [FILE]      the system as rocminfo lists it, or a code object's kernels
    softgpu run -- PROG ARGS run an unmodified HSA program on SoftGPU
    softgpu settings         every SOFTGPU_* variable, and whether the environment's are valid
    softgpu warm FILE|DIR... translate the kernels of code objects into the disk cache
    softgpu cache            the translation cache: where, how big; clear, prune

Holds these invariants:
- every subcommand lives in a module of this package and registers with `command`:

    from core.cli import command

    @command("disasm", help="disassemble a kernel")
    def disasm(parser):                # called once to declare arguments
        parser.add_argument("file")
        return run                     # run(args) -> exit status (None means 0)

- a bad SOFTGPU_* value (core.settings) stops every subcommand but `settings` before it
  starts, with one line naming it and exit status 2;
- a subcommand that cannot do its work prints one line naming the problem (never a
  traceback) and exits non-zero; output into a closed pipe (`softgpu info | head`) ends the
  command quietly with status 141, as the shell reports SIGPIPE.
Entry points: the `softgpu` script (pyproject [project.scripts]) and `python3 -m core.cli`.
"""
import argparse
import importlib
import os
import signal
import sys

_COMMANDS = {}

# The modules of this package that define subcommands; each registers itself on import.
COMMAND_MODULES = ("info", "disasm", "isa_report", "run", "timeline", "replay", "settings", "cache",
                   "warm")


def command(name, help):
    """Register a subcommand: the decorated function declares its arguments and returns its runner."""
    def register(declare):
        if name in _COMMANDS:
            raise RuntimeError(f"softgpu subcommand {name!r} is registered twice")
        _COMMANDS[name] = (help, declare)
        return declare
    return register


def _load_command_modules():
    for module in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{module}")


def parser():
    _load_command_modules()
    top = argparse.ArgumentParser(prog="softgpu", description="SoftGPU tools")
    subparsers = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, declare) in sorted(_COMMANDS.items()):
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(run=declare(sub))
    return top


class Refused(Exception):
    """A subcommand cannot do its work; the message is the one line to print."""


def read_code_object(path):
    """(bytes, core.loader.elf.CodeObject) of the file, parsed as the loader parses it;
    Refused names the file and the loader's reason."""
    from core.errors import HsaError
    from core.loader.elf import CodeObject
    try:
        with open(path, "rb") as f:
            data = f.read()
        return data, CodeObject(data)
    except OSError as error:
        raise Refused(f"{path}: {error.strerror}") from None
    except HsaError as error:
        raise Refused(f"{path}: not a loadable code object: {error} ({error.status.name})") from None


def main(argv=None):
    args = parser().parse_args(argv)
    from core import settings
    if args.command != "settings":          # which lists them, bad ones included
        try:
            settings.check()
        except settings.InvalidSetting as error:
            print(f"softgpu {args.command}: {error}", file=sys.stderr)
            return 2
    try:
        status = args.run(args) or 0
        sys.stdout.flush()
    except Refused as error:
        print(f"softgpu {args.command}: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader went away (`softgpu info | head`): what it wanted it has. Python would
        # complain again while flushing at exit, so stdout goes to /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE
    return status
