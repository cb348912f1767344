// Combines as kernel IR nodes: per-thread reduction states combined across
// the lanes of a block's row, across the rows of a block, across the blocks
// of a grid or of a thread-block cluster, and a block's exclusive scan. A scheduler states what is
// combined and where; one lowering each (combine.cpp) writes how, so every kernel combines the same
// way and a better combine is written once. The CUDA printer prints a combine as its lowering;
// `--dump kernel_ir` shows it as one node.
//
// A state is a scalar (`width` 0) or `width` values state[0..width) (a
// `fusebox::Array` or C array), combined by the device runtime's functor:
// `F{}(a, b)` (fusebox::ReduceSum, ...). Every combine is in a fixed order,
// so a kernel's result does not depend on thread timing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernel_ir/kernel_ir.h"

namespace fusebox::kir {

struct CombineState {
  Value state{};          // the variable holding it
  Type type{};            // one state's type ("float", "fusebox::Welford<float>")
  std::string functor{};  // F in F{}(a, b)
  Value identity{};       // the state of no elements
};

// Across threadIdx.x: `lanes` is blockDim.x; every lane gets its row's
// result. Up to 32 lanes (a power of two) combine by warp shuffles, more
// through `smem` (shared memory for blockDim.x * blockDim.y states).
// Whether a lanes combine over `lanes` lanes shuffles within a warp (up to
// 32, a power of two) rather than going through shared memory: what sizes
// the shared memory a kernel declares for it.
bool lanesCombineShuffles(int lanes);

//
// `more`: states combined with `s` in the same barriers (at most
// kMaxLanesStates in all): beyond a warp, with lanes a multiple of 32, every
// warp stores its partial of each state, the block passes one barrier and
// every warp combines its row's partials (a second barrier frees `smem`):
// two barriers for all, where a state alone takes three (one warp combines
// the partials and shares the result: fewer instructions when there is
// one state to combine). `smem` then
// holds a region a state, each a slot a warp of the block rounded up to 16
// bytes: lanesCombineSharedBytes() is enough for up to kMaxLanesStates.
inline constexpr size_t kMaxLanesStates = 8;
// The shared memory a lanes combine over `lanes` lanes of a block of
// `threads` needs, its widest state `widest_state_bytes`: none when it
// shuffles, else a state a thread (and for whole warps up to 128 bytes for
// the regions' rounding).
int64_t lanesCombineSharedBytes(int lanes, int64_t threads, int64_t widest_state_bytes);
struct LanesCombine {
  CombineState s;
  int lanes = 1;
  Value smem{};
  std::vector<CombineState> more{};
};

// Across the block's rows, in order of row: thread (x, y) of `rows` rows
// of `columns` threads (by default x = threadIdx.x, y = threadIdx.y: rows
// is blockDim.y, columns blockDim.x) holds `width` states (0: one scalar).
// Through `smem` (rows * columns * max(width, 1) states), laid out
// [y][v][x] so that a warp's accesses hit consecutive banks. `broadcast`:
// every row gets the result (else row 0 only, the others keep their own).
// `stored`: the states are in `smem` already, in that layout, and the block
// synchronized since: only the read, into `state` (no barrier before or
// after; the caller owns the memory). `stride`: states between two
// consecutive slots of that layout (a caller's slots interleaved with
// others', as vectors).
struct RowsCombine {
  CombineState s;
  int rows = 1;
  int columns = 1;
  int width = 1;
  Value smem{};
  bool broadcast = true;
  Value x{};
  Value y{};
  bool stored = false;
  int stride = 1;
};

// Across the blocks of a grid, through partials in global memory: the
// blocks fall in `groups` groups (e.g. the splits of a reduced extent), and
// group g stores its states at partials[g * stride + own (+ v)]. Then:
//   LastBlock: each block takes a ticket (`sync`, a zeroed word; `blocks`
//              blocks share it); the last to arrive reads every group's
//              partials and the others return. Needs no co-resident blocks.
//   Barrier:   every block waits at a grid barrier (`sync`; a cooperative
//              launch) and then reads every group's partials.
//   Stored:    the caller stored the partials (in its own pattern) and the
//              grid passed a barrier since: only the read (no `writes`,
//              `sync`).
// The reading threads `walker`, `walker + walkers`, ... take groups in that
// order (a known count of at most `max_unrolled` groups a thread: an
// unrolled loop, every load issued before the first combine waits on it);
// the caller combines their results across the block next (a LanesCombine
// or RowsCombine).
enum class GridProtocol { LastBlock, Barrier, Stored };

struct GridPartials {
  CombineState s;
  Value partials{};  // a pointer to the state type
};

struct GridCombine {
  GridProtocol protocol = GridProtocol::LastBlock;
  std::vector<GridPartials> states;
  int width = 0;                        // 0: scalar states; else state[v], v < width
  Value group{};                        // this block's group
  Value groups{};                       // the number of groups
  std::optional<int64_t> known_groups;  // the same when the kernel knows it
  Value stride{};                       // between two groups' partials
  Value own{};                          // this thread's first element in a group's partials
  Value writes{};                       // the threads that store this block's partials
  Value reads{};                        // the threads whose element exists
  Value walker{};
  int walkers = 1;
  Value sync{};    // unsigned int*: the ticket or the barrier word
  Value blocks{};  // LastBlock: how many blocks share the ticket
  // Past it a loop: more unrolled steps cost code and registers for
  // nothing (on an H200, max over 32768x1024 split over 512 blocks ran 20%
  // slower with 64 a thread unrolled).
  int64_t max_unrolled = 8;
};

// Across the blocks of a thread-block cluster (LaunchConfig::cluster), in
// order of rank, through distributed shared memory: the threads `writes`
// (one a row) store the row's state at slots[slot] in their block's dynamic
// shared memory, the cluster waits at its barrier, and every thread reads
// slots[slot] of each block of the cluster (fusebox::clusterPeer), so every
// block gets the same result. `slots` alternates between two regions from
// one combine to the next (the caller's choice): a block then rewrites a
// region only after the next combine's barrier, which every block passes
// after its reads of it, so one barrier a combine suffices. The kernel
// calls fusebox::clusterSync once more before it returns.
struct ClusterCombine {
  CombineState s;
  int blocks = 1;  // the cluster's size
  Value slots{};   // pointer to the state type, in dynamic shared memory
  Value slot{};    // this thread's row's slot
  Value writes{};
};

// Across threadIdx.x, in order of x: an exclusive scan of one state a
// thread (blockDim.x a multiple of 32, at most 1024). `prefix` gets the
// combination of the states of the threads before this one (the identity
// on thread 0), `total` the block's; through `smem` (one state a warp).
// Warp shuffles, then the warps' totals scanned by the first warp.
struct BlockScan {
  CombineState s;
  Value smem{};
  Value prefix{};  // assigned
  Value total{};   // assigned
};

// The combine a Combine statement holds (one of the five).
struct CombineSpec {
  enum class Scope { Lanes, Rows, Grid, Cluster, Scan } scope = Scope::Lanes;
  LanesCombine lanes;
  RowsCombine rows;
  GridCombine grid;
  ClusterCombine cluster;
  BlockScan scan;
};

// Builders: the combine as one statement of `block`.
void combineLanes(Block& block, LanesCombine c);
void combineRows(Block& block, RowsCombine c);
void combineGrid(Block& block, GridCombine c);
void combineCluster(Block& block, ClusterCombine c);
void scanBlock(Block& block, BlockScan c);

// The lowering: the combine as plain statements. Checks what the spec
// needs (a power-of-two lane count for shuffles, shared memory when used,
// a grid combine's states all present).
Block lowerCombine(const CombineSpec& spec);
// One line for the dump: "combine lanes(128) acc0: float by fusebox::ReduceSum".
std::string describeCombine(const CombineSpec& spec);

}  // namespace fusebox::kir
