// The pieces op_table.cpp and the files that add entries to its table share:
// an entry's parameters and function, and helpers to declare and answer them.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/op_table.h"

namespace fusebox::frontend::op_table {

using OpFn = std::function<PyValue(Fusion&, const BoundArgs&)>;
struct OpEntry {
  std::vector<OpParam> params;
  OpFn fn;
};
using OpMap = std::map<std::string, OpEntry, std::less<>>;

inline OpParam req(std::initializer_list<std::string_view> names) {
  return OpParam{names, true};
}
inline OpParam opt(std::initializer_list<std::string_view> names) {
  return OpParam{names, false};
}

inline PyValue result(Val* v, const BoundArgs& a) {
  return fromVal(v, a.where());
}

// Indexing ops, scans, triu, embedding_fwd and the complex-only ops
// (op_table_indexing.cpp).
void addIndexingAndScans(OpMap& t);
// addcmul and stride_order (op_table_composite.cpp).
void addCompositeAndLayout(OpMap& t);

}  // namespace fusebox::frontend::op_table
