"""Running kernels from a Python program without a queue: the harness the tests and the
benchmarks share (launch: one kernel on numpy arguments; images: image and sampler
arguments made through the library's exports)."""
