"""The `softgpu` command: tools for people, one subcommand each.

    softgpu info FILE        kernels, descriptors and metadata of a code object
    softgpu run -- PROG ARGS run an unmodified HSA program on SoftGPU

Other parts add subcommands with the `command` decorator:

    from core.cli import command

    @command("disasm", help="disassemble a kernel")
    def disasm(parser):                # called once to declare arguments
        parser.add_argument("file")
        return run                     # run(args) -> exit status (None means 0)

Subcommands register when their module is imported: add the module's name to
COMMAND_MODULES, which are imported before arguments are parsed.
Entry points: the `softgpu` script (pyproject [project.scripts]) and `python3 -m core.cli`.
"""
import argparse
import importlib
import sys

_COMMANDS = {}

# Modules that define subcommands; each registers itself on import.
COMMAND_MODULES = ("core.loader.info", "core.isa.disasm_command", "core.isa.report", "core.run_command",
                   "core.timeline", "core.capture.replay")


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
        importlib.import_module(module)


def parser():
    _load_command_modules()
    top = argparse.ArgumentParser(prog="softgpu", description="SoftGPU tools")
    subparsers = top.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_text, declare) in sorted(_COMMANDS.items()):
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        sub.set_defaults(run=declare(sub))
    return top


def main(argv=None):
    args = parser().parse_args(argv)
    return args.run(args) or 0


if __name__ == "__main__":
    # Run as `python3 -m core.cli` this file is __main__; subcommands register with the
    # importable core.cli, so dispatch through that module.
    from core.cli import main as cli_main
    sys.exit(cli_main())
