// Incremental parser for a Server-Sent Events stream (WHATWG "event stream" format) as LLM servers
// send it: `data: {...}` lines, a blank line ending each event, `\n`, `\r\n` or `\r` line ends,
// and events split anywhere across reads. It is on the load generator's hot path, so an event that
// lies whole inside one fed buffer is handed out as a view into that buffer (no copy); only events
// that span feeds or have several data lines are assembled in an internal buffer, whose capacity
// is reused. Deliberate omission: a leading byte-order mark is not stripped (no server sends one).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace infermark::http {

/// One dispatched event; the views are valid during the callback only.
struct SseEvent {
  std::string_view data;  ///< The event's data lines joined with '\n'.
  std::string_view type;  ///< The `event:` field; empty when absent (the spec's default "message").
  std::string_view id;    ///< The last `id:` seen on the stream (ids persist across events).

  /// Whether this is the OpenAI-style end-of-stream sentinel `data: [DONE]`.
  bool IsDone() const { return data == "[DONE]"; }
};

/// Parses one event stream fed in pieces of any size.
class SseParser {
 public:
  /// Default bound on one event (data plus a pending line), against hostile streams.
  static constexpr std::size_t kDefaultMaxEventBytes = std::size_t{16} << 20;

  /// A parser whose events may grow to `max_event_bytes`.
  explicit SseParser(std::size_t max_event_bytes = kDefaultMaxEventBytes);

  /// Parses `bytes`, calling `on_event(const SseEvent&)` for each event they complete, in order.
  /// Returns the number of events. Nothing is parsed once Failed().
  template <class OnEvent>
  std::size_t Feed(std::string_view bytes, OnEvent&& on_event) {
    using F = std::remove_reference_t<OnEvent>;
    return FeedImpl(
        bytes, [](void* f, const SseEvent& event) { (*static_cast<F*>(f))(event); },
        const_cast<void*>(static_cast<const void*>(std::addressof(on_event))));
  }

  /// Ends the stream: returns true when it ended at an event boundary, false when a partial line or
  /// an event without its blank line was pending (discarded, as the spec says) or the parser failed.
  /// The parser is then ready for a new stream.
  bool Finish();
  /// Whether an event outgrew the limit; further input is then ignored.
  bool Failed() const { return failed_; }
  /// Bytes held for an unfinished line or event.
  std::size_t PendingBytes() const;

 private:
  using Callback = void (*)(void*, const SseEvent&);
  std::size_t FeedImpl(std::string_view bytes, Callback callback, void* context);
  void ProcessLine(std::string_view line, bool in_input, Callback callback, void* context);
  void Dispatch(Callback callback, void* context);

  std::size_t max_event_bytes_;
  std::string line_;        // a line begun in an earlier feed
  std::string data_;        // data of the current event when it cannot be a view
  std::string_view view_;   // data of the current event as a view into the current feed
  std::string type_;        // `event:` of the current event
  std::string id_;          // last event id
  std::size_t events_ = 0;  // events dispatched by the current feed
  bool have_data_ = false;  // the current event has at least one data line
  bool in_view_ = false;    // the current event's data is `view_`, not `data_`
  bool skip_lf_ = false;    // the last feed ended with '\r': a leading '\n' belongs to it
  bool failed_ = false;
};

}  // namespace infermark::http
