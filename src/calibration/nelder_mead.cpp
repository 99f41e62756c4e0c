#include "calibration/nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace infermark::calibration {

NelderMeadResult NelderMead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                            const NelderMeadOptions& o) {
  const std::size_t n = x0.size();
  NelderMeadResult best{x0, f(x0), 1};
  for (int round = 0; round <= o.restarts && best.evaluations < o.max_evaluations; ++round) {
    std::vector<std::vector<double>> p(n + 1, best.x);
    std::vector<double> v(n + 1, best.value);
    const double step = o.initial_step / (1 << round);
    for (std::size_t i = 0; i < n; ++i) {
      p[i + 1][i] += step;
      v[i + 1] = f(p[i + 1]);
      ++best.evaluations;
    }
    std::vector<std::size_t> order(n + 1);
    while (best.evaluations < o.max_evaluations) {
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
      const std::size_t lo = order[0], hi = order[n], second = order[n - 1];
      if (std::fabs(v[hi] - v[lo]) < o.tolerance * (std::fabs(v[lo]) + 1e-12)) break;
      std::vector<double> centroid(n, 0.0);
      for (std::size_t i = 0; i <= n; ++i)
        if (i != hi)
          for (std::size_t d = 0; d < n; ++d) centroid[d] += p[i][d] / double(n);
      auto along = [&](double t) {
        std::vector<double> x(n);
        for (std::size_t d = 0; d < n; ++d) x[d] = centroid[d] + t * (p[hi][d] - centroid[d]);
        return x;
      };
      const std::vector<double> xr = along(-1.0);
      const double fr = f(xr);
      ++best.evaluations;
      if (fr < v[lo]) {
        const std::vector<double> xe = along(-2.0);
        const double fe = f(xe);
        ++best.evaluations;
        if (fe < fr)
          p[hi] = xe, v[hi] = fe;
        else
          p[hi] = xr, v[hi] = fr;
      } else if (fr < v[second]) {
        p[hi] = xr, v[hi] = fr;
      } else {
        const bool outside = fr < v[hi];
        const std::vector<double> xc = along(outside ? -0.5 : 0.5);
        const double fc = f(xc);
        ++best.evaluations;
        if (fc < std::min(fr, v[hi])) {
          p[hi] = xc, v[hi] = fc;
        } else {  // shrink towards the best vertex
          for (std::size_t i = 0; i <= n; ++i) {
            if (i == lo) continue;
            for (std::size_t d = 0; d < n; ++d) p[i][d] = p[lo][d] + 0.5 * (p[i][d] - p[lo][d]);
            v[i] = f(p[i]);
            ++best.evaluations;
          }
        }
      }
    }
    for (std::size_t i = 0; i <= n; ++i)
      if (v[i] < best.value) best.value = v[i], best.x = p[i];
  }
  return best;
}

}  // namespace infermark::calibration
