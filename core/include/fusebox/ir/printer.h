// The IR printer, in nvFuser's notation:
//
//   Inputs:
//     T0_g[ iS0{i0}, iS1{i1} ], float
//   Outputs:
//     T2_g[ rS4{i0}, iS5{i1} ], float
//
//   %kernel_math {
//   T2_g[ rS4{i0}, iS5{i1} ]
//      = reduction( T0_g[ iS0{i0}, iS1{i1} ], op = add, initial value = float(0) )
//   }
#pragma once

#include <fusebox/ir/fusion.h>

#include <string>

namespace fusebox {

struct IrPrintOptions {
  // Add a transform section: every tensor's logical and allocation domain,
  // contiguity, required stride order and how each extent is computed.
  bool transforms = false;
};

std::string printFusion(const Fusion& fusion, const IrPrintOptions& options = {});
// One expression, as it appears inside %kernel_math.
std::string printExpr(const Expr* expr);

}  // namespace fusebox
