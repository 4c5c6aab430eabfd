// Divergent control flow and data-dependent loops.
kernel void collatz_steps(global const uint* start, global uint* steps) {
  size_t i = get_global_id(0);
  uint n = start[i];
  uint count = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n >> 1;
    count++;
  }
  steps[i] = count;
}

kernel void divergent_switch(global const int* a, global int* out) {
  size_t i = get_global_id(0);
  int x = a[i];
  int r;
  switch (x & 7) {
    case 0: r = x * 3; break;
    case 1: r = x - 17; break;
    case 2: r = x ^ 0x5a5a; break;
    case 3: r = x >> 2; break;
    case 5: r = -x; break;
    default: r = x + 1000; break;
  }
  if (x > 0) {
    if (x & 0x100) r += 1;
    else r -= 1;
  }
  out[i] = r;
}

// Lanes leave at different points; out and more keep their prefilled values past a return.
kernel void early_return(global const int* a, global int* out, global int* more) {
  size_t i = get_global_id(0);
  int x = a[i];
  if (x < 0) return;
  out[i] = x * 2;
  if (x % 3 == 0) return;
  more[i] = x + 1;
}

// Nested loops with break and continue over a 32-element row per work-item.
kernel void loops_break_continue(global const int* rows, global const int* limit,
                                 global int* out) {
  size_t i = get_global_id(0);
  global const int* row = rows + 32 * i;
  int sum = 0, first = -1;
  for (int j = 0; j < 32; j++) {
    int v = row[j];
    if (v % 5 == 0) continue;
    if (v > limit[i]) { first = j; break; }
    int k = v;
    while (k > 0) { sum += k & 1; k >>= 1; }
  }
  out[2 * i + 0] = sum;
  out[2 * i + 1] = first;
}
