"""`softgpu timeline TRACE -o OUT`: a JSON-lines trace (SOFTGPU_TRACE) as a Perfetto timeline.

A trace that cannot be read or holds no trace event, and an output that cannot be written,
end the command with one line naming the file and exit status 1; nothing is written then.
"""

from core import settings, timeline
from core.cli import Refused, command


@command("timeline", help="convert a JSON-lines trace (SOFTGPU_TRACE) into a Perfetto/Chrome timeline")
def declare(parser):
    parser.add_argument("trace", help="the JSON-lines trace file")
    parser.add_argument("-o", "--output", required=True, help="the timeline file to write (.json)")
    return run


def run(args):
    try:
        records = timeline.read_trace(args.trace)
    except OSError as error:
        raise Refused(f"{args.trace}: {error.strerror}") from None
    if not records:
        raise Refused(f"{args.trace}: holds no SoftGPU trace event (is it a SOFTGPU_TRACE file?)")
    try:
        settings.check_output_file("-o", args.output)
        timeline.write(records, args.output)
    except settings.InvalidSetting as error:
        raise Refused(str(error)) from None
    except OSError as error:
        raise Refused(f"{args.output}: {error.strerror}") from None
    return 0
