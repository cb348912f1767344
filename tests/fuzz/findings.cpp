#include "findings.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>

namespace fusebox::fuzz {

std::string printable(const std::string& s, size_t max_length) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() >= max_length) {
      out += "...";
      break;
    }
    if (c == '\n')
      out += "\\n";
    else if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

Findings::Findings(std::string out_dir, std::vector<std::string> ignore)
    : out_dir_(std::move(out_dir)), ignore_(std::move(ignore)) {}

bool Findings::add(const FailureReport& r) {
  auto [it, fresh] = by_signature_.try_emplace(r.signature);
  Finding& f = it->second;
  ++f.count;
  if (!fresh) return false;
  f.first = r;
  for (const auto& text : ignore_)
    if (!text.empty() &&
        (r.signature.find(text) != std::string::npos || r.message.find(text) != std::string::npos))
      f.ignored = true;
  return !f.ignored;
}

std::string Findings::write(const std::string& signature, const std::string& text,
                            const std::string& extension, const std::string& note) {
  auto it = by_signature_.find(signature);
  if (out_dir_.empty() || it == by_signature_.end()) return {};
  std::error_code ec;
  std::filesystem::create_directories(out_dir_, ec);
  std::string category = it->second.first.category;
  for (char& c : category)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  std::string base = fmt::format("{}/{}-{:08x}", out_dir_, category,
                                 static_cast<uint32_t>(std::hash<std::string>{}(signature)));
  std::ofstream(base + extension, std::ios::binary) << text;
  std::ofstream txt(base + ".txt");
  txt << "signature: " << printable(signature, 2000) << "\n";
  txt << "message: " << printable(it->second.first.message, 4000) << "\n";
  if (it->second.first.index >= 0) txt << "case index: " << it->second.first.index << "\n";
  if (!note.empty()) txt << note << "\n";
  it->second.file = base + extension;
  return it->second.file;
}

int64_t Findings::failures() const {
  int64_t n = 0;
  for (const auto& [sig, f] : by_signature_)
    if (!f.ignored) n += f.count;
  return n;
}

int64_t Findings::ignoredCases() const {
  int64_t n = 0;
  for (const auto& [sig, f] : by_signature_)
    if (f.ignored) n += f.count;
  return n;
}

void Findings::printSummary(std::ostream& out) const {
  int64_t distinct = 0;
  for (const auto& [sig, f] : by_signature_) distinct += !f.ignored;
  out << fmt::format("distinct failures: {} ({} failing cases); ignored (known): {} cases\n",
                     distinct, failures(), ignoredCases());
  for (const auto& [sig, f] : by_signature_) {
    out << fmt::format("  {}{} x{}: {}\n", f.ignored ? "[known] " : "", printable(sig, 160),
                       f.count,
                       f.file.empty() ? fmt::format("first at case {}", f.first.index) : f.file);
  }
}

}  // namespace fusebox::fuzz
