// Delta debugging (Zeller's ddmin): drops parts of a failing input while the
// failure still reproduces.
#pragma once

#include "fuzz_case.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fusebox::fuzz {

// The smallest subset of `units` (kept in order) for which `reproduces` still
// holds that ddmin finds, trying at most `max_checks` subsets.
std::vector<bool> ddmin(size_t units,
                        const std::function<bool(const std::vector<bool>& keep)>& reproduces,
                        int64_t max_checks);

// A fuzz case with statements dropped (inputs go with their definitions).
FuzzCase minimizeCase(const FuzzCase& c, const std::function<bool(const FuzzCase&)>& reproduces,
                      int64_t max_checks = 400);

// A text with lines, then characters, dropped.
std::string minimizeText(const std::string& text,
                         const std::function<bool(const std::string&)>& reproduces,
                         int64_t max_checks = 400);

}  // namespace fusebox::fuzz
