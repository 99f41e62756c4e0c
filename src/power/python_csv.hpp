// CSV text read as Python's `csv.DictReader(open(f, newline="", errors="replace"),
// skipinitialspace=True)` reads it: the excel dialect (comma, double quote, doubled quotes),
// spaces after a delimiter skipped, lines ending in \n, \r\n or \r, quoted fields spanning lines,
// blank lines skipped after the header, invalid UTF-8 replaced by U+FFFD, and csv's field size
// limit (131072 characters) as the one read error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace infermark::results {

/// csv's default `field_size_limit()`, in characters.
inline constexpr std::size_t kCsvFieldLimit = 131072;

/// A CSV file as DictReader sees it.
struct CsvDict {
  /// The first record (empty when the first line is blank), each name stripped as Python's
  /// `str.strip()` strips it.
  std::vector<std::string> header;
  /// The records after the header, blank lines left out, in file order.
  std::vector<std::vector<std::string>> rows;
  /// False when the file holds no record at all, or reading failed inside the first record.
  bool has_header = false;
  /// True when reading stopped at a field longer than kCsvFieldLimit (csv.Error): `rows` holds the
  /// records before it.
  bool read_error = false;

  /// What `row.get(name)` returns for row `index`: the value of the last column named `name`, or
  /// nullopt when the header has no such name or the row is too short to reach it (DictReader's
  /// restval).
  std::optional<std::string_view> Get(std::size_t index, std::string_view name) const;
};

/// `text` (raw file bytes) parsed as above.
CsvDict ParseCsvDict(std::string_view text);

/// Every record of `text` (UTF-8) as `csv.reader(open(f, newline=""))` yields them: blank lines as
/// empty records, spaces after a delimiter kept unless `skip_initial_space`. `read_error` is set
/// when reading stopped at a field longer than kCsvFieldLimit (`records` holds those before it).
std::vector<std::vector<std::string>> ParseCsvRecords(std::string_view text, bool skip_initial_space, bool& read_error);

/// `text` with every invalid UTF-8 sequence replaced by U+FFFD, as Python's `errors="replace"`.
std::string DecodeUtf8Replace(std::string_view text);

/// Python's `str.strip()` for ASCII whitespace (space, \t \n \v \f \r and \x1c–\x1f).
std::string_view StripPython(std::string_view text);

}  // namespace infermark::results
