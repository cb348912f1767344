// What the source of a kernel compiled over symbolic sizes depends on beyond
// its params' decisions. SizeLiterals (size_literals.h) keeps 0 and 1 as
// literals, and the generators take other paths where a size is 1 (a
// broadcast, an index that is always 0), a stride 0 or 1, a shape scalar
// negative, or a tensor's sizes those of the iteration space: two calls get
// one source only where these classes agree, so a scheduler's params compare
// them in ShapeMode::Symbolic (not the sizes themselves).
#pragma once

#include <fusebox/scheduler.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernelgen/access.h"
#include "kernelgen/shapes.h"

namespace fusebox::kernelgen {

// 0, 1, or other ('-' for a negative value, 'm' for INT64_MIN).
char valueClass(int64_t v);

// One line: per tensor of the segment the classes of its sizes (and of an
// input's strides), and which of `spaces` (iteration spaces' sizes) it has;
// per expr the classes of its shape scalars (a slice's start as it indexes);
// per access the classes of its offset's coefficients and constant.
std::string shapeClasses(const Fusion& segment, const TensorSizes& sizes, RuntimeInfo& info,
                         const std::vector<Access>& accesses,
                         const std::vector<std::vector<int64_t>>& spaces);

}  // namespace fusebox::kernelgen
