#include "http/responder.hpp"

#include "http/detail/output_channel.hpp"

namespace infermark::http {

Responder::Responder(std::shared_ptr<detail::OutputChannel> channel, std::uint64_t exchange)
    : channel_(std::move(channel)), exchange_(exchange) {}

Responder::~Responder() {
  if (channel_) {
    Response response;
    response.status = 500;
    response.body = R"({"error":{"message":"the request was not answered","code":500}})";
    channel_->Respond(exchange_, response);
  }
}

Responder::Responder(Responder&& other) noexcept : channel_(std::move(other.channel_)), exchange_(other.exchange_) {}

Responder& Responder::operator=(Responder&& other) noexcept {
  if (this != &other) {
    Responder discarded(std::move(*this));  // answers 500 for a request this one still held
    channel_ = std::move(other.channel_);
    exchange_ = other.exchange_;
  }
  return *this;
}

bool Responder::Respond(const Response& response) {
  if (!channel_) return false;
  const bool sent = channel_->Respond(exchange_, response);
  channel_.reset();
  return sent;
}

bool Responder::Respond(int status, std::string_view content_type, std::string_view body) {
  Response response;
  response.status = status;
  response.content_type = std::string(content_type);
  response.body = std::string(body);
  return Respond(response);
}

StreamWriter Responder::StartStream(int status, std::string_view content_type, const Headers& headers) {
  if (!channel_) return StreamWriter();
  auto channel = std::move(channel_);
  if (!channel->StartStream(exchange_, status, content_type, headers)) return StreamWriter();
  return StreamWriter(std::move(channel), exchange_);
}

bool Responder::Open() const {
  return channel_ && channel_->Open(exchange_, false);
}

void Responder::OnClose(std::function<void()> callback) {
  if (channel_) channel_->SetOnClose(exchange_, std::move(callback));
}

}  // namespace infermark::http
