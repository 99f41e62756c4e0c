// The API's routes past the points list (docs/dashboard.md): the reliability of rows per GPU and per
// runner label, every row attempt and each one's result and logs, a point's own page (provenance,
// verdict and host error per figure, attempts, evaluations, logs), its request timeline with TTFT
// and ITL histograms, its GPU telemetry with statistics per field, and an evaluation's samples.
#pragma once

#include <optional>
#include <string_view>

#include "dashboard/api.hpp"
#include "dashboard/query.hpp"

namespace infermark::dashboard {

/// Answers `/api/v1/reliability`, `/api/v1/attempts`, `/api/v1/attempts/ID`, `/api/v1/points/ID`,
/// `/api/v1/points/ID/timeline`, `/api/v1/points/ID/telemetry` and
/// `/api/v1/evaluations/ID/samples`; nullopt for any other path. An unknown id is a 404.
std::optional<ApiReply> HandleDetailApi(const Snapshot& snapshot, const ApiSources& sources, std::string_view path,
                                        const Query& query);

namespace routes {

/// GET /api/v1/reliability: success rates per GPU and per runner label over 3, 7, 30, 90 days and
/// all time, failure classes counted, the failures listed.
ApiReply Reliability(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/attempts: row attempts, filtered and paged.
ApiReply Attempts(const Snapshot& snapshot, const Query& query);
/// GET /api/v1/attempts/ID: one attempt with its result and logs' tails.
ApiReply Attempt(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query);
/// GET /api/v1/points/ID: a point's page.
ApiReply PointPage(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query);
/// GET /api/v1/points/ID/timeline: its requests' timeline and latency histograms.
ApiReply PointTimeline(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query);
/// GET /api/v1/points/ID/telemetry: its GPUs' telemetry over time with statistics per field.
ApiReply PointTelemetry(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query);
/// GET /api/v1/evaluations/ID/samples: an evaluation's documents, a page at a time.
ApiReply EvaluationSamples(const Snapshot& snapshot, const ApiSources& sources, std::int64_t id, const Query& query);

/// The attempt as the API writes it (without result and logs).
Json AttemptJson(const DashboardAttempt& attempt);

}  // namespace routes
}  // namespace infermark::dashboard
