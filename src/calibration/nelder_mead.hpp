// A small derivative-free minimizer (Nelder–Mead simplex with restarts): robust on the noisy,
// piecewise-smooth loss of calibration, where the roofline's max() has kinks.
#pragma once

#include <functional>
#include <vector>

namespace infermark::calibration {

/// Settings of one minimization.
struct NelderMeadOptions {
  int max_evaluations = 400;  ///< Budget of loss evaluations (all restarts together).
  int restarts = 1;           ///< Fresh simplices built around the best point so far.
  double initial_step = 0.5;  ///< Simplex edge in each coordinate.
  double tolerance = 1e-5;    ///< Stop when the simplex's losses differ by less.
};

/// The best point found and its loss.
struct NelderMeadResult {
  std::vector<double> x;  ///< Minimizer.
  double value = 0;       ///< Loss at x.
  int evaluations = 0;    ///< Losses evaluated.
};

/// Minimizes `f` from `x0`.
NelderMeadResult NelderMead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                            const NelderMeadOptions& options);

}  // namespace infermark::calibration
