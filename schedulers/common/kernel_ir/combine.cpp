// The lowering of combines (combine.h): one way each to combine across
// lanes, rows and blocks and to scan across a block, written as plain
// kernel IR.
#include "kernel_ir/combine.h"

#include <fmt/format.h>
#include <fusebox/error.h>

#include <memory>
#include <utility>

#include "kernel_ir/print_cuda.h"

namespace fusebox::kir {

namespace {

Value combined(const CombineState& s, Value a, Value b) {
  return call(s.functor + "{}", {std::move(a), std::move(b)});
}

// State v of a thread: state[v], or the state itself when scalar.
Value at(const Value& state, int width, const Value& v) {
  return width == 0 ? state : subscript(state, v);
}

void checkState(const CombineState& s, const char* what) {
  FUSEBOX_CHECK(s.state.defined() && !s.type.spelling.empty() && !s.functor.empty(),
                "kernel IR: a {} combine needs a state, its type and its functor", what);
}

Block lowerLanes(const LanesCombine& c) {
  std::vector<CombineState> states{c.s};
  states.insert(states.end(), c.more.begin(), c.more.end());
  for (const CombineState& s : states) checkState(s, "lanes");
  FUSEBOX_CHECK(c.lanes >= 1, "kernel IR: a lanes combine over {} lanes", c.lanes);
  FUSEBOX_CHECK(states.size() <= kMaxLanesStates,
                "kernel IR: a lanes combine of {} states (at most {})", states.size(),
                kMaxLanesStates);
  Block out;
  if (c.lanes == 1) return out;
  if (lanesCombineShuffles(c.lanes)) {
    for (const CombineState& s : states)
      out.assign(s.state, call("fusebox::warpGroupReduce", {s.state, text(s.functor + "{}")},
                               {named(std::to_string(c.lanes))}));
    return out;
  }
  FUSEBOX_CHECK(c.smem.defined(), "kernel IR: a combine over {} lanes needs shared memory",
                c.lanes);
  if (c.lanes % 32 != 0 || states.size() == 1) {
    // A state alone: one warp combines the warps' partials (every warp
    // doing it cost cross-entropy 4096x32000, whose state's combine takes
    // two exponentials, 6% on an H200); other lane counts: a shared-memory
    // tree a state (block_reduce.cuh).
    for (const CombineState& s : states)
      out.assign(s.state,
                 call("fusebox::blockReduceX",
                      {s.state, text(s.functor + "{}"), reinterpretAs(pointerTo(s.type), c.smem)}));
    return out;
  }
  // Several states over whole warps: every state's warp partials, one
  // barrier, each warp combines the row's partials, one barrier.
  Block b = out.scope();
  const Type bytes = named("unsigned char");
  const Value base =
      b.declare("lane_smem", constPointerTo(bytes), reinterpretAs(pointerTo(bytes), c.smem));
  std::vector<Value> slots;
  Value offset = lit(0);
  for (size_t i = 0; i < states.size(); ++i) {
    const CombineState& s = states[i];
    slots.push_back(b.declare(fmt::format("lane_slots{}", i), constPointerTo(s.type),
                              reinterpretAs(pointerTo(s.type), i == 0 ? base : base + offset)));
    offset = i == 0 ? call("fusebox::warpSlotBytes", {}, {s.type})
                    : offset + call("fusebox::warpSlotBytes", {}, {s.type});
  }
  for (size_t i = 0; i < states.size(); ++i)
    b.evaluate(call("fusebox::storeWarpPartial",
                    {states[i].state, text(states[i].functor + "{}"), slots[i]}));
  b.syncThreads();
  for (size_t i = 0; i < states.size(); ++i)
    b.assign(states[i].state,
             call("fusebox::combineWarpPartials", {text(states[i].functor + "{}"), slots[i]},
                  {named(std::to_string(c.lanes / 32))}));
  b.syncThreads();  // the slots may be reused after the combine
  return out;
}

Block lowerRows(const RowsCombine& c) {
  checkState(c.s, "rows");
  FUSEBOX_CHECK(c.rows >= 1 && c.columns >= 1 && c.width >= 0,
                "kernel IR: a rows combine over {} rows, {} columns, {} states a thread", c.rows,
                c.columns, c.width);
  Block out;
  if (c.rows == 1 && !c.stored) return out;
  FUSEBOX_CHECK(c.smem.defined(), "kernel IR: a combine over {} rows needs shared memory", c.rows);
  Block s = out.scope();
  const Value csm =
      s.declare("csm", constPointerTo(c.s.type), reinterpretAs(pointerTo(c.s.type), c.smem));
  const Value v = var("v");
  const Value x = c.x.defined() ? c.x : threadIdx('x');
  const Value own_row = c.y.defined() ? c.y : threadIdx('y');
  const Value columns = lit(c.columns);
  FUSEBOX_CHECK(c.stride >= 1, "kernel IR: a rows combine with slots {} apart", c.stride);
  auto strided = [&](const Value& i) { return c.stride == 1 ? i : i * lit(c.stride); };
  // Row y's state v: [y][v][x].
  auto slot = [&](const Value& y) {
    return subscript(csm,
                     strided(c.width ? (y * lit(c.width) + v) * columns + x : y * columns + x));
  };
  auto perState = [&](Block& b) {
    if (c.width == 0) return b;
    return b.forLoop("v", intType(), lit(0), lit(c.width), {}, Unroll::Full, BodyStyle::SameLine);
  };
  const Value mine = at(c.s.state, c.width, v);
  if (!c.stored) {
    perState(s).assign(slot(own_row), mine);
    s.syncThreads();
  }
  // Rows in order, each row's states independent of each other: `width`
  // combines in flight a row, not one chain of rows per state.
  Block reader = c.broadcast ? s : s.ifThen(own_row == lit(0));
  perState(reader).assign(mine, subscript(csm, strided(c.width ? v * columns + x : x)));
  if (c.rows > 1) {
    Block row = reader.forLoop("y", intType(), lit(1), lit(c.rows), {}, Unroll::None,
                               c.width ? BodyStyle::Braces : BodyStyle::SameLine);
    perState(row).assign(mine, combined(c.s, mine, slot(var("y"))));
  }
  if (!c.stored) s.syncThreads();  // csm may be reused after the combine
  return out;
}

Block lowerGrid(const GridCombine& c) {
  FUSEBOX_CHECK(!c.states.empty(), "kernel IR: a grid combine of no states");
  for (const GridPartials& p : c.states) {
    checkState(p.s, "grid");
    FUSEBOX_CHECK(p.partials.defined() && p.s.identity.defined(),
                  "kernel IR: a grid combine needs each state's partials and identity");
  }
  const bool stores = c.protocol != GridProtocol::Stored;
  FUSEBOX_CHECK(c.groups.defined() && c.stride.defined() && c.own.defined() && c.reads.defined() &&
                    c.walker.defined() && c.walkers >= 1 &&
                    (!stores || (c.group.defined() && c.writes.defined() && c.sync.defined())),
                "kernel IR: a grid combine needs its groups, layout, threads and sync word");
  FUSEBOX_CHECK(c.protocol != GridProtocol::LastBlock || c.blocks.defined(),
                "kernel IR: a last-block grid combine needs the number of blocks");
  const Value v = var("v");
  // Group g's partial of this thread's element (v: of its state v).
  auto slot = [&](const GridPartials& p, const Value& g) {
    const Value element = g * c.stride + c.own;
    return subscript(p.partials, c.width ? element + v : element);
  };
  // Each thread's states, over v when they are arrays.
  auto perState = [&](Block& b, bool unrolled) {
    if (c.width == 0) return b;
    return b.forLoop("v", intType(), lit(0), lit(c.width), {},
                     unrolled ? Unroll::Full : Unroll::None, BodyStyle::SameLine);
  };
  Block out;
  // An unrolled loop needs its pragma on a line of its own.
  const bool unrolled_store = c.protocol == GridProtocol::Barrier;
  for (const GridPartials& p : c.states) {
    if (!stores) break;
    Block store =
        out.ifThen(c.writes, c.width && unrolled_store ? BodyStyle::NextLine : BodyStyle::SameLine);
    perState(store, unrolled_store).assign(slot(p, c.group), at(p.s.state, c.width, v));
  }
  if (c.protocol == GridProtocol::LastBlock)
    out.ifThen(!call("fusebox::arriveLastOfBlocks", {c.sync, c.blocks}), BodyStyle::SameLine).ret();
  else if (c.protocol == GridProtocol::Barrier)
    out.evaluate(call("fusebox::gridSync", {c.sync}));
  for (const GridPartials& p : c.states)
    perState(out, true).assign(at(p.s.state, c.width, v), p.s.identity);
  auto readGroup = [&](Block& b, const Value& g) {
    for (const GridPartials& p : c.states) {
      const Value mine = at(p.s.state, c.width, v);
      perState(b, true).assign(
          mine, combined(p.s, mine, call("fusebox::loadFromOtherBlock", {addressOf(slot(p, g))})));
    }
  };
  // A known count of a few groups a thread, unrolled: every load is issued
  // before the first combine waits on it. More: a loop the compiler unrolls
  // as far as it pays.
  const int64_t per_thread =
      c.known_groups ? (*c.known_groups + c.walkers - 1) / c.walkers : c.max_unrolled + 1;
  if (per_thread <= c.max_unrolled) {
    Block j = out.forLoop("j", intType(), lit(0), lit(per_thread), {}, Unroll::Full);
    const Value g =
        j.declare("g", indexType(), c.walker + var("j") * lit(c.walkers), {.is_const = true});
    const BodyStyle one = c.width ? BodyStyle::NextLine : BodyStyle::SameLine;
    Block read = j.ifThen(c.reads && g < c.groups, c.states.size() == 1 ? one : BodyStyle::Braces);
    readGroup(read, g);
  } else {
    Block read = out.ifThen(c.reads, BodyStyle::NextLine);
    Block walk = read.forLoop("g", indexType(), c.walker, c.groups, lit(c.walkers));
    readGroup(walk, var("g"));
  }
  return out;
}

Block lowerScan(const BlockScan& c) {
  checkState(c.s, "block scan");
  FUSEBOX_CHECK(c.smem.defined() && c.prefix.defined() && c.total.defined(),
                "kernel IR: a block scan of {} needs its shared memory, prefix and total",
                printValue(c.s.state));
  Block b;
  b.assign(c.prefix, call("fusebox::blockExclusiveScan",
                          {c.s.state, text(c.s.functor + "{}"), c.smem, c.total}));
  return b;
}

const char* protocolName(GridProtocol p) {
  switch (p) {
    case GridProtocol::LastBlock:
      return "last block";
    case GridProtocol::Barrier:
      return "barrier";
    case GridProtocol::Stored:
      return "stored";
  }
  return "";
}

std::string stateText(const CombineState& s, int width) {
  return fmt::format("{}: {}{} by {}", printValue(s.state), s.type.spelling,
                     width ? fmt::format("[{}]", width) : "", s.functor);
}

Block lowerCluster(const ClusterCombine& c) {
  checkState(c.s, "cluster");
  FUSEBOX_CHECK(c.blocks >= 1, "kernel IR: a cluster combine over {} blocks", c.blocks);
  Block out;
  if (c.blocks == 1) return out;
  FUSEBOX_CHECK(c.slots.defined() && c.slot.defined() && c.writes.defined(),
                "kernel IR: a cluster combine needs its slots, slot and writing threads");
  Block s = out.scope();
  const Value slot = s.declare("cslot", pointerTo(c.s.type), c.slots + c.slot);
  s.ifThen(c.writes, BodyStyle::SameLine).assign(subscript(slot, lit(0)), c.s.state);
  s.evaluate(call("fusebox::clusterSync", {}));
  auto peer = [&](int64_t rank) {
    return subscript(call("fusebox::clusterPeer", {slot, lit(rank)}), lit(0));
  };
  // Ranks in order from 0: every block combines the same values the same way.
  s.assign(c.s.state, peer(0));
  for (int64_t r = 1; r < c.blocks; ++r) s.assign(c.s.state, combined(c.s, c.s.state, peer(r)));
  return out;
}

}  // namespace

bool lanesCombineShuffles(int lanes) {
  return lanes >= 1 && lanes <= 32 && (lanes & (lanes - 1)) == 0;
}

int64_t lanesCombineSharedBytes(int lanes, int64_t threads, int64_t widest_state_bytes) {
  if (lanesCombineShuffles(lanes)) return 0;
  // kMaxLanesStates regions of threads / 32 slots, each rounded up to 16
  // bytes: at most a quarter of a state a thread, plus 8 x 15 bytes.
  return threads * widest_state_bytes + (lanes % 32 == 0 ? 128 : 0);
}

void combineLanes(Block& block, LanesCombine c) {
  auto spec = std::make_shared<CombineSpec>();
  spec->scope = CombineSpec::Scope::Lanes;
  spec->lanes = std::move(c);
  block.combine(std::move(spec));
}

void combineRows(Block& block, RowsCombine c) {
  auto spec = std::make_shared<CombineSpec>();
  spec->scope = CombineSpec::Scope::Rows;
  spec->rows = std::move(c);
  block.combine(std::move(spec));
}

void combineGrid(Block& block, GridCombine c) {
  auto spec = std::make_shared<CombineSpec>();
  spec->scope = CombineSpec::Scope::Grid;
  spec->grid = std::move(c);
  block.combine(std::move(spec));
}

void combineCluster(Block& block, ClusterCombine c) {
  auto spec = std::make_shared<CombineSpec>();
  spec->scope = CombineSpec::Scope::Cluster;
  spec->cluster = std::move(c);
  block.combine(std::move(spec));
}

void scanBlock(Block& block, BlockScan c) {
  auto spec = std::make_shared<CombineSpec>();
  spec->scope = CombineSpec::Scope::Scan;
  spec->scan = std::move(c);
  block.combine(std::move(spec));
}

Block lowerCombine(const CombineSpec& spec) {
  switch (spec.scope) {
    case CombineSpec::Scope::Lanes:
      return lowerLanes(spec.lanes);
    case CombineSpec::Scope::Rows:
      return lowerRows(spec.rows);
    case CombineSpec::Scope::Grid:
      return lowerGrid(spec.grid);
    case CombineSpec::Scope::Cluster:
      return lowerCluster(spec.cluster);
    case CombineSpec::Scope::Scan:
      return lowerScan(spec.scan);
  }
  return Block();
}

std::string describeCombine(const CombineSpec& spec) {
  switch (spec.scope) {
    case CombineSpec::Scope::Lanes: {
      const LanesCombine& c = spec.lanes;
      std::string states = stateText(c.s, 0);
      for (const CombineState& s : c.more) states += ", " + stateText(s, 0);
      return fmt::format("combine lanes({}) {}{}", c.lanes, states,
                         c.smem.defined() ? " through " + printValue(c.smem) : "");
    }
    case CombineSpec::Scope::Rows: {
      const RowsCombine& c = spec.rows;
      return fmt::format("combine rows({} of {} columns) {} through {}{}{}", c.rows, c.columns,
                         stateText(c.s, c.width),
                         c.smem.defined() ? printValue(c.smem) : "(no shared memory)",
                         c.stride > 1 ? fmt::format(", slots {} apart", c.stride) : "",
                         c.broadcast ? "" : ", to row 0");
    }
    case CombineSpec::Scope::Grid: {
      const GridCombine& c = spec.grid;
      std::string states;
      for (const GridPartials& p : c.states)
        states += fmt::format("{}{} at {}", states.empty() ? "" : ", ", stateText(p.s, c.width),
                              printValue(p.partials));
      // A stored combine names no group of its own: its element is group g's.
      const std::string group = c.group.defined() ? printValue(c.group) : "g";
      return fmt::format(
          "combine grid({}, group {} of {}, element {} * {} + {}, read by {} step {}) {}",
          protocolName(c.protocol), group, printValue(c.groups), group, printValue(c.stride),
          printValue(c.own), printValue(c.walker), c.walkers, states);
    }
    case CombineSpec::Scope::Cluster: {
      const ClusterCombine& c = spec.cluster;
      return fmt::format("combine cluster({} blocks) {} through {}[{}]", c.blocks,
                         stateText(c.s, 0), printValue(c.slots), printValue(c.slot));
    }
    case CombineSpec::Scope::Scan: {
      const BlockScan& c = spec.scan;
      return fmt::format("scan block (exclusive) {} through {} into {}, total {}",
                         stateText(c.s, 0), printValue(c.smem), printValue(c.prefix),
                         printValue(c.total));
    }
  }
  return "combine";
}

}  // namespace fusebox::kir
