#include "view_analysis.h"

#include <fmt/format.h>
#include <fusebox/checked_math.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <unordered_map>

namespace fusebox::no_op {

bool isViewOp(OpType op) {
  switch (op) {
    case OpType::Set:
    case OpType::SegmentSet:
    case OpType::Broadcast:
    case OpType::Squeeze:
    case OpType::Expand:
    case OpType::Reshape:
    case OpType::Permute:
      return true;
    default:
      return false;
  }
}

std::string joinInts(const std::vector<int64_t>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

SegmentFacts analyzeSegment(const Fusion& segment) {
  const std::vector<Expr*> exprs = segment.tensorExprs();
  std::unordered_map<const Expr*, int64_t> index_of;
  for (size_t i = 0; i < exprs.size(); ++i) index_of[exprs[i]] = static_cast<int64_t>(i);
  auto exprIndex = [&](const Expr* e) {
    auto it = index_of.find(e);
    return it == index_of.end() ? static_cast<int64_t>(exprs.size()) : it->second;
  };
  const auto& inputs = segment.inputs();
  SegmentFacts facts;
  for (const Val* out : segment.outputs()) {
    OutputSource source;
    if (!out->isTensor()) {
      facts.outputs.push_back(source);
      continue;
    }
    // Walk back through view ops until a segment input or a computing expression.
    const Val* v = out;
    std::vector<int64_t> chain;
    while (true) {
      auto in = std::find(inputs.begin(), inputs.end(), v);
      if (in != inputs.end()) {
        source.is_view = true;
        source.input = in - inputs.begin();
        source.chain.assign(chain.rbegin(), chain.rend());
        break;
      }
      const Expr* def = v->definition();
      if (def == nullptr) break;  // not reachable from an input: cannot be a view
      if (!isViewOp(def->op())) {
        source.computing_expr = exprIndex(def);
        break;
      }
      chain.push_back(exprIndex(def));
      v = def->input(0);
    }
    facts.outputs.push_back(source);
  }
  return facts;
}

std::optional<std::vector<int64_t>> reshapeStrides(const std::vector<int64_t>& sizes,
                                                   const std::vector<int64_t>& strides,
                                                   const std::vector<int64_t>& new_sizes) {
  // Counts that overflow int64 (sizes computed at run time) make no view.
  const std::optional<int64_t> count = checked::product(sizes);
  if (!count || count != checked::product(new_sizes)) return std::nullopt;
  const int64_t numel = *count;
  const int64_t new_rank = static_cast<int64_t>(new_sizes.size());
  std::vector<int64_t> out(new_sizes.size(), 1);
  if (numel == 0) {
    for (int64_t d = new_rank - 2; d >= 0; --d) {
      auto stride = checked::mul(out[d + 1], std::max<int64_t>(new_sizes[d + 1], 1));
      if (!stride) return std::nullopt;
      out[d] = *stride;
    }
    return out;
  }
  // The input as dense blocks, innermost first: runs of dims where each dim's
  // stride is the next inner dim's stride times its size. Dims of size 1 lie
  // anywhere and are skipped.
  struct Block {
    int64_t numel;
    int64_t stride;  // of the block's innermost element step
  };
  std::vector<Block> blocks;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (!blocks.empty() && strides[d] == blocks.back().stride * blocks.back().numel)
      blocks.back().numel *= sizes[d];
    else
      blocks.push_back({sizes[d], strides[d]});
  }
  // Each new dim, innermost first, takes the next factor of the current block;
  // a new dim that straddles two blocks needs a copy.
  size_t b = 0;
  int64_t taken = 1;  // product of the new dims placed in block b so far
  for (int64_t d = new_rank - 1; d >= 0; --d) {
    if (new_sizes[d] == 1) {
      out[d] = b < blocks.size() ? blocks[b].stride * taken
               : blocks.empty()  ? 1
                                 : blocks.back().stride * blocks.back().numel;
      continue;
    }
    if (b >= blocks.size()) return std::nullopt;
    out[d] = blocks[b].stride * taken;
    taken *= new_sizes[d];
    if (taken == blocks[b].numel) {
      ++b;
      taken = 1;
    } else if (blocks[b].numel % taken != 0) {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<Layout> viewLayout(const Expr* e, const Layout& in,
                                 const std::vector<int64_t>& out_sizes, std::string* why) {
  const int64_t in_rank = static_cast<int64_t>(in.sizes.size());
  const int64_t out_rank = static_cast<int64_t>(out_sizes.size());
  Layout out{out_sizes, std::vector<int64_t>(out_sizes.size(), 0)};
  auto fail = [&](std::string reason) -> std::optional<Layout> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  switch (e->op()) {
    case OpType::Set:
    case OpType::SegmentSet:
      if (in.sizes != out_sizes)
        return fail(
            fmt::format("sizes change from [{}] to [{}]", joinInts(in.sizes), joinInts(out_sizes)));
      return in;
    case OpType::Permute: {
      const auto& dims = e->attr<PermuteAttr>().dims;
      if (static_cast<int64_t>(dims.size()) != out_rank)
        return fail("the permutation does not match the output's rank");
      for (int64_t i = 0; i < out_rank; ++i) out.strides[i] = in.strides.at(dims[i]);
      return out;
    }
    case OpType::Squeeze: {
      const auto& dims = e->attr<SqueezeAttr>().dims;
      int64_t j = 0;
      for (int64_t d = 0; d < in_rank; ++d) {
        if (std::find(dims.begin(), dims.end(), d) != dims.end()) {
          // A size-1 dim, or an expanded one (stride 0: every element is
          // the same), drops out of a view; any other would lose elements.
          if (in.sizes[d] != 1 && in.strides[d] != 0)
            return fail(
                fmt::format("it squeezes dim {} of size {} and stride {} (only size-1 or "
                            "expanded dims can be dropped from a view)",
                            d, in.sizes[d], in.strides[d]));
          continue;
        }
        if (j >= out_rank) return fail("the squeeze does not match the output's rank");
        out.strides[j++] = in.strides[d];
      }
      return out;
    }
    case OpType::Broadcast: {
      const auto& is_new = e->attr<BroadcastAttr>().is_broadcast_dim;
      if (static_cast<int64_t>(is_new.size()) != out_rank)
        return fail("the broadcast does not match the output's rank");
      int64_t d = 0;
      for (int64_t j = 0; j < out_rank; ++j)
        if (!is_new[j]) out.strides[j] = in.strides.at(d++);
      // A new size-1 dim's stride is free; give it the one a dense tensor would have.
      for (int64_t j = out_rank - 1; j >= 0; --j)
        if (is_new[j])
          out.strides[j] = j + 1 < out_rank ? out.strides[j + 1] * out_sizes[j + 1] : 1;
      return out;
    }
    case OpType::Expand: {
      if (in_rank != out_rank) return fail("expand changes the rank");
      for (int64_t d = 0; d < out_rank; ++d) {
        if (in.sizes[d] == out_sizes[d])
          out.strides[d] = in.strides[d];
        else if (in.sizes[d] == 1)
          out.strides[d] = 0;  // the same element repeated
        else
          return fail(fmt::format("dim {} goes from size {} to {}", d, in.sizes[d], out_sizes[d]));
      }
      return out;
    }
    case OpType::Reshape: {
      auto strides = reshapeStrides(in.sizes, in.strides, out_sizes);
      if (!strides)
        return fail(
            fmt::format("an input of sizes [{}] and strides [{}] cannot be viewed as "
                        "sizes [{}] without a copy",
                        joinInts(in.sizes), joinInts(in.strides), joinInts(out_sizes)));
      out.strides = *strides;
      return out;
    }
    default:
      return fail(fmt::format("{} computes new values", e->opName()));
  }
}

}  // namespace fusebox::no_op
