// Typed model of InferenceX master configs (`configs/*-master.yaml`): one entry per config key,
// each with its scenarios and search spaces, exactly the schema InferenceX's validator accepts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/diagnostic.hpp"
#include "core/json_text.hpp"
#include "core/yaml_node.hpp"

namespace infermark::catalog {

/// `router` metadata: which request router fronts the servers.
struct ComponentMetadata {
  std::string name;     ///< Router name, e.g. `vllm-router`.
  std::string version;  ///< Router version (never an `image:` reference).
  Json raw;             ///< The mapping as written (rows copy it).
};

/// `kv-offload-backend` of an agentic entry.
struct KvOffloadBackend {
  std::string name;                    ///< Backend name.
  std::optional<std::string> version;  ///< Optional version.
  Json raw;                            ///< The mapping as written (rows copy it).
};

/// Concurrency values: a `conc-start`..`conc-end` range or an explicit `conc-list`.
struct Concurrency {
  std::optional<std::int64_t> start;              ///< `conc-start`.
  std::optional<std::int64_t> end;                ///< `conc-end`.
  std::optional<std::vector<std::int64_t>> list;  ///< `conc-list`; a non-empty list wins over a range.
  /// True when a non-empty `conc-list` is given (full-sweep's rule for using the list).
  [[nodiscard]] bool IsList() const { return list.has_value() && !list->empty(); }
};

/// A prefill or decode worker pool of a multi-node entry.
struct WorkerConfig {
  std::int64_t num_worker = 0;                   ///< `num-worker`.
  std::int64_t tp = 0;                           ///< `tp`.
  std::int64_t ep = 0;                           ///< `ep`.
  bool dp_attn = false;                          ///< `dp-attn`.
  std::int64_t pp = 1;                           ///< `pp`.
  std::int64_t dcp_size = 1;                     ///< `dcp-size`.
  std::int64_t pcp_size = 1;                     ///< `pcp-size`.
  std::optional<std::string> hardware;           ///< `hardware` (metadata only).
  std::vector<std::string> additional_settings;  ///< `additional-settings` (KEY=VALUE strings).
  Json raw;                                      ///< The mapping as written, in YAML key order (rows copy it).
};

/// One search-space entry; which fields are set depends on the scenario and node type.
struct SearchSpaceEntry {
  SourceMark mark;                                     ///< Where the entry starts.
  std::optional<std::int64_t> tp;                      ///< Single-node `tp`.
  std::int64_t pp = 1;                                 ///< Single-node `pp`.
  std::int64_t dcp_size = 1;                           ///< Single-node `dcp-size`.
  std::int64_t pcp_size = 1;                           ///< Single-node `pcp-size`.
  bool sets_parallelism = false;                       ///< `pp`, `dcp-size` or `pcp-size` written explicitly.
  std::optional<std::int64_t> ep;                      ///< Single-node `ep` (row default 1).
  std::optional<bool> dp_attn;                         ///< Single-node `dp-attn` (row default false).
  std::string spec_decoding = "none";                  ///< `spec-decoding`: none, mtp or draft_model.
  std::optional<ComponentMetadata> router;             ///< Per-entry `router`.
  bool router_written = false;                         ///< `router` key present, even as null (hides the top level's).
  std::optional<std::string> kv_p2p_transfer;          ///< Per-entry `kv-p2p-transfer` (multi-node only).
  bool kv_p2p_transfer_written = false;                ///< `kv-p2p-transfer` key present, even as null.
  Concurrency conc;                                    ///< Concurrency values.
  bool conc_list_written = false;                      ///< `conc-list` given as a list, even an empty one.
  std::optional<WorkerConfig> prefill;                 ///< Multi-node prefill pool.
  std::optional<WorkerConfig> decode;                  ///< Multi-node decode pool.
  std::optional<std::string> kv_offloading;            ///< Agentic `kv-offloading`: none or dram.
  std::optional<KvOffloadBackend> kv_offload_backend;  ///< Agentic `kv-offload-backend`.
  std::optional<double> hicache_ratio;                 ///< Agentic `hicache-ratio` (> 0).
  Json hicache_ratio_raw;                              ///< `hicache-ratio` as written (rows copy it).
};

/// `fixed-seq-len` scenario: one input/output length pair and its search space.
struct SeqLenConfig {
  std::int64_t isl = 0;                        ///< Input sequence length.
  std::int64_t osl = 0;                        ///< Output sequence length.
  std::vector<SearchSpaceEntry> search_space;  ///< Points to sweep.
};

/// `agentic-coding` scenario.
struct AgenticConfig {
  std::optional<double> dram_utilization;      ///< `dram-utilization` in (0, 1].
  std::vector<SearchSpaceEntry> search_space;  ///< Points to sweep.
};

/// One config key of a master file.
struct MasterEntry {
  std::string key;                             ///< The config key.
  SourceMark mark;                             ///< Where the key is written.
  std::string file;                            ///< File that holds the entry.
  std::string image;                           ///< Container image.
  std::string model;                           ///< Served model (HF id or path).
  std::string model_prefix;                    ///< Short model code, e.g. `minimaxm3`.
  std::string precision;                       ///< e.g. `fp4`.
  std::string framework;                       ///< e.g. `vllm`, `vllm-disagg`.
  std::string runner;                          ///< A runners.yaml label.
  bool multinode = false;                      ///< Multi-node entry.
  bool disagg = false;                         ///< Disaggregated prefill/decode.
  std::optional<ComponentMetadata> router;     ///< Top-level `router`.
  std::optional<std::string> kv_p2p_transfer;  ///< Top-level `kv-p2p-transfer`.
  std::vector<SeqLenConfig> fixed_seq_len;     ///< `scenarios.fixed-seq-len`.
  std::vector<AgenticConfig> agentic_coding;   ///< `scenarios.agentic-coding`.
};

/// Master configs merged from one or more files, in file order then key order.
struct MasterCatalog {
  std::vector<MasterEntry> entries;  ///< All entries.
  std::vector<std::string> files;    ///< Files read, in order.
  /// The parsed documents, kept with the catalog (freeing a YAML tree is as costly as building it,
  /// so a short-lived command can skip both frees together).
  std::vector<std::shared_ptr<const YamlDocument>> documents;
  /// The entry named `key`, or nullptr.
  [[nodiscard]] const MasterEntry* Find(std::string_view key) const;
};

}  // namespace infermark::catalog
