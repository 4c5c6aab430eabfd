"""Dispatch capture and replay: a failing dispatch, reproduced without its program.

`recorder` saves, for each dispatch SOFTGPU_CAPTURE asks for, everything needed to run it
again alone (the code object, the kernel, the packet, the kernarg bytes, and every byte of
device memory the kernel can reach, before and after, at its own addresses); `replay` puts
that memory back at the same addresses in a fresh session, runs the dispatch on either
engine tier and compares the result with the captured after-state. `store` is the on-disk
format both share.
"""
