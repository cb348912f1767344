// The generator: deterministic per seed, valid cases, features left out on request.
#include "generator.h"

#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

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
  for (uint64_t seed = 0; seed < 40; ++seed) {
    GeneratedCase g = generateCase(seed, {});
    ASSERT_EQ(g.generator_failure, "") << "seed " << seed;
    std::string script = renderScript(g.fuzz_case);
    PythonDefinition def = parsePythonDefinition(script, "case.py");
    EXPECT_TRUE(def.has_inputs_list) << script;
    EXPECT_EQ(def.inputs.size(), def.fusion->inputs().size()) << script;
    EXPECT_FALSE(def.fusion->outputs().empty()) << script;
  }
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

}  // namespace
}  // namespace fusebox::fuzz
