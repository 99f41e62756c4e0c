// Parsing a large YAML mapping on several threads: cut at its top-level keys, joined in order.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/yaml_node.hpp"

namespace infermark {

/// Parses `text` exactly as ParseYaml does — same tree, same marks, same errors — faster for a
/// large document whose root is a block mapping with its keys at column 0 (a master config):
/// the text is cut before top-level keys into ranges parsed on threads, and their mappings are
/// joined in order with lines renumbered. Whatever the cut could change goes through ParseYaml
/// whole instead: documents markers, directives, merge keys, line breaks other than LF or CRLF,
/// NUL bytes, a range that does not parse on its own (an alias to an anchor in another range, a
/// quoted scalar running across a cut), a key repeated across ranges, or the node limit.
YamlDocument ParseYamlSplit(std::string_view text, const std::string& name, const YamlLimits& limits = {});

/// ParseYamlSplit cut into at most `ranges` ranges whatever the size (1: ParseYaml), for tests;
/// `split`, when given, tells whether the ranges' trees were used rather than a whole parse.
YamlDocument ParseYamlInRanges(std::string_view text, const std::string& name, std::size_t ranges,
                               const YamlLimits& limits = {}, bool* split = nullptr);

/// Reads and parses a file with ParseYamlSplit; a missing or unreadable file is an InputError.
YamlDocument LoadYamlFileSplit(const std::string& path, const YamlLimits& limits = {});

}  // namespace infermark
