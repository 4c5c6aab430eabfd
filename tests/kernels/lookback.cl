#pragma OPENCL EXTENSION cl_khr_subgroups : enable
// Workgroups that publish 128-bit (value, flag) words with one 16-byte store and read other
// workgroups' words with 16-byte loads, as rocPRIM's lookback_scan_state does when a value and
// its flag need more than 8 bytes (scan_by_key's tuple<int, bool>). The GPU moves an aligned
// global_store_dwordx4 / global_load_dwordx4 as one access: a reader sees the whole old word
// or the whole new one, never a new flag beside an old value.
//
// A word is (value, value >> 32 sign, flag, ~value): readers check it is whole.

#define EMPTY 0u
#define PARTIAL 1u
#define COMPLETE 2u

typedef volatile global uint4 word_t;

uint4 make_word(int value, uint flag) {
  return (uint4)((uint)value, (uint)(value >> 31), flag, ~(uint)value);
}

bool whole(uint4 w) {
  return w.w == ~w.x && w.y == (uint)((int)w.x >> 31);
}

// A tile is a wave's items (a workgroup holds one or more tiles): a tile's sum is its
// aggregate; the look-back reads the 32 or 64 words before the tile at once, lane l the word
// l + 1 tiles back (descending addresses, as rocPRIM), until some lane sees a COMPLETE word.
// The prefix is the sum of the words up to the first COMPLETE one. `torn` counts words read
// not whole (never on a GPU).
kernel void lookback_scan(global const int *in, global int *out, word_t *state,
                          global atomic_uint *torn) {
  uint lane = get_sub_group_local_id();
  uint lanes = get_sub_group_size();
  uint tile = (uint)get_global_id(0) / lanes;
  int x = in[get_global_id(0)];
  int inclusive = sub_group_scan_inclusive_add(x);
  int aggregate = sub_group_broadcast(inclusive, lanes - 1);
  if (lane == 0)
    state[tile] = make_word(aggregate, tile == 0 ? COMPLETE : PARTIAL);
  int exclusive = 0;
  uint base = tile;
  uint bad = 0;
  while (base > 0) {
    uint4 w;
    do {
      w = lane < base ? state[base - 1 - lane] : make_word(0, COMPLETE);
    } while (sub_group_any(w.z == EMPTY));
    bad += !whole(w);
    // The lowest lane holding a COMPLETE word ends the look-back; it and the lanes below count.
    uint first = sub_group_reduce_min(w.z == COMPLETE ? lane : lanes);
    exclusive += sub_group_reduce_add(lane <= first ? (int)w.x : 0);
    if (first < lanes)
      break;
    base -= lanes;
  }
  if (lane == 0 && tile > 0)
    state[tile] = make_word(exclusive + aggregate, COMPLETE);
  out[get_global_id(0)] = exclusive + inclusive;
  if (bad)
    atomic_fetch_add_explicit(torn, bad, memory_order_relaxed, memory_scope_device);
}

// Cell k of torn_words: a[0] and a[1] (one allocation: the inline paths), or a[0] and b[0]
// (`apart`: two allocations, so an access site alternates ranges and takes the checked
// out-of-line path).
word_t *cell(word_t *a, word_t *b, uint k, uint apart) {
  return (k & 1) ? (apart ? b : a + 1) : a;
}

// Every workgroup's lane 0 stores whole words into the two cells (which start whole), and
// every workgroup reads them, `rounds` times: workgroups on other threads store while one
// reads. The reads take three shapes (the workgroup's number modulo 3): every lane the same
// cell (one address), lanes on both cells (distinct addresses), lane 0 alone. torn[shape]
// counts the loads that saw a word not whole.
kernel void torn_words(word_t *a, word_t *b, global atomic_uint *torn, uint rounds, uint apart) {
  uint lane = get_sub_group_local_id();
  uint group = get_group_id(0);
  uint shape = group % 3;
  uint seen = 0;
  for (uint k = 0; k < rounds; k++) {
    if (lane == 0)
      *cell(a, b, k + group, apart) = make_word((int)((k * 8 + group) * 0x9E3779B9u), k & 3);
    if (shape == 0) {
      seen += !whole(*cell(a, b, k, apart));
    } else if (shape == 1) {
      seen += !whole(*cell(a, b, lane, apart));
    } else if (lane == 0) {
      seen += !whole(*cell(a, b, k + 1, apart));
    }
  }
  if (seen)
    atomic_fetch_add_explicit(&torn[shape], seen, memory_order_relaxed, memory_scope_device);
}

