"""SoftGPU's runtime: vendor-neutral, pure Python (no cffi types cross into it)."""
