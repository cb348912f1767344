// The block-scan kernel (scan_analysis.h says what it takes). Block b scans
// row b: in chunks of threads x vector_width elements, each thread computes
// the scanned value of its vector_width consecutive elements (the
// elementwise ops before the scan, with vector loads where the row is
// contiguous), scans them in order, and the block scans the threads' totals
// (fusebox::blockExclusiveScan); the running value of the chunks before is
// carried in a register. Each element's scanned value then feeds the
// elementwise ops after the scan and every output is written.
#pragma once

#include <fusebox/kernel_plan.h>

#include <memory>

#include "scan_analysis.h"

namespace fusebox::scan {

std::unique_ptr<KernelPlan> makeScanPlan(const Fusion& segment, const ScanStructure& st,
                                         const ScanFacts& facts, const ScanParams& p,
                                         RuntimeInfo& info);

}  // namespace fusebox::scan
