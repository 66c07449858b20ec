#pragma once
/// The watchdog's allowances, in one place (docs/architecture.md, "Deadlines").

namespace gpuspec::spine {

/// The setup allowance of a case whose benchmark declares none: allocation, host-side
/// initialisation, the first launch (lazy module loading, cuBLAS handles) and the host-side
/// verification after the samples.
inline constexpr double default_setup_allowance_s = 60.0;

/// A case's deadline if it runs to its time cap T (--max-time) with runs too short to matter:
/// its setup allowance A plus 2 T, plus the duration D of a case that runs for the burn-in's
/// --duration (0 for every other case). Each timed run the worker reports extends it by 3 L
/// (coordinator.hpp).
[[nodiscard]] constexpr double case_deadline_s(double setup_allowance_s, double max_time_s,
                                               double duration_s = 0) {
  return setup_allowance_s + 2 * max_time_s + duration_s;
}

} // namespace gpuspec::spine
