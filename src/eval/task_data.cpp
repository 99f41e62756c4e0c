#include "eval/task_data.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/diagnostic.hpp"

namespace infermark::eval {
namespace fs = std::filesystem;

namespace {

bool IsEvalData(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "gsm8k.yaml", ec);
}

}  // namespace

std::string EvalDataDir() {
  if (const char* env = std::getenv("INFERMARK_EVAL_DATA"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  for (fs::path dir = fs::current_path(ec); !dir.empty(); dir = dir.parent_path()) {
    if (IsEvalData(dir / "data" / "evals")) return (dir / "data" / "evals").string();
    if (dir == dir.root_path()) break;
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (fs::path dir = ec ? fs::path() : exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (IsEvalData(dir / "data" / "evals")) return (dir / "data" / "evals").string();
    if (IsEvalData(dir / "share" / "infermark" / "evals")) return (dir / "share" / "infermark" / "evals").string();
    if (dir == dir.root_path()) break;
  }
  throw InputError(
      Diagnostic{SourceMark{}, "", "", "cannot find the evaluation data folder (data/evals): set INFERMARK_EVAL_DATA"});
}

std::string BuiltInTaskFile(const std::string& name) {
  if (name != "gsm8k") return {};
  return (fs::path(EvalDataDir()) / "gsm8k.yaml").string();
}

std::string DatasetFolder(const TaskConfig& task) {
  if (task.dataset_path == "openai/gsm8k") {
    if (!task.dataset_name.empty() && task.dataset_name != "main") {
      throw InputError(
          Diagnostic{SourceMark{task.file, 0, 0}, "", "dataset_name",
                     "openai/gsm8k is shipped in its 'main' configuration only, not '" + task.dataset_name + "'"});
    }
    return (fs::path(EvalDataDir()) / "gsm8k").string();
  }
  fs::path folder(task.dataset_path);
  if (folder.is_relative()) folder = fs::path(task.file).parent_path() / folder;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    throw InputError(Diagnostic{SourceMark{task.file, 0, 0}, "", "dataset_path",
                                "'" + task.dataset_path +
                                    "' is neither a dataset infermark ships (openai/gsm8k) nor a folder of "
                                    "<split>.jsonl files"});
  }
  return folder.string();
}

std::vector<Json> ReadSplit(const std::string& folder, const std::string& split) {
  const std::string path = (fs::path(folder) / (split + ".jsonl")).string();
  std::ifstream in(path);
  if (!in) throw InputError(Diagnostic{SourceMark{path, 0, 0}, "", "", "cannot read the split '" + split + "'"});
  std::vector<Json> docs;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    Json doc = Json::parse(line, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      throw InputError(Diagnostic{SourceMark{path, number, 0}, "", "", "not a JSON object"});
    }
    docs.push_back(std::move(doc));
  }
  return docs;
}

}  // namespace infermark::eval
