// Generated source text, one indented line at a time (the kernels not yet
// built as kernel IR).
#pragma once

#include <string>

#include "kernel_ir/print_cuda.h"

namespace fusebox::kernelgen {

struct Buffer {
  std::string text;
  int indent = 0;

  void line(const std::string& s) {
    text += std::string(static_cast<size_t>(indent) * 2, ' ') + s + "\n";
  }
  // Every line of `in`, at this buffer's indentation (on top of its own).
  void append(const Buffer& in) {
    const std::string pad(static_cast<size_t>(indent) * 2, ' ');
    size_t start = 0;
    while (start < in.text.size()) {
      const size_t end = in.text.find('\n', start);
      text += pad + in.text.substr(start, end - start) + "\n";
      start = end + 1;
    }
  }
  // Kernel IR printed as CUDA, at this buffer's indentation: what a writer
  // still building text takes from the IR (the combines).
  void append(const kir::Block& in) { append(Buffer{kir::printCuda(in, 0)}); }
};

}  // namespace fusebox::kernelgen
