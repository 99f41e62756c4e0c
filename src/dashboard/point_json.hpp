// One point as the API writes it (the objects of /api/v1/points): its fields in a fixed order,
// null for unknown figures, provenance nested.
#pragma once

#include <string>

#include "core/json_text.hpp"
#include "dashboard/snapshot.hpp"

namespace infermark::dashboard {

/// `point` as a JSON object.
Json PointJson(const DashboardPoint& point);

/// PointJson as compact text (invalid UTF-8 replaced), what a snapshot keeps per point.
std::string PointJsonText(const DashboardPoint& point);

}  // namespace infermark::dashboard
