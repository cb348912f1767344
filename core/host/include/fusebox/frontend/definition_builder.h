// Builds a fusion from calls a program makes rather than a script it reads:
// the Python module's FusionDefinition (python/) calls fd.define_tensor,
// fd.ops.<op> and T.size() through here, and they go through the same
// argument binder and op table as the script reader's, so both accept the
// same arguments and say the same things about bad ones.
//
//   DefinitionBuilder b;
//   DefinitionCall c{.where = {"model.py", 12, 0}};
//   c.keywords = {{"shape", DefinitionValue::list({-1, -1})}};
//   DefinitionValue t0 = b.method("define_tensor", c);
//   DefinitionValue t1 = b.op("exp", DefinitionCall{{t0}, {}, where});
//   b.method("add_output", DefinitionCall{{t1}, {}, where});
//   std::unique_ptr<Fusion> fusion = b.release();
#pragma once

#include <fusebox/dtype.h>
#include <fusebox/error.h>
#include <fusebox/ir/fusion.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fusebox {

// An argument or a result of a definition call.
struct DefinitionValue {
  enum class Kind { None, Bool, Int, Float, String, DType, List, Tuple, Tensor, Scalar, Vector };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  // String: the text. DType: nvFuser's member name ("Float", "BFloat16",
  // "Null", ...), checked where it is used, as the script reader checks
  // DataType.<name>.
  std::string s;
  std::vector<DefinitionValue> items;  // List, Tuple
  Val* val = nullptr;                  // Tensor, Scalar
  std::vector<Val*> vec;               // Vector
  // Tensor: the stride order fd.ops.stride_order gave it (add_output keeps it).
  std::vector<int64_t> stride_order;
  // How messages name the value ("T3"); empty: described by kind.
  std::string name;
  // Tensor, Scalar, Vector: the fusion the value lives in, kept alive by the
  // handle (a definition's fusion goes when its builder and every handle
  // have gone). A call refuses handles of another builder's fusion.
  std::shared_ptr<const Fusion> owner;

  static DefinitionValue none() { return {}; }
  static DefinitionValue integer(int64_t v);
  static DefinitionValue list(std::vector<int64_t> values);
};

// How the builder names the handles it returns: "T3" (tensor 3), "S5" (scalar 5).
std::string handleName(const Val* v);

struct DefinitionCall {
  std::vector<DefinitionValue> positional;
  std::vector<std::pair<std::string, DefinitionValue>> keywords;
  // The caller's place (a Python file and line): every error of the call names it.
  SourceLocation where;
};

// What define_tensor takes for a tensor with these sizes and strides, as
// nvFuser's compute_tensor_descriptor: contiguity in allocation order (None
// for broadcast dims: size 1 or stride 0) and the stride order (entry i
// ranks dim i, 0 = innermost; row-major included).
struct TensorDescriptor {
  std::vector<std::optional<bool>> contiguity;
  std::vector<int64_t> stride_order;
};
TensorDescriptor computeTensorDescriptor(const std::vector<int64_t>& sizes,
                                         const std::vector<int64_t>& strides);

class DefinitionBuilder {
 public:
  DefinitionBuilder();
  ~DefinitionBuilder();
  DefinitionBuilder(DefinitionBuilder&&) noexcept;
  DefinitionBuilder& operator=(DefinitionBuilder&&) noexcept;

  // fd.<name>(...): define_tensor, define_scalar, define_vector, add_output,
  // from_pytorch is refused (the caller has the tensor: its sizes and strides
  // go to define_tensor).
  DefinitionValue method(std::string_view name, const DefinitionCall& call);
  // fd.ops.<name>(...).
  DefinitionValue op(std::string_view name, const DefinitionCall& call);
  // <self>.<name>(...): a tensor's size(dim) and shape().
  DefinitionValue valueMethod(const DefinitionValue& self, std::string_view name,
                              const DefinitionCall& call);

  const Fusion& fusion() const;
  // A copy of the fusion built so far; the builder is finished afterwards
  // (its handles keep reading the original).
  std::unique_ptr<Fusion> release();

  // Every fd.ops name, sorted (for dir() and messages).
  static std::vector<std::string> opNames();

 private:
  // The handles among a call's arguments must be this builder's.
  void checkOwners(const DefinitionCall& call) const;

  std::shared_ptr<Fusion> fusion_;
};

}  // namespace fusebox
