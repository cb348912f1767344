// The example scripts parse as written, and compute what they claim: each is
// run on small inputs and compared with the formula written out on the host.
#include <fusebox/eval/evaluator.h>
#include <fusebox/frontend/python_definition.h>
#include <gtest/gtest.h>

#include <cmath>

namespace fusebox {
namespace {

PythonDefinition parseExample(const std::string& name) {
  return parsePythonFile(std::string(FUSEBOX_SOURCE_DIR) + "/examples/" + name);
}

Tensor randomTensor(std::vector<int64_t> shape, DataType dtype, uint64_t seed) {
  InputSpec spec;
  spec.kind = InputSpec::Kind::Randn;
  spec.shape = std::move(shape);
  spec.dtype = dtype;
  return std::get<Tensor>(materializeInput(spec, seed));
}

std::vector<Tensor> run(const PythonDefinition& d, const std::vector<Tensor>& inputs) {
  std::vector<Argument> args(inputs.begin(), inputs.end());
  std::vector<Tensor> outs;
  for (Argument& a : evaluateFusion(*d.fusion, args)) outs.push_back(std::get<Tensor>(a));
  return outs;
}

double geluTanh(double x) {
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

TEST(Examples, Issue785SeedParsesAsPasted) {
  PythonDefinition d = parseExample("segmented_issue785.py");
  EXPECT_EQ(d.function_name, "nvfuser_fusion_id6");
  EXPECT_EQ(d.input_names, (std::vector<std::string>{"T4", "T6"}));
  ASSERT_EQ(d.inputs.size(), 2u);
  EXPECT_EQ(d.inputs[0].shape, (std::vector<int64_t>{16, 512, 4096}));
  ASSERT_EQ(d.fusion->outputs().size(), 2u);
  Expr* red = d.fusion->outputs()[0]->definition();
  ASSERT_EQ(red->op(), OpType::Reduction);
  EXPECT_EQ(red->attr<ReductionAttr>().axes, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(red->input(0), d.fusion->inputs()[0]);
  Expr* pw = d.fusion->outputs()[1]->definition();
  ASSERT_EQ(pw->op(), OpType::Binary);
  EXPECT_EQ(pw->attr<BinaryOpType>(), BinaryOpType::Pow);
  EXPECT_EQ(toDouble(*pw->input(1)->as<Scalar>()->value()), 3.0);
  // T8 = mul(S7, T6) is dead: nothing outputs it.
  EXPECT_EQ(d.fusion->exprs().size(), 2u);
}

TEST(Examples, GeluBiasGradMatchesTheDerivativeOfGelu) {
  PythonDefinition d = parseExample("gelu_bias_grad.py");
  ASSERT_EQ(d.inputs.size(), 3u);
  EXPECT_EQ(d.inputs[0].shape, (std::vector<int64_t>{16, 512, 4096}));
  EXPECT_EQ(d.inputs[2].shape, (std::vector<int64_t>{4096}));
  Tensor grad = randomTensor({2, 3, 5}, DataType::Float, 1);
  Tensor x = randomTensor({2, 3, 5}, DataType::Float, 2);
  Tensor bias = randomTensor({5}, DataType::Float, 3);
  std::vector<Tensor> outs = run(d, {grad, x, bias});
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_EQ(outs[0].sizes(), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(outs[1].sizes(), (std::vector<int64_t>{5}));
  std::vector<double> bias_grad(5, 0.0);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 5; ++k) {
        double z = x.getDouble({i, j, k}) + bias.getDouble({k});
        const double h = 1e-5;
        double derivative = (geluTanh(z + h) - geluTanh(z - h)) / (2 * h);
        double want = grad.getDouble({i, j, k}) * derivative;
        EXPECT_NEAR(outs[0].getDouble({i, j, k}), want, 1e-5 * (1 + std::abs(want)))
            << i << "," << j << "," << k;
        bias_grad[k] += want;
      }
  for (int64_t k = 0; k < 5; ++k)
    EXPECT_NEAR(outs[1].getDouble({k}), bias_grad[k], 1e-4 * (1 + std::abs(bias_grad[k])));
}

TEST(Examples, RopeRotatesHalvesOfTheHeadDim) {
  PythonDefinition d = parseExample("rope.py");
  ASSERT_EQ(d.inputs.size(), 3u);
  EXPECT_EQ(d.inputs[0].kind, InputSpec::Kind::MakeTensor);
  std::vector<Tensor> in;
  for (size_t i = 0; i < d.inputs.size(); ++i)
    in.push_back(std::get<Tensor>(materializeInput(d.inputs[i], 10 + i)));
  std::vector<Tensor> outs = run(d, in);
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].dtype(), DataType::BFloat16);
  EXPECT_EQ(outs[0].sizes(), (std::vector<int64_t>{2, 8, 1024, 128}));
  // out[..., s, j] = q[..., s, j] * cos[s, j] + rot[..., s, j] * sin[s, j],
  // rot = cat(-q[..., 64:], q[..., :64]).  Checked on a sample of positions.
  for (int64_t b : {0, 1})
    for (int64_t h : {0, 7})
      for (int64_t s : {0, 513, 1023})
        for (int64_t j : {0, 1, 63, 64, 100, 127}) {
          double q = in[0].getDouble({b, h, s, j});
          double rot =
              j < 64 ? -in[0].getDouble({b, h, s, j + 64}) : in[0].getDouble({b, h, s, j - 64});
          double want = q * in[1].getDouble({s, j}) + rot * in[2].getDouble({s, j});
          // The result is rounded to bfloat16 (8 significant bits).
          EXPECT_NEAR(outs[0].getDouble({b, h, s, j}), want, 1e-2 * (1 + std::abs(want)));
        }
}

TEST(Examples, LayerNormNormalizesEachRow) {
  PythonDefinition d = parseExample("layer_norm.py");
  Tensor x = randomTensor({4, 6}, DataType::Float, 4);
  Tensor w = randomTensor({6}, DataType::Float, 5);
  Tensor b = randomTensor({6}, DataType::Float, 6);
  std::vector<Tensor> outs = run(d, {x, w, b});
  ASSERT_EQ(outs.size(), 3u);
  EXPECT_EQ(outs[1].sizes(), (std::vector<int64_t>{4, 1}));
  for (int64_t i = 0; i < 4; ++i) {
    double mean = 0, var = 0;
    for (int64_t j = 0; j < 6; ++j) mean += x.getDouble({i, j}) / 6;
    for (int64_t j = 0; j < 6; ++j)
      var += (x.getDouble({i, j}) - mean) * (x.getDouble({i, j}) - mean) / 6;
    double rstd = 1 / std::sqrt(var + 1e-5);
    EXPECT_NEAR(outs[1].getDouble({i, 0}), mean, 1e-6);
    EXPECT_NEAR(outs[2].getDouble({i, 0}), rstd, 1e-5 * rstd);
    for (int64_t j = 0; j < 6; ++j) {
      double want = (x.getDouble({i, j}) - mean) * rstd * w.getDouble({j}) + b.getDouble({j});
      EXPECT_NEAR(outs[0].getDouble({i, j}), want, 1e-5 * (1 + std::abs(want)));
    }
  }
}

TEST(Examples, BiasGeluInHalfPrecision) {
  PythonDefinition d = parseExample("bias_gelu.py");
  EXPECT_EQ(d.inputs[0].shape, (std::vector<int64_t>{1024, 4096}));
  EXPECT_EQ(d.inputs[0].dtype, DataType::Half);
  Tensor x = randomTensor({3, 5}, DataType::Half, 7);
  Tensor b = randomTensor({5}, DataType::Half, 8);
  std::vector<Tensor> outs = run(d, {x, b});
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(outs[0].dtype(), DataType::Half);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      double want = geluTanh(x.getDouble({i, j}) + b.getDouble({j}));
      // The script's constants have 6 digits and the result is rounded to half.
      EXPECT_NEAR(outs[0].getDouble({i, j}), want, 2e-3 * (1 + std::abs(want)));
    }
}

}  // namespace
}  // namespace fusebox
