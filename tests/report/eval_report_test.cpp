// Evaluations read out of the store: the report's accuracy section (score dot and error bar on a
// shared axis, the threshold line, the verdict; not-run and INVALID evaluations without a score)
// linked from the points table, the comparison of two runs' scores (a drop beyond two standard
// errors of the difference, or below the threshold, is a regression), and the CSV export.
#include <gtest/gtest.h>

#include <cmath>

#include "report/csv_export.hpp"
#include "report/eval_compare.hpp"
#include "report/eval_section.hpp"
#include "report/report.hpp"
#include "results/sample_points.hpp"
#include "text_count.hpp"

namespace infermark::results {
namespace {

// The HTML of the evaluation row with anchor `id`.
std::string EvalRow(const std::string& html, const std::string& id) {
  const std::size_t begin = html.find("<tr id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</tr>", begin) - begin);
}

std::vector<Evaluation> Evaluations() {
  sample::SampleSpec b200;
  b200.hw = "b200";
  std::vector<Evaluation> list = {
      sample::SampleEvaluation({}, 16, EvalStatus::kScored, 0.95),
      sample::SampleEvaluation({}, 64, EvalStatus::kScored, 0.62),
      sample::SampleEvaluation({}, 256, EvalStatus::kNotRun),
      sample::SampleEvaluation(b200, 64, EvalStatus::kInvalid),
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    list[i].id = static_cast<std::int64_t>(i + 1);
    list[i].run_key = "sweep-1";
  }
  return list;
}

TEST(EvalReport, SectionShowsScoresThresholdsAndStatusesLinkedFromPoints) {
  RunSummary run;
  run.id = 1;
  run.info.run_key = "sweep-1";
  run.info.label = "sweep 1";
  run.points = 3;
  const std::vector<ReportRun> runs = {{run, sample::SampleCurve({}, {4, 16, 64}), Evaluations()}};
  const std::string html = RenderReport(runs, {});
  ASSERT_NE(html.find("<section class=\"evaluations\" id=\"evaluations\">"), std::string::npos);
  EXPECT_NE(html.find("Accuracy evaluations (4)"), std::string::npos);

  const std::string pass = EvalRow(html, "eval-1");
  EXPECT_NE(pass.find("circle class=\"score pass\""), std::string::npos) << pass;
  EXPECT_NE(pass.find("line class=\"error-bar pass\""), std::string::npos) << pass;
  EXPECT_NE(pass.find("line class=\"threshold\""), std::string::npos) << pass;
  EXPECT_NE(pass.find("0.9500 ± 0.0060"), std::string::npos) << pass;
  EXPECT_NE(pass.find(">PASS<"), std::string::npos) << pass;
  const std::string fail = EvalRow(html, "eval-2");
  EXPECT_NE(fail.find("circle class=\"score fail\""), std::string::npos) << fail;
  EXPECT_NE(fail.find("gsm8k 0.62 &lt; 0.92 (minimaxm3)"), std::string::npos) << fail;
  for (const std::string id : {"eval-3", "eval-4"}) {
    const std::string row = EvalRow(html, id);
    ASSERT_FALSE(row.empty()) << id;
    EXPECT_EQ(row.find("<circle"), std::string::npos) << row;
    EXPECT_EQ(row.find("error-bar"), std::string::npos) << row;
    EXPECT_NE(row.find("(no score)"), std::string::npos) << row;
    EXPECT_EQ(row.find("0.0000"), std::string::npos) << "an evaluation without a score shows no 0: " << row;
  }
  EXPECT_NE(EvalRow(html, "eval-3").find("NOT RUN"), std::string::npos);
  EXPECT_NE(EvalRow(html, "eval-4").find("INVALID"), std::string::npos);
  // The shared axis starts a 0.05 step below the lowest figure (0.62 − 0.006): 0.55.
  EXPECT_NE(html.find("the axis runs from 0.55 to 1.00"), std::string::npos);

  // The points table links each point to the evaluations of its configuration: conc 16 and 64 have
  // one each, conc 4 none; the b200 evaluation matches no point.
  EXPECT_NE(html.find("<th class=\"l\">accuracy</th>"), std::string::npos);
  EXPECT_EQ(test::Occurrences(html, "href=\"#eval-1\""), 1u);
  EXPECT_EQ(test::Occurrences(html, "href=\"#eval-2\""), 1u);
  EXPECT_EQ(test::Occurrences(html, "href=\"#eval-3\""), 0u);
  EXPECT_EQ(test::Occurrences(html, "href=\"#eval-4\""), 0u);
  EXPECT_NE(html.find("href=\"#eval-2\">gsm8k FAIL</a>"), std::string::npos);
}

TEST(EvalReport, NoEvaluationsNoSectionNoColumn) {
  RunSummary run;
  run.id = 1;
  const std::string html = RenderReport({{run, sample::SampleCurve({}, {4}), {}}}, {});
  EXPECT_EQ(html.find("id=\"evaluations\""), std::string::npos);
  EXPECT_EQ(html.find("<th class=\"l\">accuracy</th>"), std::string::npos);
}

TEST(EvalCompare, DropBeyondTwoStandardErrorsOrBelowThresholdIsARegression) {
  const auto eval = [](int conc, EvalStatus status, double score) {
    return sample::SampleEvaluation({}, conc, status, score);
  };
  const std::vector<Evaluation> base = {eval(4, EvalStatus::kScored, 0.95), eval(16, EvalStatus::kScored, 0.95),
                                        eval(64, EvalStatus::kScored, 0.95), eval(256, EvalStatus::kScored, 0.95),
                                        eval(512, EvalStatus::kScored, 0.95)};
  const std::vector<Evaluation> cand = {eval(4, EvalStatus::kScored, 0.94),   // −0.01 within 2 × 0.0085
                                        eval(16, EvalStatus::kScored, 0.93),  // −0.02 beyond it
                                        eval(64, EvalStatus::kScored, 0.90),  // below 0.92 too
                                        eval(256, EvalStatus::kNotRun, 0), eval(1024, EvalStatus::kScored, 0.96)};
  const EvaluationComparison c = CompareEvaluations(base, cand);
  ASSERT_EQ(c.changes.size(), 6u);
  EXPECT_FALSE(c.changes[0].regression);
  EXPECT_NEAR(*c.changes[0].delta, -0.01, 1e-12);
  EXPECT_NEAR(*c.changes[0].delta_stderr, std::sqrt(2 * 0.006 * 0.006), 1e-12);
  EXPECT_TRUE(c.changes[1].regression);
  EXPECT_EQ(c.changes[1].note, "drop of 0.0200 > 2 stderr (0.0170)");
  EXPECT_TRUE(c.changes[2].regression);
  EXPECT_NE(c.changes[2].note.find("below threshold 0.92 (minimaxm3)"), std::string::npos) << c.changes[2].note;
  EXPECT_FALSE(c.changes[3].regression);
  EXPECT_EQ(c.changes[3].note, "scored -> not_run");
  EXPECT_FALSE(c.changes[3].delta.has_value());
  EXPECT_EQ(c.changes[4].note, "new");
  EXPECT_EQ(c.changes[5].note, "missing in the candidate");
  EXPECT_EQ(c.regressions, 2);
  const std::string text = FormatEvaluationComparison(c);
  EXPECT_NE(text.find("REGRESSION: drop of 0.0200"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT RUN"), std::string::npos) << text;
  EXPECT_NE(text.find("2 evaluation regression(s)"), std::string::npos) << text;
  EXPECT_EQ(FormatEvaluationComparison(CompareEvaluations({}, {})), "");
}

TEST(EvalCsv, ScoresEmptyWhereThereAreNone) {
  const std::string csv = ExportEvaluationsCsv(Evaluations());
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < csv.size();) {
    const std::size_t end = csv.find('\n', at);
    lines.push_back(csv.substr(at, end - at));
    at = end + 1;
  }
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].rfind("run,model,model_prefix,hw,framework,precision,spec_decoding,disagg,parallelism,", 0), 0u);
  EXPECT_NE(lines[1].find(",scored,,0.95,0.006,,,1319,0.92,minimaxm3,PASS,16,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[3].find(",not_run,not_run in the sample,,,,,,0.92,minimaxm3,NOT RUN,256,"), std::string::npos)
      << lines[3];
}

}  // namespace
}  // namespace infermark::results
