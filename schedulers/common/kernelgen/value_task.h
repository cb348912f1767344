// The element writer's pending values (element_writer.h), shared by the
// files of its walk: element_values.cpp, element_indexing.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernelgen/element_writer.h"

namespace fusebox::kernelgen {

// One branch of a value computed under conditions (pad, cat): its
// condition (none: the else after the others), its checks as index math,
// and the tensor and index whose value it takes.
struct ValueBranch {
  kir::Value cond;  // its checks on the element (undefined: the else)
  BranchBounds bounds;
  const TensorView* src;
  Index idx;
};

// A pending value: tensor `tv` at `idx`, and how far its expression got.
struct ElementWriter::ValueTask {
  enum class Stage { Start, Operands, Power, Forward, PassThrough, Branches, Indexed };
  const TensorView* tv = nullptr;
  Index idx;
  std::string key;  // memo key
  Stage stage = Stage::Start;
  std::vector<kir::Operand> ops;  // Operands: those gathered so far
  size_t next = 0;               // Operands: the next operand; Branches: the open branch
  std::string var;               // Branches: the variable each branch assigns
  std::vector<ValueBranch> branches;
  std::optional<kir::IfChain> chain;     // Branches: the if / else-if chain they open
  std::optional<kir::Value> otherwise;   // Branches: the value where none holds (a pad's)
};

// What a task does next: finish with a value, or wait for the value of
// another tensor at an index.
struct ElementWriter::ValueStep {
  bool finished = false;
  kir::Value value;
  const TensorView* tv = nullptr;
  Index idx;
};

}  // namespace fusebox::kernelgen
