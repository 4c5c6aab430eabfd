"""The ISA engine: wave-batch execution of gfx1030 machine code on numpy (see DESIGN.md)."""
