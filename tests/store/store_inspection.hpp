// Reading back what the results module wrote, for tests: every cell of a SQL query on a store,
// and one column of an exported CSV.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace infermark::results::inspect {

/// Every cell of every row of `sql` on the store at `path`, "NULL" for NULL.
inline std::vector<std::vector<std::string>> Query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::vector<std::vector<std::string>> rows;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const auto* text = sqlite3_column_text(stmt, i);
      row.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

/// The CSV cell of `column` (a header name without its unit) for each line of `csv` after the header.
inline std::vector<std::string> CsvColumn(const std::string& csv, const std::string& column) {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  std::vector<std::string> header;
  std::istringstream cells(line);
  for (std::string cell; std::getline(cells, cell, ',');) header.push_back(cell.substr(0, cell.find(" [")));
  const auto at = static_cast<std::size_t>(std::find(header.begin(), header.end(), column) - header.begin());
  EXPECT_LT(at, header.size()) << column;
  std::vector<std::string> values;
  while (std::getline(lines, line)) {
    std::vector<std::string> row;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) row.push_back(cell);
    if (line.back() == ',') row.emplace_back();
    values.push_back(at < row.size() ? row[at] : "?");
  }
  return values;
}

}  // namespace infermark::results::inspect
