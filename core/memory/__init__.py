"""Device memory: one reserved arena, pools and regions over it, registered host memory."""
