// The API's common filters (model, hardware, framework, precision, sequence, isl, osl, disagg,
// spec, kind, valid, run, from, to): several values of one filter mean OR, different filters AND, an
// absent filter lets everything through.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dashboard/query.hpp"
#include "dashboard/snapshot.hpp"

namespace infermark::dashboard {

/// The query parameters every points-like route takes (the filters and `token`).
const std::set<std::string, std::less<>>& FilterParameters();

/// A parsed filter set.
struct PointFilter {
  std::vector<std::string> model;        ///< Model ids.
  std::vector<std::string> hardware;     ///< Hardware keys.
  std::vector<std::string> framework;    ///< Frameworks.
  std::vector<std::string> precision;    ///< Precisions.
  std::vector<std::string> sequence;     ///< `1k/1k`, `agentic`…
  std::vector<long long> isl;            ///< Input lengths.
  std::vector<long long> osl;            ///< Output lengths.
  std::optional<bool> disagg;            ///< Disaggregated or not.
  std::optional<bool> spec;              ///< With or without speculative decoding.
  std::vector<std::string> spec_method;  ///< Speculative decoding methods.
  std::optional<bool> predicted;         ///< Only predicted (true) or only measured (false) points.
  std::optional<bool> valid;             ///< Only points not judged INVALID (true) or only INVALID ones (false).
  std::vector<std::int64_t> run;         ///< Run ids.
  std::string from;                      ///< Earliest date, inclusive (empty: none).
  std::string to;                        ///< Latest date, inclusive (empty: none).

  /// Reads the filters from `query` against `snapshot` (runs are named by id or key). Throws
  /// QueryError naming the parameter for a malformed value or an unknown run.
  static PointFilter Parse(const Query& query, const Snapshot& snapshot);
  /// Whether `point` passes every filter.
  [[nodiscard]] bool Matches(const DashboardPoint& point) const;
};

}  // namespace infermark::dashboard
