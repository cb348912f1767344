// The normalizations the persistent suites run, as nvFuser Python
// definitions (the form users bring), in a chosen dtype with float math:
// each with the inputs it takes for a [rows, width] problem.
#pragma once

#include <fusebox/frontend/python_definition.h>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "support/scheduler_run.h"

namespace fusebox::test {

enum class Norm {
  SoftmaxFwd,
  LogSoftmaxFwd,
  SoftmaxBwd,
  LayerNormFwd,
  LayerNormBwdGradInput,  // the inner part of layernorm backward alone
  RmsNormFwd,
  RmsNormBwdGradInput,
  LayerNormBwd,  // grad input, grad weight and grad bias: inner-outer
  RmsNormBwd,    // grad input and grad weight: inner-outer
  ColumnCenter,  // x - mean(x, 0): outer
  BatchNormFwd,  // channels-last batch norm on [rows, channels] (y, mean, rstd): outer
};

inline const char* normName(Norm n) {
  switch (n) {
    case Norm::SoftmaxFwd:
      return "softmax_fwd";
    case Norm::LogSoftmaxFwd:
      return "log_softmax_fwd";
    case Norm::SoftmaxBwd:
      return "softmax_bwd";
    case Norm::LayerNormFwd:
      return "layernorm_fwd";
    case Norm::LayerNormBwdGradInput:
      return "layernorm_bwd_grad_input";
    case Norm::RmsNormFwd:
      return "rmsnorm_fwd";
    case Norm::RmsNormBwdGradInput:
      return "rmsnorm_bwd_grad_input";
    case Norm::LayerNormBwd:
      return "layernorm_bwd";
    case Norm::RmsNormBwd:
      return "rmsnorm_bwd";
    case Norm::ColumnCenter:
      return "column_center";
    case Norm::BatchNormFwd:
      return "batchnorm_fwd";
  }
  return "?";
}

inline const Norm kInnerNorms[] = {
    Norm::SoftmaxFwd,         Norm::LogSoftmaxFwd,         Norm::SoftmaxBwd,
    Norm::LayerNormFwd,       Norm::LayerNormBwdGradInput, Norm::RmsNormFwd,
    Norm::RmsNormBwdGradInput};

inline const Norm kInnerOuterNorms[] = {Norm::LayerNormBwd, Norm::RmsNormBwd};

inline const Norm kOuterNorms[] = {Norm::ColumnCenter, Norm::BatchNormFwd};

// `dt`: "BFloat16" or "Float" (the nvFuser DataType name).
inline std::string normSource(Norm n, const std::string& dt) {
  const std::string mat = fmt::format(
      "fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.{})", dt);
  const std::string vec =
      fmt::format("fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.{})", dt);
  const std::string stat = "fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)";
  std::string body;
  switch (n) {
    case Norm::SoftmaxFwd:
    case Norm::LogSoftmaxFwd:
      body = fmt::format(
          "x = {}\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "m = fd.ops.max(xf, dims=[1], keepdim=False, dtype=DataType.Null)\n"
          "mb = fd.ops.broadcast_in_dim(m, shape=x.shape(), broadcast_dims=[0])\n"
          "d = fd.ops.sub(xf, mb)\n"
          "e = fd.ops.exp(d)\n"
          "s = fd.ops.sum(e, dims=[1], keepdim=False, dtype=DataType.Null)\n"
          "sb = fd.ops.broadcast_in_dim(s, shape=x.shape(), broadcast_dims=[0])\n"
          "{}\n"
          "fd.add_output(fd.ops.cast(y, dtype=DataType.{}))\n",
          mat,
          n == Norm::SoftmaxFwd ? "y = fd.ops.div(e, sb)" : "y = fd.ops.sub(d, fd.ops.log(sb))",
          dt);
      break;
    case Norm::SoftmaxBwd:
      body = fmt::format(
          "dy = {0}\n"
          "y = {0}\n"
          "dyf = fd.ops.cast(dy, dtype=DataType.Float)\n"
          "yf = fd.ops.cast(y, dtype=DataType.Float)\n"
          "s = fd.ops.sum(fd.ops.mul(dyf, yf), dims=[1], keepdim=False, dtype=DataType.Null)\n"
          "sb = fd.ops.broadcast_in_dim(s, shape=dy.shape(), broadcast_dims=[0])\n"
          "dx = fd.ops.mul(yf, fd.ops.sub(dyf, sb))\n"
          "fd.add_output(fd.ops.cast(dx, dtype=DataType.{1}))\n",
          mat, dt);
      break;
    case Norm::LayerNormFwd:
      body = fmt::format(
          "x = {0}\n"
          "w = {1}\n"
          "b = {1}\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "var, mean = fd.ops.var_mean(xf, dims=[1], correction=0, keepdim=False)\n"
          "mean2 = fd.ops.broadcast_in_dim(mean, shape=[x.size(0), 1], broadcast_dims=[0])\n"
          "rstd = fd.ops.rsqrt(fd.ops.add(var, fd.define_scalar(1e-05, dtype=DataType.Double)))\n"
          "rstd2 = fd.ops.broadcast_in_dim(rstd, shape=[x.size(0), 1], broadcast_dims=[0])\n"
          "xhat = fd.ops.mul(fd.ops.sub(xf, fd.ops.broadcast_in_dim(mean2, shape=x.shape(), "
          "broadcast_dims=[0, 1])), fd.ops.broadcast_in_dim(rstd2, shape=x.shape(), "
          "broadcast_dims=[0, 1]))\n"
          "wf = fd.ops.cast(fd.ops.broadcast_in_dim(w, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "bf = fd.ops.cast(fd.ops.broadcast_in_dim(b, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "y = fd.ops.add(fd.ops.mul(xhat, wf), bf)\n"
          "fd.add_output(fd.ops.cast(y, dtype=DataType.{2}))\n"
          "fd.add_output(mean2)\n"
          "fd.add_output(rstd2)\n",
          mat, vec, dt);
      break;
    case Norm::LayerNormBwd:
    case Norm::LayerNormBwdGradInput:
      // dx = rstd / H * (H * g - sum(g) - xhat * sum(g * xhat)), g = dy * w
      body = fmt::format(
          "dy = {0}\n"
          "x = {0}\n"
          "mean = {2}\n"
          "rstd = {2}\n"
          "w = {1}\n"
          "h = x.size(1)\n"
          "dyf = fd.ops.cast(dy, dtype=DataType.Float)\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "mb = fd.ops.broadcast_in_dim(mean, shape=x.shape(), broadcast_dims=[0])\n"
          "rb = fd.ops.broadcast_in_dim(rstd, shape=x.shape(), broadcast_dims=[0])\n"
          "xhat = fd.ops.mul(fd.ops.sub(xf, mb), rb)\n"
          "wf = fd.ops.cast(fd.ops.broadcast_in_dim(w, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "g = fd.ops.mul(dyf, wf)\n"
          "s1 = fd.ops.broadcast_in_dim(fd.ops.sum(g, dims=[1], keepdim=False, "
          "dtype=DataType.Null), shape=x.shape(), broadcast_dims=[0])\n"
          "s2 = fd.ops.broadcast_in_dim(fd.ops.sum(fd.ops.mul(g, xhat), dims=[1], "
          "keepdim=False, dtype=DataType.Null), shape=x.shape(), broadcast_dims=[0])\n"
          "t = fd.ops.sub(fd.ops.sub(fd.ops.mul(g, h), s1), fd.ops.mul(xhat, s2))\n"
          "dx = fd.ops.mul(fd.ops.div(rb, h), t)\n"
          "fd.add_output(fd.ops.cast(dx, dtype=DataType.{3}))\n",
          mat, vec, stat, dt);
      if (n == Norm::LayerNormBwd)  // dw = sum(dy * xhat, 0), db = sum(dy, 0)
        body += fmt::format(
            "dw = fd.ops.sum(fd.ops.mul(dyf, xhat), dims=[0], keepdim=False, dtype=DataType.Null)\n"
            "fd.add_output(fd.ops.cast(dw, dtype=DataType.{0}))\n"
            "db = fd.ops.sum(dyf, dims=[0], keepdim=False, dtype=DataType.Null)\n"
            "fd.add_output(fd.ops.cast(db, dtype=DataType.{0}))\n",
            dt);
      break;
    case Norm::RmsNormFwd:
      body = fmt::format(
          "x = {0}\n"
          "w = {1}\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "ms = fd.ops.div(fd.ops.sum(fd.ops.mul(xf, xf), dims=[1], keepdim=False, "
          "dtype=DataType.Null), x.size(1))\n"
          "rstd = fd.ops.rsqrt(fd.ops.add(ms, fd.define_scalar(1e-06, dtype=DataType.Double)))\n"
          "rstd2 = fd.ops.broadcast_in_dim(rstd, shape=[x.size(0), 1], broadcast_dims=[0])\n"
          "wf = fd.ops.cast(fd.ops.broadcast_in_dim(w, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "y = fd.ops.mul(fd.ops.mul(xf, fd.ops.broadcast_in_dim(rstd2, shape=x.shape(), "
          "broadcast_dims=[0, 1])), wf)\n"
          "fd.add_output(fd.ops.cast(y, dtype=DataType.{2}))\n"
          "fd.add_output(rstd2)\n",
          mat, vec, dt);
      break;
    case Norm::RmsNormBwd:
    case Norm::RmsNormBwdGradInput:
      // dx = rstd * (g - xhat * mean(g * xhat)), g = dy * w, xhat = x * rstd
      body = fmt::format(
          "dy = {0}\n"
          "x = {0}\n"
          "rstd = {2}\n"
          "w = {1}\n"
          "dyf = fd.ops.cast(dy, dtype=DataType.Float)\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "rb = fd.ops.broadcast_in_dim(rstd, shape=x.shape(), broadcast_dims=[0])\n"
          "xhat = fd.ops.mul(xf, rb)\n"
          "wf = fd.ops.cast(fd.ops.broadcast_in_dim(w, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "g = fd.ops.mul(dyf, wf)\n"
          "s = fd.ops.div(fd.ops.sum(fd.ops.mul(g, xhat), dims=[1], keepdim=False, "
          "dtype=DataType.Null), x.size(1))\n"
          "sb = fd.ops.broadcast_in_dim(s, shape=x.shape(), broadcast_dims=[0])\n"
          "dx = fd.ops.mul(rb, fd.ops.sub(g, fd.ops.mul(xhat, sb)))\n"
          "fd.add_output(fd.ops.cast(dx, dtype=DataType.{3}))\n",
          mat, vec, stat, dt);
      if (n == Norm::RmsNormBwd)  // dw = sum(dy * xhat, 0)
        body += fmt::format(
            "dw = fd.ops.sum(fd.ops.mul(dyf, xhat), dims=[0], keepdim=False, dtype=DataType.Null)\n"
            "fd.add_output(fd.ops.cast(dw, dtype=DataType.{0}))\n",
            dt);
      break;
    case Norm::ColumnCenter:
      body = fmt::format(
          "x = {0}\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "m = fd.ops.div(fd.ops.sum(xf, dims=[0], keepdim=False, dtype=DataType.Null), "
          "x.size(0))\n"
          "mb = fd.ops.broadcast_in_dim(m, shape=x.shape(), broadcast_dims=[1])\n"
          "fd.add_output(fd.ops.cast(fd.ops.sub(xf, mb), dtype=DataType.{1}))\n",
          mat, dt);
      break;
    case Norm::BatchNormFwd:
      body = fmt::format(
          "x = {0}\n"
          "w = {1}\n"
          "b = {1}\n"
          "xf = fd.ops.cast(x, dtype=DataType.Float)\n"
          "var, mean = fd.ops.var_mean(xf, dims=[0], correction=0, keepdim=False)\n"
          "rstd = fd.ops.rsqrt(fd.ops.add(var, fd.define_scalar(1e-05, dtype=DataType.Double)))\n"
          "mb = fd.ops.broadcast_in_dim(mean, shape=x.shape(), broadcast_dims=[1])\n"
          "rb = fd.ops.broadcast_in_dim(rstd, shape=x.shape(), broadcast_dims=[1])\n"
          "wf = fd.ops.cast(fd.ops.broadcast_in_dim(w, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "bf = fd.ops.cast(fd.ops.broadcast_in_dim(b, shape=x.shape(), broadcast_dims=[1]), "
          "dtype=DataType.Float)\n"
          "y = fd.ops.add(fd.ops.mul(fd.ops.mul(fd.ops.sub(xf, mb), rb), wf), bf)\n"
          "fd.add_output(fd.ops.cast(y, dtype=DataType.{2}))\n"
          "fd.add_output(mean)\n"
          "fd.add_output(rstd)\n",
          mat, vec, dt);
      break;
  }
  std::string out = "def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n";
  size_t start = 0;
  while (start < body.size()) {
    const size_t end = body.find('\n', start);
    out += "    " + body.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

inline PythonDefinition normDefinition(Norm n, DataType dtype) {
  const std::string dt = dtype == DataType::BFloat16 ? "BFloat16" : "Float";
  return parsePythonDefinition(normSource(n, dt), fmt::format("{}.py", normName(n)));
}

// Inputs for [rows, width], by the definition's names: mean and rstd
// [rows], weight and bias [width], the others [rows, width]; values in
// [-2, 2].
inline std::vector<Argument> normInputs(const PythonDefinition& def, int64_t rows, int64_t width,
                                        uint32_t seed) {
  std::vector<Argument> out;
  for (size_t k = 0; k < def.fusion->inputs().size(); ++k) {
    const auto* tv = def.fusion->inputs()[k]->as<TensorView>();
    const std::string& name = def.input_names[k];
    std::vector<int64_t> sizes{rows, width};
    if (name == "mean" || name == "rstd") sizes = {rows};
    if (name == "w" || name == "b") sizes = {width};
    out.emplace_back(randomTensor(tv->dtype(), sizes, seed++));
  }
  return out;
}

}  // namespace fusebox::test
