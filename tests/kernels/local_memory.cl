// __local memory and work-group barriers. Work-groups are 128 work-items.
#define WG 128

kernel void wg_reduce(global const int* in, global int* sums) {
  local int s[WG];
  size_t lid = get_local_id(0);
  s[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint stride = WG / 2; stride > 0; stride >>= 1) {
    if (lid < stride) s[lid] += s[lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) sums[get_group_id(0)] = s[0];
}

// Hillis-Steele inclusive scan with two buffers.
kernel void wg_prefix_scan(global const int* in, global int* out) {
  local int buf[2][WG];
  size_t lid = get_local_id(0);
  int cur = 0;
  buf[0][lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint off = 1; off < WG; off <<= 1) {
    int v = buf[cur][lid];
    if (lid >= off) v += buf[cur][lid - off];
    buf[1 - cur][lid] = v;
    cur = 1 - cur;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = buf[cur][lid];
}

// C = A * B with 8x8 tiles; A is n x k, B is k x m (row-major), 2D range (m, n).
#define TILE 8
kernel void tiled_matmul(global const float* A, global const float* B, global float* C,
                         int n, int k, int m) {
  local float As[TILE][TILE];
  local float Bs[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_global_id(0), row = get_global_id(1);
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    As[ty][tx] = A[row * k + t + tx];
    Bs[ty][tx] = B[(t + ty) * m + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < TILE; j++) acc += As[ty][j] * Bs[j][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[row * m + col] = acc;
}

// A dynamically sized __local argument: reverse each work-group's slice.
kernel void local_arg_reverse(global const int* in, global int* out, local int* tmp) {
  size_t lid = get_local_id(0), n = get_local_size(0);
  tmp[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tmp[n - 1 - lid] * 2 + (int)lid;
}

// Byte and short __local arrays: sub-dword LDS stores and sign/zero-extending loads.
kernel void local_bytes(global const int* in, global int* out) {
  local char c[WG];
  local uchar uc[WG];
  local short s[WG];
  size_t lid = get_local_id(0), n = get_local_size(0);
  int x = in[get_global_id(0)];
  c[lid] = (char)x;
  uc[lid] = (uchar)(x >> 8);
  s[lid] = (short)(x >> 4);
  barrier(CLK_LOCAL_MEM_FENCE);
  size_t other = (lid + 1) % n;
  out[get_global_id(0)] = c[other] * 65536 + uc[other] * 16 + s[other];
}

// Work-groups of up to 1024 work-items, the last one partial: barriers among up to 32
// waves, and a tree reduction over a non-power-of-two count.
__attribute__((amdgpu_flat_work_group_size(1, 1024)))
kernel void big_partial_reduce(global const int* in, global int* out) {
  local int buf[1024];
  size_t lid = get_local_id(0), n = get_local_size(0);
  buf[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = 512; s > 0; s >>= 1) {
    if (lid < s && lid + s < n) buf[lid] += buf[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    out[2 * get_group_id(0) + 0] = buf[0];
    out[2 * get_group_id(0) + 1] = (int)n;
  }
}

// 16x16 double tiles transposed through __local memory (64-bit LDS accesses; the padded
// row length of 17 keeps the columns apart).
kernel void local_double_transpose(global const double* in, global double* out, int width) {
  local double tile[16][17];
  int x = get_global_id(0), y = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  tile[ly][lx] = in[y * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  int tx = get_group_id(1) * 16 + lx, ty = get_group_id(0) * 16 + ly;
  out[ty * get_global_size(1) + tx] = tile[lx][ly] * 2.0;
}
