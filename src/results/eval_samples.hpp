// An eval's answers document by document, as the store keeps them for the drill-down: the
// question, the model's response, the answer each filter extracted (the gated one, `strict-match`,
// and the other, `flexible-extract`), the target and whether the gated answer was correct. Read
// from lm-eval's `samples_<task>_<stamp>.jsonl` (one line per document and filter) in an eval folder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace infermark::results {

/// One document of an eval.
struct StoredEvalSample {
  long long doc_id = 0;                  ///< lm-eval's document index.
  std::string question;                  ///< The document's question (its `question` field, else the prompt sent).
  std::string response;                  ///< The model's answer as received ("" when the request failed).
  std::string strict_answer;             ///< What the gated filter extracted (`[invalid]` when nothing matched).
  std::string flexible_answer;           ///< What the other filter extracted, when the task has one.
  std::string target;                    ///< The expected answer, as the task states it.
  std::optional<bool> correct;           ///< The gated metric is 1 (empty when the file had no value).
  std::optional<bool> flexible_correct;  ///< The other filter's metric is 1.
  std::string error;                     ///< Why the request failed, when it did.
};

/// Which samples of an evaluation to read, a page at a time.
struct EvalSampleQuery {
  std::int64_t evaluation_id = 0;  ///< The evaluation's store id.
  bool wrong_only = false;         ///< Only documents whose gated answer was not correct.
  std::string text;                ///< Only documents whose question, response or target contain this ("" any).
  long long offset = 0;            ///< Matching documents to skip (in document order).
  long long limit = 50;            ///< Documents to return at most.
};

/// One page of an evaluation's samples.
struct EvalSamplePage {
  long long total = 0;                    ///< Documents stored for the evaluation.
  long long wrong = 0;                    ///< Of which the gated answer was not correct.
  long long matched = 0;                  ///< Documents the query selects (before offset and limit).
  std::vector<StoredEvalSample> samples;  ///< The page, in document order.
};

/// The most documents kept per eval, and the most bytes kept of each text (the end is cut, with
/// `…` appended): a reasoning model's answers can run to tens of kilobytes.
inline constexpr std::size_t kMaxEvalSamples = 20000;
/// See kMaxEvalSamples.
inline constexpr std::size_t kMaxEvalSampleText = 32 * 1024;

/// The samples of eval folder `folder`: lm-eval's samples file of the same stamp as `results_file`
/// (its `invalid_`/`incomplete_` variant included), else (unless `own_stamp_only`: one evaluation of
/// a batched folder, whose other files are other concurrencies') the newest samples file there;
/// empty when there is none. `metric` is the gated metric as `name,filter` (`exact_match,strict-match`): lines
/// of that filter give the answer and `correct`, lines of any other filter the flexible ones.
/// Sorted by document. Throws InputError naming the file and line for a line that is not a JSON
/// object with a numeric `doc_id`.
std::vector<StoredEvalSample> ReadEvalSamples(const std::string& folder, const std::string& metric,
                                              const std::string& results_file, bool own_stamp_only = false);

}  // namespace infermark::results
