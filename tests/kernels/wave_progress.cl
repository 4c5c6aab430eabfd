// Waves of a workgroup run side by side on a GPU, so a wave that has a long computation
// ahead of it cannot overtake the others by hundreds of instructions. Kernels come to rely
// on it without knowing: rocSOLVER's syevj_small_kernel sums residuals from LDS right after
// a barrier, and the next Jacobi rotation overwrites that LDS without a barrier between.
// This kernel has the same shape: every work-item sums the whole local array, then spends
// `work` iterations computing what it stores over its own element. On a GPU every wave has
// read the array long before any wave stores into it, so each sum is the sum of the inputs.
kernel void lagging_readers(global const uint* in, global uint* sums, global uint* results,
                            int work) {
  local uint shared[256];
  size_t lid = get_local_id(0);
  shared[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint i = 0; i < get_local_size(0); i++)
    sum += shared[i];
  uint x = sum;
  for (int k = 0; k < work; k++)
    x = x * 1664525u + 1013904223u;
  shared[lid] = x;              // no barrier before: only the waves' progress orders it
  barrier(CLK_LOCAL_MEM_FENCE);
  sums[get_global_id(0)] = sum;
  results[get_global_id(0)] = shared[lid];
}

// The same without a loop between: straight-line code after a barrier is one wave's turn
// unless a store cuts it. Every work-item reads the pivot right after the barrier, and
// work-item 0 overwrites it with a function of it a few dozen instructions later, with no
// barrier between (rocSOLVER's potf2_kernel_small stores the pivot's square root so). On a
// GPU every wave has read the pivot before wave 0 stores, so each sees the input.
#define XORSHIFT(x) ((x) ^= (x) << 13, (x) ^= (x) >> 17, (x) ^= (x) << 5)
kernel void pivot_readers(global const uint* in, global uint* seen) {
  local uint pivot;
  size_t lid = get_local_id(0);
  if (lid == 0)
    pivot = in[get_group_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint p = pivot;
  uint x = p;
  XORSHIFT(x); XORSHIFT(x); XORSHIFT(x); XORSHIFT(x);
  XORSHIFT(x); XORSHIFT(x); XORSHIFT(x); XORSHIFT(x);
  if (lid == 0)
    pivot = x;                  // no barrier before: only the waves' progress orders it
  barrier(CLK_LOCAL_MEM_FENCE);
  seen[get_global_id(0)] = p;
}
