// The API's routes, one function each (api.cpp dispatches on the path). Each reads its query
// strictly and throws QueryError for a bad parameter.
#pragma once

#include "dashboard/api.hpp"
#include "dashboard/query.hpp"

namespace infermark::dashboard::routes {

/// GET /api/v1/meta: store, filter values, runs and axes.
ApiReply Meta(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/points: the filtered points.
ApiReply Points(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/runs: every run.
ApiReply Runs(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/export.csv: the filtered points as CSV, units in the headers.
ApiReply ExportCsv(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/frontier: the Pareto frontier of each series.
ApiReply Frontier(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/iso: each series read at target interactivities.
ApiReply Iso(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/history: each series' iso value per run date, regressions flagged.
ApiReply History(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/compare: `results compare` between two runs.
ApiReply Compare(const Snapshot& snapshot, const ApiSources& sources, const Query& query);
/// GET /api/v1/evaluations: the filtered accuracy evaluations, each with the points of its configuration.
ApiReply Evaluations(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/prices: the dated price table.
ApiReply Prices(const ApiSources& sources, const Query& query);

/// A JSON reply with status 200.
ApiReply JsonReply(const Json& body);

}  // namespace infermark::dashboard::routes
