#include "http/stream_writer.hpp"

#include "http/detail/output_channel.hpp"

namespace infermark::http {

StreamWriter::StreamWriter(std::shared_ptr<detail::OutputChannel> channel, std::uint64_t exchange)
    : channel_(std::move(channel)), exchange_(exchange) {}

StreamWriter::~StreamWriter() {
  // A stream nobody can end any more: abort it rather than leave the client waiting forever.
  if (channel_) channel_->Abort(exchange_);
}

StreamWriter::StreamWriter(StreamWriter&& other) noexcept
    : channel_(std::move(other.channel_)), exchange_(other.exchange_) {}

StreamWriter& StreamWriter::operator=(StreamWriter&& other) noexcept {
  if (this != &other) {
    StreamWriter discarded(std::move(*this));
    channel_ = std::move(other.channel_);
    exchange_ = other.exchange_;
  }
  return *this;
}

SendStatus StreamWriter::Send(std::string_view bytes) {
  return channel_ ? channel_->Send(exchange_, bytes, false) : SendStatus::kClosed;
}

SendStatus StreamWriter::SendEvent(std::string_view data) {
  return channel_ ? channel_->Send(exchange_, data, true) : SendStatus::kClosed;
}

void StreamWriter::End() {
  if (!channel_) return;
  channel_->End(exchange_);
  channel_.reset();
}

void StreamWriter::Abort() {
  if (!channel_) return;
  channel_->Abort(exchange_);
  channel_.reset();
}

bool StreamWriter::Open() const {
  return channel_ && channel_->Open(exchange_, true);
}

std::size_t StreamWriter::BufferedBytes() const {
  return channel_ ? channel_->Buffered() : 0;
}

void StreamWriter::OnClose(std::function<void()> callback) {
  if (channel_) channel_->SetOnClose(exchange_, std::move(callback));
}

void StreamWriter::OnWritten(std::function<void(std::uint64_t events, std::int64_t write_ns)> callback) {
  if (channel_) channel_->SetOnWritten(exchange_, std::move(callback));
}

}  // namespace infermark::http
