#include <fusebox/kernel_plan.h>

#include <fmt/format.h>

namespace fusebox {

std::string KernelPlan::describe() const {
  return fmt::format("kernel {} grid ({}, {}, {}) block ({}, {}, {}) smem {} B", kernel.name,
                     launch.grid[0], launch.grid[1], launch.grid[2], launch.block[0],
                     launch.block[1], launch.block[2], launch.dynamic_shared_memory) +
         (launch.cooperative ? " cooperative" : "") +
         (launch.cluster > 1 ? fmt::format(" cluster {}", launch.cluster) : "");
}

}  // namespace fusebox
