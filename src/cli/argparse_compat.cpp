#include "cli/argparse_compat.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace infermark::cli {
namespace {

bool IsOptionToken(const std::string& t) {
  if (t.size() < 2 || t[0] != '-') return false;
  // A negative number is a value, as argparse sees it when no option looks like one.
  return !(std::isdigit(static_cast<unsigned char>(t[1])) || (t[1] == '.' && t.size() > 2));
}

const CLI::App* FindSubcommand(const CLI::App* app, const std::string& name) {
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// The option of `app` a `--name` token means: exact long name, else a unique prefix.
const CLI::Option* ResolveLong(const CLI::App* app, const std::string& name, std::string& resolved) {
  const CLI::Option* prefix_match = nullptr;
  int matches = 0;
  for (const CLI::Option* opt : app->get_options()) {
    for (const std::string& lname : opt->get_lnames()) {
      if (lname == name) {
        resolved = lname;
        return opt;
      }
      if (lname.rfind(name, 0) == 0) {
        ++matches;
        prefix_match = opt;
        resolved = lname;
      }
    }
  }
  return matches == 1 ? prefix_match : nullptr;
}

// Options declared with Appending().
std::set<const CLI::Option*>& AppendingOptions() {
  static std::set<const CLI::Option*> options;
  return options;
}

}  // namespace

CLI::Option* Appending(CLI::Option* option) {
  AppendingOptions().insert(option);
  return option;
}

std::vector<std::string> NormalizeArgparseStyle(const CLI::App& root, std::vector<std::string> args) {
  const CLI::App* app = &root;
  struct Occurrence {
    std::size_t begin, end;
  };
  std::map<const CLI::Option*, std::vector<Occurrence>> seen;
  std::vector<bool> drop(args.size(), false);
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string& t = args[i];
    if (t == "--") break;
    if (!IsOptionToken(t)) {
      if (const CLI::App* sub = FindSubcommand(app, t)) {
        app = sub;
        seen.clear();  // options of an outer command stay as given
      }
      continue;
    }
    if (t.rfind("--", 0) != 0) continue;
    const std::size_t eq = t.find('=');
    const std::string name = t.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string resolved;
    const CLI::Option* opt = ResolveLong(app, name, resolved);
    if (opt == nullptr) continue;
    if (resolved != name) t = "--" + resolved + (eq == std::string::npos ? "" : t.substr(eq));
    std::size_t end = i + 1;
    const bool takes_values = opt->get_expected_min() > 0;
    if (eq == std::string::npos && takes_values && (end == args.size() || IsOptionToken(args[end]))) {
      // argparse takes `--opt -x` as a missing value, not as the value "-x".
      throw CLI::ArgumentMismatch(resolved, opt->get_items_expected_min(), 0);
    }
    if (eq == std::string::npos && takes_values) {
      const int max_values = opt->get_items_expected_max();
      int taken = 0;
      while (end < args.size() && !IsOptionToken(args[end]) && args[end] != "--" && taken < max_values) {
        ++end;
        ++taken;
      }
    }
    auto& list = seen[opt];
    if (AppendingOptions().count(opt) > 0) list.clear();
    for (const auto& earlier : list) {
      for (std::size_t k = earlier.begin; k < earlier.end; ++k) drop[k] = true;
    }
    list.assign(1, Occurrence{i, end});
    i = end - 1;
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!drop[i]) out.push_back(std::move(args[i]));
  }
  return out;
}

CLI::Validator PythonInt() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        std::string s = value;
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
        while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
        std::string sign;
        if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
          if (s[0] == '-') sign = "-";
          s.erase(0, 1);
        }
        std::string digits;
        bool ok = !s.empty() && std::isdigit(static_cast<unsigned char>(s.front())) &&
                  std::isdigit(static_cast<unsigned char>(s.back()));
        for (std::size_t i = 0; ok && i < s.size(); ++i) {
          if (std::isdigit(static_cast<unsigned char>(s[i]))) {
            digits += s[i];
          } else if (s[i] != '_' || s[i + 1] == '_') {
            ok = false;
          }
        }
        if (!ok) return "invalid int value: '" + value + "'";
        const auto first = digits.find_first_not_of('0');
        digits = first == std::string::npos ? "0" : digits.substr(first);
        value = (digits == "0" ? "" : sign) + digits;
        return {};
      },
      "INT", "PythonInt");
}

}  // namespace infermark::cli
