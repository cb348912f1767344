// The generator: deterministic per seed, valid cases, features left out on request.
#include "generator.h"

#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fusebox::fuzz {
namespace {

TEST(FuzzGenerator, SameSeedSameScript) {
  for (uint64_t seed : {1u, 2u, 77u}) {
    std::string a = renderScript(generateCase(seed, {}).fuzz_case);
    std::string b = renderScript(generateCase(seed, {}).fuzz_case);
    EXPECT_EQ(a, b) << "seed " << seed;
  }
  EXPECT_NE(renderScript(generateCase(1, {}).fuzz_case),
            renderScript(generateCase(2, {}).fuzz_case));
}

TEST(FuzzGenerator, CasesParseWithTheirInputsList) {
  // A case that met a bug while being made ends with the statement that
  // failed; the others must parse whole.
  int complete = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    GeneratedCase g = generateCase(seed, {});
    if (!g.generator_failure.empty()) continue;
    ++complete;
    std::string script = renderScript(g.fuzz_case);
    PythonDefinition def = parsePythonDefinition(script, "case.py");
    EXPECT_TRUE(def.has_inputs_list) << script;
    EXPECT_EQ(def.inputs.size(), def.fusion->inputs().size()) << script;
    EXPECT_FALSE(def.fusion->outputs().empty()) << script;
  }
  EXPECT_GE(complete, 30);
}

TEST(FuzzGenerator, ExcludedFeaturesStayOut) {
  GeneratorOptions o;
  o.excluded = {"alias", "reshape", "strided-input"};
  for (uint64_t seed = 0; seed < 60; ++seed) {
    GeneratedCase g = generateCase(seed, o);
    std::string script = renderScript(g.fuzz_case);
    EXPECT_EQ(script.find("alias_input"), std::string::npos) << script;
    EXPECT_EQ(script.find("fd.ops.reshape"), std::string::npos) << script;
    EXPECT_EQ(script.find("as_strided"), std::string::npos) << script;
  }
}

TEST(FuzzGenerator, FeaturesAreListed) {
  for (const auto& f : generatorFeatures()) EXPECT_STRNE(f.what, "");
  GeneratorOptions o;
  o.excluded = {"unary", "binary"};
  for (uint64_t seed = 0; seed < 30; ++seed)
    for (const auto& used : generateCase(seed, o).features) {
      EXPECT_NE(used, "unary");
      EXPECT_NE(used, "binary");
    }
}

// Every op the frontend knows (its unknown-op message lists them) shows up in
// a few hundred cases.
TEST(FuzzGenerator, CoversEveryFrontendOp) {
  std::string all;
  for (uint64_t seed = 0; seed < 800; ++seed) all += renderScript(generateCase(seed, {}).fuzz_case);
  std::string known;
  try {
    parsePythonDefinition("def f(fd):\n    T0 = fd.ops.no_such_op()\n", "x.py");
  } catch (const UserError& e) {
    known = e.what();
  }
  size_t open = known.find("(known: ");
  ASSERT_NE(open, std::string::npos) << known;
  std::stringstream list(known.substr(open + 8, known.rfind(')') - open - 8));
  int ops = 0;
  for (std::string name; std::getline(list, name, ',');) {
    name = name.substr(name.find_first_not_of(' '));
    if (name == "real" || name == "imag") continue;  // always refused: no complex dtypes
    ++ops;
    EXPECT_NE(all.find("fd.ops." + name + "("), std::string::npos) << name << " is never generated";
  }
  EXPECT_GT(ops, 90);
}

TEST(FuzzGenerator, ProductsStayWithinTheirAccumulator) {
  // The two cases the reduction kernels met: prod over 129 int64 values up to
  // 600 as float, and over 128 bfloat16 values up to 100. A float32
  // accumulator overflows to inf, inf * 0 is NaN; the evaluator's double
  // gives 0. Neither may be generated; products that fit may.
  EXPECT_FALSE(productFitsAccumulator(600, 129, DataType::Float));
  EXPECT_FALSE(productFitsAccumulator(100, 128, DataType::BFloat16));
  EXPECT_FALSE(productFitsAccumulator(600, 129, DataType::Double));
  EXPECT_TRUE(productFitsAccumulator(100, 128, DataType::Double));
  EXPECT_TRUE(productFitsAccumulator(4, 60, DataType::Float));
  EXPECT_FALSE(productFitsAccumulator(4, 64, DataType::Float));
  EXPECT_TRUE(productFitsAccumulator(0.5, 1 << 20, DataType::Half));
  EXPECT_TRUE(productFitsAccumulator(1e6, 1000, DataType::Int64));  // wraps exactly
}

TEST(FuzzGenerator, DocsListEveryFeature) {
  std::ifstream in(FUSEBOX_SOURCE_DIR "/docs/fuzzing.md");
  std::stringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  for (const auto& f : generatorFeatures())
    EXPECT_NE(doc.str().find(std::string("`") + f.name + "`"), std::string::npos)
        << f.name << " is not in docs/fuzzing.md";
}

}  // namespace
}  // namespace fusebox::fuzz
