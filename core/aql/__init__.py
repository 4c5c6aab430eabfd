"""AQL packet processing: one processor thread per queue, async copies and functions."""
