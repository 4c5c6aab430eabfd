"""The C ABI edge of SoftGPU: exports, ABI numbers and the glue into core/."""
