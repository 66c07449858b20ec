#include "gpuspec/benches/verification.hpp"

#include <fmt/format.h>

namespace gpuspec::benches {

unsigned verification_threads(std::size_t n) {
  constexpr std::size_t per_thread_minimum = std::size_t{1} << 20;
  if (n < 2 * per_thread_minimum)
    return 1;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto by_size = static_cast<unsigned>(std::min<std::size_t>(n / per_thread_minimum, 32));
  return std::clamp(std::min(cores, by_size), 1u, 32u);
}

reports::verification to_verification(const elementwise_report& r, double tolerance,
                                      const std::string& what) {
  reports::verification v;
  v.tolerance = tolerance;
  v.max_rel_error = r.max_rel_error;
  v.status = r.failures == 0 && r.checked > 0 ? reports::verification_status::passed
                                              : reports::verification_status::failed;
  if (r.checked == 0) {
    v.detail = "nothing was checked: " + what;
    return v;
  }
  v.detail = fmt::format(
      "every element checked ({}): {}; max relative error {:.3g} at index {}, tolerance {:.3g}",
      r.checked, what, r.max_rel_error, r.worst_index, tolerance);
  if (r.failures > 0) {
    v.detail += fmt::format("; {} element(s) out of tolerance", r.failures);
    if (r.not_written > 0)
      v.detail += fmt::format(", {} of them not written (still holding the poison)", r.not_written);
    if (r.non_finite > 0)
      v.detail += fmt::format(", {} of them not finite (never written, or overflow)", r.non_finite);
    if (r.first_failure)
      v.detail +=
          fmt::format("; first at index {}: {}got {:.9g}, expected {:.9g}", *r.first_failure,
                      r.first_not_written ? "not written, " : "", r.first_got, r.first_expected);
  }
  return v;
}

reports::verification scalar_verification(double got, double expected, double tolerance,
                                          const std::string& what) {
  reports::verification v;
  v.tolerance = tolerance;
  const double err = relative_error(got, expected);
  const bool finite = std::isfinite(got);
  if (finite)
    v.max_rel_error = err;
  v.status = finite && err <= tolerance ? reports::verification_status::passed
                                        : reports::verification_status::failed;
  v.detail =
      fmt::format("{}: got {:.17g}, expected {:.17g}, relative error {:.3g}, tolerance {:.3g}",
                  what, got, expected, err, tolerance);
  return v;
}

} // namespace gpuspec::benches
