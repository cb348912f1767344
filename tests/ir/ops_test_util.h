// Helpers for the builder-op tests: error capture and domain inspection.
#pragma once

#include <fusebox/ir/ops.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace fusebox::test {

// Runs `fn` and returns the UserError's message; a marker when nothing (or
// something else) was thrown, so a HasSubstr expectation fails readably.
template <class F>
std::string userErrorMessage(F&& fn) {
  try {
    fn();
  } catch (const UserError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("<not a UserError: ") + e.what() + ">";
  }
  return "<no exception>";
}

// EXPECT_USER_ERROR(statement, HasSubstr("..."), ...): the statement throws a
// UserError whose message matches every matcher.
#define EXPECT_USER_ERROR(statement, ...) \
  EXPECT_THAT(::fusebox::test::userErrorMessage([&] { statement; }), ::testing::AllOf(__VA_ARGS__))

// Constant value of each logical (non-reduction) extent, as the user sees it
// (expanded extents included); nullopt for symbolic ones.
inline std::vector<std::optional<int64_t>> constSizes(const TensorView* tv) {
  std::vector<std::optional<int64_t>> out;
  for (auto* id : tv->logicalNoReductions()) {
    auto& v = id->logicalExtent()->value();
    out.push_back(v ? std::optional<int64_t>(toInt(*v)) : std::nullopt);
  }
  return out;
}

// IterType of every logical dim, reductions included.
inline std::vector<IterType> iterTypes(const TensorView* tv) {
  std::vector<IterType> out;
  for (auto* id : tv->logical()) out.push_back(id->iterType());
  return out;
}

inline std::optional<int64_t> constValue(const Val* v) {
  auto* s = dynamic_cast<const Scalar*>(v);
  if (s == nullptr || !s->value()) return std::nullopt;
  return toInt(*s->value());
}

inline constexpr std::nullopt_t kSym = std::nullopt;  // a symbolic size in constSizes()
using IT = IterType;

}  // namespace fusebox::test
