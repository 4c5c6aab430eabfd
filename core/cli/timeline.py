"""`softgpu timeline TRACE -o OUT`: a JSON-lines trace (SOFTGPU_TRACE) as a Perfetto timeline.

A trace that cannot be read or holds no trace event, and an output that cannot be written,
end the command with one line naming the file and exit status 1; nothing is written then.
"""
import sys

from core import settings, timeline
from core.cli import command


@command("timeline", help="convert a JSON-lines trace (SOFTGPU_TRACE) into a Perfetto/Chrome timeline")
def declare(parser):
    parser.add_argument("trace", help="the JSON-lines trace file")
    parser.add_argument("-o", "--output", required=True, help="the timeline file to write (.json)")
    return run


def run(args):
    try:
        records = timeline.read_trace(args.trace)
    except OSError as error:
        print(f"softgpu timeline: {args.trace}: {error.strerror}", file=sys.stderr)
        return 1
    if not records:
        print(f"softgpu timeline: {args.trace}: holds no SoftGPU trace event (is it a SOFTGPU_TRACE file?)",
              file=sys.stderr)
        return 1
    try:
        settings.check_output_file("-o", args.output)
        timeline.write(records, args.output)
    except settings.InvalidSetting as error:
        print(f"softgpu timeline: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"softgpu timeline: {args.output}: {error.strerror}", file=sys.stderr)
        return 1
    return 0
