"""Instructions that change no wave state: the ones both tiers run as nothing, and the ones
that only order memory.

Guarantees:
- NO_OPS change nothing a kernel can observe in a software GPU: waits on counters that are
  always zero here (every access completes in its instruction), scheduling hints, priority,
  trace and performance hints, instruction-cache invalidation, padding;
- MEMORY_FENCES are what a compiler emits only to make a memory fence (acquire: the cache
  invalidates; release: the store-counter wait and the write-backs, as AMDGPU's memory model
  lowers fences and atomics with ordering): there is no cache to act on, so each tier gives
  them only the ordering its execution needs.
"""
NO_OPS = (
    "s_nop", "s_waitcnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt",
    "s_waitcnt_depctr", "s_clause", "s_inst_prefetch", "s_setprio", "s_icache_inv",
    "s_ttracedata", "s_ttracedata_imm", "s_incperflevel", "s_decperflevel", "s_wakeup",
    "s_version", "s_wait_idle", "s_setkill", "s_atc_probe", "s_atc_probe_buffer", "v_nop",
    "v_clrexcp", "v_pipeflush", "ds_nop", "s_delay_alu",
    # gfx12's waits, one per counter (s_wait_storecnt orders stores: MEMORY_FENCES), and its
    # barrier's signal half: a wave stops at s_barrier_wait, which is s_barrier here.
    "s_wait_loadcnt", "s_wait_samplecnt", "s_wait_bvhcnt", "s_wait_expcnt", "s_wait_dscnt",
    "s_wait_kmcnt", "s_wait_loadcnt_dscnt", "s_wait_event", "s_barrier_signal",
    "s_prefetch_inst", "s_prefetch_inst_pc_rel", "s_prefetch_data", "s_buffer_prefetch_data",
    "s_prefetch_data_pc_rel",
)
MEMORY_FENCES = (
    "s_waitcnt_vscnt", "s_dcache_inv", "s_dcache_wb", "s_gl1_inv", "buffer_gl0_inv",
    "buffer_gl1_inv", "buffer_wbinvl1", "buffer_wbinvl1_vol", "buffer_wbl2", "buffer_invl2",
    "buffer_inv", "s_wait_storecnt", "s_wait_storecnt_dscnt", "global_inv", "global_wb",
    "global_wbinv",
    # gfx9's scalar cache: the volatile forms, and the discard of lines scalar stores made
    # dirty (no scalar store is held in a cache here, so nothing is lost)
    "s_dcache_inv_vol", "s_dcache_wb_vol", "s_dcache_discard", "s_dcache_discard_x2",
)
