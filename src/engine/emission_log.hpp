// The emission log (`engine serve --emission-log FILE`): one JSON line per SSE event the engine
// sent, with the time its bytes were handed to the socket, so a client's timing error can be
// measured exactly against what the server did:
//
//   {"request":"cmpl-1f","event":0,"send_ns":123456789,"tokens":1,"model_ns":5000000,"arrival_ns":1200000}
//
// `send_ns` is MonotonicNs() just before the write that carried the event (StreamWriter::OnWritten,
// the clock a client on the same host reads); `tokens` are the output tokens the event carries (0
// for the chat role chunk, the usage chunk and `[DONE]`); `model_ns` is the modelled time of the
// forward pass that produced it, on the engine's virtual clock (real time × time scale since the
// server started; -1 for events no pass produced); `arrival_ns` is when the request entered the
// model on that clock (so `model_ns − arrival_ns` is its modelled service). Events whose bytes never left (the client
// went away first) are not logged. Lines are formatted on the thread that wrote the bytes, collected in memory and
// written to the file in large blocks and at Flush().
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace infermark::engine {

/// The file and its buffer; thread-safe.
class EmissionLog {
 public:
  /// Opens (truncates) `path`; throws std::runtime_error when it cannot.
  explicit EmissionLog(const std::string& path);
  /// Flushes and closes.
  ~EmissionLog();
  EmissionLog(const EmissionLog&) = delete;
  EmissionLog& operator=(const EmissionLog&) = delete;

  /// Appends formatted lines (ending in '\n'); writes the buffer out once it is large.
  void Append(const std::string& lines);
  /// Writes everything buffered to the file.
  void Flush();

 private:
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::string buffer_;
};

/// The events of one stream, between the engine (which sends them) and the connection (whose
/// writes time them). Thread-safe.
class EmissionTrack {
 public:
  /// A track for the stream whose chunks carry `request_id`, which entered the model at
  /// `arrival_ns` (virtual; -1 when it did not).
  EmissionTrack(std::shared_ptr<EmissionLog> log, std::string request_id, std::int64_t arrival_ns = -1);

  /// The engine sent one event (one StreamWriter::Send) carrying `tokens`, made at `model_ns`.
  void Sent(int tokens, std::int64_t model_ns);
  /// The connection wrote every event up to `events` (cumulative count) at `write_ns`.
  void Written(std::uint64_t events, std::int64_t write_ns);

 private:
  struct Event {
    int tokens;
    std::int64_t model_ns;
  };
  std::mutex mutex_;
  std::shared_ptr<EmissionLog> log_;
  std::string request_id_;
  std::int64_t arrival_ns_;
  std::vector<Event> pending_;  // events [logged_, logged_ + pending_.size())
  std::uint64_t logged_ = 0;
  std::string lines_;  // reused
};

}  // namespace infermark::engine
