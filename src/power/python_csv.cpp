#include "power/python_csv.hpp"

namespace infermark::results {
namespace {

bool IsContinuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the well-formed UTF-8 sequence at `at`, or the length of its longest valid prefix
// negated (-1 for a byte that starts nothing), as Python's decoder decides where to replace.
int SequenceLength(std::string_view text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  if (c < 0x80) return 1;
  int need = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  for (int i = 1; i <= need; ++i) {
    if (at + static_cast<std::size_t>(i) >= text.size()) return -i;
    const auto next = static_cast<unsigned char>(text[at + static_cast<std::size_t>(i)]);
    const bool ok = i == 1 ? (next >= lo && next <= hi) : IsContinuation(next);
    if (!ok) return -i;
  }
  return need + 1;
}

enum class State { kStartRecord, kStartField, kInField, kInQuotedField, kQuoteInQuotedField, kEatCrNl };

// CPython's _csv reader state machine for the excel dialect (skipinitialspace optional), fed one
// line at a time (the line includes its terminator), then an end-of-line marker.
class Parser {
 public:
  Parser(std::vector<std::vector<std::string>>& records, bool skip_initial_space)
      : records_(records), skip_initial_space_(skip_initial_space) {}

  // False when a field grew past the size limit.
  bool Line(std::string_view line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (!Char(c)) return false;
    }
    return EndOfLine();
  }

  // The end of input: a pending field is saved as the reader does when not strict.
  bool Finish() {
    if (field_chars_ != 0 || state_ == State::kInQuotedField) {
      SaveField();
      records_.push_back(std::move(fields_));
      fields_.clear();
    }
    return true;
  }

  bool mid_record() const { return state_ != State::kStartRecord; }

 private:
  bool Add(unsigned char c) {
    // Count characters, not bytes: a continuation byte belongs to the character before it.
    if (!IsContinuation(c)) {
      if (field_chars_ >= kCsvFieldLimit) return false;
      ++field_chars_;
    }
    field_ += static_cast<char>(c);
    return true;
  }
  void SaveField() {
    fields_.push_back(std::move(field_));
    field_.clear();
    field_chars_ = 0;
  }
  void EndRecordOn(bool eol) { state_ = eol ? State::kStartRecord : State::kEatCrNl; }

  bool Char(unsigned char c) {
    const bool newline = c == '\n' || c == '\r';
    switch (state_) {
      case State::kStartRecord:
        if (newline) {
          state_ = State::kEatCrNl;
          return true;
        }
        state_ = State::kStartField;
        [[fallthrough]];
      case State::kStartField:
        if (newline) {
          SaveField();
          EndRecordOn(false);
        } else if (c == '"') {
          state_ = State::kInQuotedField;
        } else if (c == ' ' && skip_initial_space_) {
        } else if (c == ',') {
          SaveField();
        } else {
          if (!Add(c)) return false;
          state_ = State::kInField;
        }
        return true;
      case State::kInField:
        if (newline) {
          SaveField();
          EndRecordOn(false);
        } else if (c == ',') {
          SaveField();
          state_ = State::kStartField;
        } else if (!Add(c)) {
          return false;
        }
        return true;
      case State::kInQuotedField:
        if (c == '"') {
          state_ = State::kQuoteInQuotedField;
        } else if (!Add(c)) {
          return false;
        }
        return true;
      case State::kQuoteInQuotedField:
        if (c == '"') {
          if (!Add(c)) return false;
          state_ = State::kInQuotedField;
        } else if (c == ',') {
          SaveField();
          state_ = State::kStartField;
        } else if (newline) {
          SaveField();
          EndRecordOn(false);
        } else {
          if (!Add(c)) return false;
          state_ = State::kInField;
        }
        return true;
      case State::kEatCrNl:
        // Lines are split at their terminators, so nothing but more of the terminator follows.
        return true;
    }
    return true;
  }

  bool EndOfLine() {
    switch (state_) {
      case State::kStartRecord:
        break;
      case State::kStartField:
      case State::kInField:
      case State::kQuoteInQuotedField:
        SaveField();
        state_ = State::kStartRecord;
        break;
      case State::kInQuotedField:
        return true;  // the record continues on the next line
      case State::kEatCrNl:
        state_ = State::kStartRecord;
        break;
    }
    records_.push_back(std::move(fields_));
    fields_.clear();
    return true;
  }

  std::vector<std::vector<std::string>>& records_;
  bool skip_initial_space_ = true;
  std::vector<std::string> fields_;
  std::string field_;
  std::size_t field_chars_ = 0;
  State state_ = State::kStartRecord;
};

}  // namespace

std::string DecodeUtf8Replace(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const int n = SequenceLength(text, at);
    if (n > 0) {
      out.append(text.substr(at, static_cast<std::size_t>(n)));
      at += static_cast<std::size_t>(n);
    } else {
      out += "\xEF\xBF\xBD";
      at += static_cast<std::size_t>(-n);
    }
  }
  return out;
}

std::string_view StripPython(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::vector<std::string>> ParseCsvRecords(std::string_view text, bool skip_initial_space,
                                                      bool& read_error) {
  std::vector<std::vector<std::string>> records;
  Parser parser(records, skip_initial_space);
  bool ok = true;
  std::size_t at = 0;
  while (ok && at < text.size()) {
    // A line ends after \n, after \r\n, or after a \r not followed by \n (newline="").
    std::size_t end = text.find_first_of("\r\n", at);
    if (end == std::string::npos) {
      end = text.size();
    } else if (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') {
      end += 2;
    } else {
      end += 1;
    }
    ok = parser.Line(std::string_view(text).substr(at, end - at));
    at = end;
  }
  if (ok) parser.Finish();
  read_error = !ok;
  return records;
}

CsvDict ParseCsvDict(std::string_view raw) {
  const std::string text = DecodeUtf8Replace(raw);
  bool read_error = false;
  std::vector<std::vector<std::string>> records = ParseCsvRecords(text, true, read_error);
  CsvDict dict;
  dict.read_error = read_error;
  if (records.empty()) return dict;
  dict.has_header = true;
  for (const std::string& name : records.front()) dict.header.emplace_back(StripPython(name));
  for (std::size_t i = 1; i < records.size(); ++i) {
    if (!records[i].empty()) dict.rows.push_back(std::move(records[i]));
  }
  return dict;
}

std::optional<std::string_view> CsvDict::Get(std::size_t index, std::string_view name) const {
  std::optional<std::size_t> last;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) last = i;
  }
  const std::vector<std::string>& row = rows.at(index);
  if (!last || *last >= row.size()) return std::nullopt;
  return row[*last];
}

}  // namespace infermark::results
