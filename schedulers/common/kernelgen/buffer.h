// Generated source text, one indented line at a time.
#pragma once

#include <string>

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
};

}  // namespace fusebox::kernelgen
