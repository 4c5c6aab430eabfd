"""Helpers the tests share: building C programs against the official headers,
running them on SoftGPU, and compiling real kernels with clang-15."""
