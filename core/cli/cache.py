"""`softgpu cache [info|clear|prune]`: the disk cache (the native tier's translations, and what
parsing each code object found), for people and CI.

    softgpu cache [info]                    where it is, how many entries, how big
    softgpu cache clear                     remove every entry
    softgpu cache prune --older-than DAYS   remove entries unused for more than DAYS days
    softgpu cache prune --max-size 500M     remove the least recently used down to 500 MiB
    softgpu cache --key                     one word naming what cached entries depend on

Holds these invariants:
- the cache is the one a dispatch uses (core.isa.native.compiler.cache_dir(): the same
  XDG_CACHE_HOME rules), read as files (core.isa.native.cache_files);
- `--key` prints the key of an empty translation: the digest of everything an entry's key
  holds besides the kernel (what its ISA engine's sources hold, LLVM, the CPU), so a CI cache
  keyed by it is restored only where its entries can be used, and in every fresh clone of the
  same sources;
- a cache that cannot be read or changed exits 1 with one line naming the path and why; prune
  without a limit is a usage error (exit 2).
"""
import argparse

from core.cli import Refused, command
from core.isa.native import cache_files


@command("cache", help="show, prune or clear the native tier's translation cache")
def declare(parser):
    parser.add_argument("action", nargs="?", choices=("info", "clear", "prune"), default="info",
                        help="info (default): where the cache is, its entries and size; clear: "
                             "remove every entry; prune: remove old entries (--older-than, --max-size)")
    parser.add_argument("--older-than", type=_days, metavar="DAYS",
                        help="prune: remove entries last used more than DAYS days ago")
    parser.add_argument("--max-size", type=_size, metavar="SIZE",
                        help="prune: remove least recently used entries until the cache takes at "
                             "most SIZE (e.g. 500M, 2G; K, M, G, T are powers of 1024)")
    parser.add_argument("--key", action="store_true",
                        help="print a key naming what cached translations depend on (the "
                             "engine's sources, LLVM, the CPU), for CI caches")
    usage_error = parser.error

    def run(args):
        if args.key:
            return _key()
        limits = args.older_than is not None or args.max_size is not None
        if args.action == "prune" and not limits:
            usage_error("prune needs --older-than DAYS and/or --max-size SIZE")
        if args.action != "prune" and limits:
            usage_error("--older-than and --max-size are options of prune")
        try:
            return _ACTIONS[args.action](args)
        except OSError as error:
            raise Refused(f"{error.filename or _directory()}: {error.strerror}") from None
    return run


def _days(text):
    try:
        days = float(text)
    except ValueError:
        days = -1
    if not days >= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days (0 or more)")
    return days


def _size(text):
    try:
        return cache_files.parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _directory():
    from core.isa.native.compiler import cache_dir
    return cache_dir()


def _key():
    from core.isa.native.compiler import cache_key
    print(f"softgpu-native-{cache_key([])[:24]}")


def _info(args):
    found = cache_files.entries(_directory())
    size = sum(e.size for e in found)
    print(f"cache: {_directory()}")
    print(f"entries: {len(found)}")
    print(f"size: {size} bytes" + (f" ({cache_files.human(size)})" if size >= 1024 else ""))


def _clear(args):
    found = cache_files.entries(_directory())
    freed = sum(cache_files.remove(e) for e in found)
    print(f"removed {len(found)} entries ({cache_files.human(freed)}) from {_directory()}")


def _prune(args):
    removed = cache_files.prune(_directory(), args.older_than, args.max_size)
    left = cache_files.entries(_directory())
    print(f"removed {len(removed)} entries ({cache_files.human(sum(e.size for e in removed))}); "
          f"{len(left)} left ({cache_files.human(sum(e.size for e in left))}) in {_directory()}")


_ACTIONS = {"info": _info, "clear": _clear, "prune": _prune}
