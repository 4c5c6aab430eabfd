"""Device memory: one reserved arena, pools and regions over it, registered host memory.

arena.py    the one mmap holding all device memory (session.arena)
pools.py    ROCr's regions/pools per agent and their budgets
host.py     locked and registered host memory outside the arena
ipc.py      IPC handles across processes (hsa_amd_ipc_memory_*, IPC signal pages)
vmem.py     the virtual memory API: reserved ranges of the arena, physical memory mapped into
            them, access per agent, shareable handles; dma-buf export of allocations
manager.py  session.memory: the HSA memory API's state, and what other parts ask of it:
  valid_ranges(agent=None) -> (starts, ends) sorted disjoint uint64 arrays of every
      address a kernel may touch (live arena allocations + locked/registered host memory);
      with a GPU agent, only memory mapped to it under ROCr's rules;
  version -> changes whenever valid_ranges() may change (cache key);
  host_ranges() -> [(start, end, kind, numpy uint8 view)] of host memory outside the arena,
      overlapping/touching ranges merged so one view serves each access; locked memory
      appears twice: at its host address and at its agent address (what lock returned);
  host_address(address) -> the host address behind an agent address of locked memory
      (any other address unchanged): what CPU-side copies must touch;
  require_accessible(address, size, what) -> InvalidArgument unless the range lies in one
      live allocation or one locked/registered host range (what copy engines may touch);
  pointer_info(address), pools_of(agent), regions_of(agent), allocate(pool, size, restricted).
"""
