#include "core/memory_budget.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "core/scenario_file.hpp"

namespace talus {

std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
}

std::uint64_t memory_budget_bytes() {
  const std::uint64_t physical = physical_memory_bytes();
  return physical > 0 ? physical / 5 * 4 : std::uint64_t{16} << 30;
}

void check_memory_estimate(const ScenarioTable& table, const std::string& key,
                           double estimated_bytes, const std::string& what) {
  const auto budget = static_cast<double>(memory_budget_bytes());
  if (estimated_bytes <= budget) return;  // also refuses NaN estimates below
  const double gib = static_cast<double>(std::uint64_t{1} << 30);
  table.fail(key, fmt::format("{} would take about {:.3g} GiB of memory; this machine allows "
                              "{:.3g} GiB (80 % of its physical memory): make the item smaller",
                              what, estimated_bytes / gib, budget / gib));
}

}  // namespace talus
