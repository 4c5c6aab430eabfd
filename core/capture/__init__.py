"""Dispatch capture: a failing dispatch, kept so it can be reproduced without its program.

`recorder` saves, for each dispatch SOFTGPU_CAPTURE asks for, everything needed to run it
again alone (the code object, the kernel, the packet, the kernarg bytes, and every byte of
device memory the kernel can reach, before and after, at its own addresses); `store` is the
on-disk format. Replaying a capture starts a session of its own, so it stands above the
runtime, beside the other tools (core/replay.py); capture itself wraps the engine below the
packet processor.
"""
