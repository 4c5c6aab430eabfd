"""Progress of long dispatches on stderr: workgroups done of total, rate, time left.

Holds three invariants:
- nothing is shown for a dispatch that ends within SHOW_AFTER seconds, and nothing ever
  unless stderr is a terminal or SOFTGPU_PROGRESS=1 (never into a pipe or a CI log by
  default; SOFTGPU_PROGRESS=0 turns it off on a terminal too);
- the dispatch itself never waits for the display: a watcher thread samples its count of
  finished workgroups, and the bar is closed before the dispatch returns;
- with the display off, a dispatch pays one environment lookup and no thread.
"""
import contextlib
import sys
import threading

from core import settings

SHOW_AFTER = 2.0       # seconds a dispatch runs before its bar appears
REFRESH = 0.5          # seconds between samples


def wanted():
    setting = settings.get("SOFTGPU_PROGRESS")
    if setting is not None:
        return setting
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def shown(name, total, done):
    """Show the progress of a dispatch of `name` with `total` workgroups while the body runs;
    `done()` returns how many have finished."""
    if not wanted() or total <= 1:
        yield
        return
    finished = threading.Event()
    watcher = threading.Thread(target=_watch, args=(name, total, done, finished),
                               name="softgpu-progress", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


def _watch(name, total, done, finished):
    if finished.wait(SHOW_AFTER):
        return
    from tqdm import tqdm
    with tqdm(total=total, desc=f"softgpu {name}", unit="wg", file=sys.stderr, leave=False,
              dynamic_ncols=True) as bar:
        while not finished.wait(REFRESH):
            bar.update(done() - bar.n)
        bar.update(done() - bar.n)
