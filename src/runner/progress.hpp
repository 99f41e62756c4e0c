// Sweep progress for people: one line per finished row (its status, its verdict and headline
// figure) and, on a terminal, a redrawn bar under them with counts and the ETA (mean time of the
// rows run so far × rows left); without a terminal the lines alone, for logs.
#pragma once

#include <cstdio>
#include <string>

namespace infermark::runner {

/// Draws sweep progress on a stream.
class Progress {
 public:
  /// `total` rows; `tty` picks the redrawn bar (else plain lines).
  Progress(std::FILE* out, int total, bool tty);
  /// A row starts (`index` is 0-based).
  void Start(int index, const std::string& name);
  /// A row ended with `status` after `seconds`; skipped rows pass `ran` false (no ETA weight);
  /// `headline` is what the row measured (RowHeadline), printed after its name.
  void Finish(int index, const std::string& name, const std::string& status, double seconds, bool ran,
              const std::string& headline = "");
  /// A row's attempt ended INVALID for a reason of the host and runs again (`attempt` is 1-based).
  void Retry(int index, const std::string& name, int attempt, double seconds);
  /// Ends the bar's line.
  void Close();
  /// `seconds` as `1h02m`, `4m05s` or `12s`.
  static std::string Duration(double seconds);
  /// A row's result in a few words: its verdict and, de-scaled to the modelled hardware, total
  /// throughput per GPU and median interactivity, with the largest host error of a headline
  /// figure ("VALID  1234.5 tok/s/GPU at 45.6 tok/s/user, host error 0.31 %"); empty when the
  /// result cannot be read.
  static std::string RowHeadline(const std::string& result_path);

 private:
  void Draw(const std::string& current);

  std::FILE* out_;
  int total_;
  bool tty_;
  int finished_ = 0;
  int ran_ = 0;
  double ran_seconds_ = 0;
};

}  // namespace infermark::runner
