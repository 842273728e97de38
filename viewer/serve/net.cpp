// The server's HTTP and WebSocket sessions (net.h has the contract). Everything here runs on the
// network thread, except Net's public calls, which post to it.
#include "net.h"

#include <utility> // before Asio: its awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

namespace estuary::lib::serve {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

class WsSession;

struct Net::State {
    asio::io_context io{1};
    tcp::acceptor acceptor{io};
    NetConfig config;
    MessageFn onMessage;
    NetCounts counts;
    std::vector<std::shared_ptr<WsSession>> sessions; // handshaking or open
    WsSession* steering = nullptr;
    uint32_t httpSessions = 0;
    uint16_t port = 0; // the one bound
    bool stopping = false;
    std::thread thread;
    std::promise<void> ran;

    void accept();
    void remove(WsSession* session);
    void recount();
};

namespace {

// A page's socket: `Connection: close` after every answer, so one request per connection.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
  public:
    HttpSession(Net::State& state, tcp::socket&& socket) : s(state), stream(std::move(socket)) {
        parser.header_limit(kHeaderLimit);
        parser.body_limit(kBodyLimit);
        ++s.httpSessions;
    }
    ~HttpSession() { --s.httpSessions; }
    void start() {
        stream.expires_after(std::chrono::seconds(kRequestSeconds));
        http::async_read(
            stream, buffer, parser,
            [self = shared_from_this()](beast::error_code ec, size_t) { self->onRead(ec); });
    }

  private:
    void onRead(beast::error_code ec);
    void route();
    bool authorized(const Target& target, http::status& refusal, std::string& why) const;
    void reply(http::status status, std::string body, const char* type = "text/plain");

    Net::State& s;
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    http::request_parser<http::string_body> parser;
    http::response<http::string_body> response;
};

} // namespace

class WsSession : public std::enable_shared_from_this<WsSession> {
  public:
    WsSession(Net::State& state, tcp::socket&& socket) : s(state), ws(std::move(socket)) {}
    void accept(http::request<http::string_body> request);
    // The newest frame; false when it was not sent (a write still going, or the page not open).
    bool offer(const std::shared_ptr<const std::string>& jpeg,
               const std::shared_ptr<const std::string>& h264, bool key);
    void pushText(std::string text);
    void close(websocket::close_code code, const std::string& why);
    void kill();
    bool open = false, wantsH264 = false, wantsStamp = false;

  private:
    void read();
    void onMessage();
    void pump();
    void write(std::shared_ptr<const std::string> data, bool binary);

    Net::State& s;
    websocket::stream<beast::tcp_stream> ws;
    beast::flat_buffer in;
    std::deque<std::string> texts;
    bool writing = false, closing = false, needKey = true;
    Clock::time_point writeStart;
};

Target parseTarget(const std::string& target) {
    Target t;
    const size_t question = target.find('?');
    t.path = target.substr(0, question);
    if (question == std::string::npos) return t;
    const std::string query = target.substr(question + 1);
    size_t start = 0;
    while (start <= query.size()) {
        size_t end = query.find('&', start);
        if (end == std::string::npos) end = query.size();
        const std::string pair = query.substr(start, end - start);
        if (pair.rfind("token=", 0) == 0) t.token = pair.substr(6);
        start = end + 1;
    }
    return t;
}

bool sameSecret(const std::string& a, const std::string& b) {
    unsigned diff = a.size() == b.size() ? 0u : 1u;
    for (size_t i = 0; i < b.size(); ++i)
        diff |= unsigned(uint8_t(i < a.size() ? a[i] : 0) ^ uint8_t(b[i]));
    return diff == 0;
}

namespace {

std::string str(beast::string_view v) {
    return std::string(v.data(), v.size());
}

// The host part of a Host header or an Origin's authority ("[::1]:8080" -> "[::1]").
std::string hostPart(const std::string& authority) {
    if (!authority.empty() && authority.front() == '[')
        return authority.substr(0, authority.find(']') + 1);
    return authority.substr(0, authority.find(':'));
}

void HttpSession::onRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::connection_reset || ec == asio::error::operation_aborted)
        return; // nothing to answer: the socket closes with the session
    if (ec == http::error::header_limit)
        return reply(http::status::request_header_fields_too_large,
                     "the request's header is over " + std::to_string(kHeaderLimit) + " bytes\n");
    if (ec == http::error::body_limit)
        return reply(http::status::payload_too_large,
                     "the request's body is over " + std::to_string(kBodyLimit) + " bytes\n");
    if (ec) return reply(http::status::bad_request, "malformed request: " + ec.message() + "\n");
    route();
}

bool HttpSession::authorized(const Target& target, http::status& refusal, std::string& why) const {
    const auto& request = parser.get();
    refusal = http::status::forbidden;
    if (!s.config.token.empty()) {
        if (sameSecret(target.token, s.config.token)) return true;
        why = target.token.empty() ? "this server needs ?token=\n" : "wrong token\n";
        return false;
    }
    // No token (loopback only): a page of another site must not reach the server through the
    // user's browser, whether by a renamed host (DNS rebinding) or a cross-site WebSocket.
    const std::string host = hostPart(str(request[http::field::host]));
    if (host != "127.0.0.1" && host != "localhost" && host != "[::1]") {
        why = "Host " + str(request[http::field::host]) + " is not this machine\n";
        return false;
    }
    const auto origin = request.find(http::field::origin);
    if (origin != request.end() && origin->value() != "http://" + str(request[http::field::host])) {
        why = "Origin " + str(origin->value()) + " is not this server's\n";
        return false;
    }
    return true;
}

void HttpSession::route() {
    const auto& request = parser.get();
    const Target target = parseTarget(str(request.target()));
    if (target.path != "/" && target.path != "/ws")
        return reply(http::status::not_found, "not found: this server has / and /ws only\n");
    if (request.method() != http::verb::get)
        return reply(http::status::method_not_allowed, "only GET\n");
    http::status refusal{};
    std::string why;
    if (!authorized(target, refusal, why)) return reply(refusal, why);
    if (target.path == "/")
        return reply(http::status::ok, s.config.page, "text/html; charset=utf-8");
    if (!websocket::is_upgrade(request))
        return reply(http::status::bad_request, "/ws is a WebSocket\n");
    if (s.stopping || s.sessions.size() >= s.config.maxClients)
        return reply(http::status::service_unavailable,
                     "already " + std::to_string(s.config.maxClients) + " pages\n");
    stream.expires_never();
    auto session = std::make_shared<WsSession>(s, stream.release_socket());
    s.sessions.push_back(session);
    session->accept(parser.release());
}

void HttpSession::reply(http::status status, std::string body, const char* type) {
    if (status != http::status::ok) ++s.counts.refused;
    response.version(11);
    response.result(status);
    response.set(http::field::server, "estuary");
    response.set(http::field::content_type, type);
    response.set(http::field::cache_control, "no-store");
    response.set("X-Content-Type-Options", "nosniff");
    response.keep_alive(false);
    response.body() = std::move(body);
    response.prepare_payload();
    stream.expires_after(std::chrono::seconds(kRequestSeconds));
    http::async_write(stream, response, [self = shared_from_this()](beast::error_code, size_t) {
        beast::error_code ignored;
        self->stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    });
}

} // namespace

void WsSession::accept(http::request<http::string_body> request) {
    websocket::stream_base::timeout timeouts{};
    timeouts.handshake_timeout = std::chrono::seconds(5);
    timeouts.idle_timeout = std::chrono::seconds(30);
    timeouts.keep_alive_pings = true;
    ws.set_option(timeouts);
    ws.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& r) { r.set(http::field::server, "estuary"); }));
    ws.read_message_max(kMessageLimit);
    beast::error_code ignored;
    beast::get_lowest_layer(ws).socket().set_option(
        asio::socket_base::send_buffer_size(kSendBuffer), ignored);
    ws.async_accept(request, [self = shared_from_this()](beast::error_code ec) {
        if (ec) return self->s.remove(self.get());
        self->open = true;
        if (!self->s.steering) self->s.steering = self.get();
        self->s.recount();
        self->s.counts.keyframeWanted = true;
        self->pushText(
            nlohmann::json{{"type", "welcome"}, {"steering", self->s.steering == self.get()}}
                .dump());
        self->read();
    });
}

void WsSession::read() {
    ws.async_read(in, [self = shared_from_this()](beast::error_code ec, size_t) {
        if (ec) {
            // Beast closes a connection that breaks the protocol itself (1002, or 1009 for a
            // message over the limit); either way the session ends here.
            if (ec != websocket::error::closed && ec != asio::error::operation_aborted &&
                ec != asio::error::eof)
                ++self->s.counts.refused;
            return self->s.remove(self.get());
        }
        self->onMessage();
        self->in.consume(self->in.size());
        self->read();
    });
}

void WsSession::onMessage() {
    if (closing) return;
    if (!ws.got_text()) return close(websocket::close_code::bad_payload, "text (JSON) only");
    const std::string text = beast::buffers_to_string(in.data());
    const nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
    if (message.is_discarded() || !message.is_object() || !message.contains("type") ||
        !message["type"].is_string())
        return close(websocket::close_code::bad_payload, "not a JSON object with a \"type\"");
    const std::string type = message["type"];
    if (type == "hello") { // which codecs the page decodes; whether it reads the stamp
        wantsH264 = message.value("h264", false) == true;
        wantsStamp = message.value("stamp", false) == true;
        s.recount();
        return;
    }
    if (type == "control") { // take control
        if (s.steering && s.steering != this)
            s.steering->pushText(R"({"type":"control","steering":false})");
        s.steering = this;
        return pushText(R"({"type":"control","steering":true})");
    }
    const std::string error = s.onMessage(message, s.steering == this);
    if (!error.empty()) close(websocket::close_code::policy_error, error);
}

void WsSession::close(websocket::close_code code, const std::string& why) {
    if (closing) return;
    closing = true;
    if (code != websocket::close_code::going_away) ++s.counts.refused;
    // A close reason holds at most 123 bytes.
    ws.async_close(websocket::close_reason(code, why.substr(0, 120)),
                   [self = shared_from_this()](beast::error_code ec) {
                       if (ec) self->kill();
                   });
}

void WsSession::kill() {
    beast::error_code ignored;
    beast::get_lowest_layer(ws).socket().close(ignored);
}

bool WsSession::offer(const std::shared_ptr<const std::string>& jpeg,
                      const std::shared_ptr<const std::string>& h264, bool key) {
    if (!open || closing) return false;
    const auto& frame = wantsH264 && h264 ? h264 : jpeg;
    if (!frame) return false;
    if (writing || !texts.empty()) {
        // A reader that has not taken a frame for seconds is stuck: its connection goes.
        if (writing && Clock::now() - writeStart > std::chrono::seconds(kStuckSeconds)) kill();
        if (frame == h264) {
            needKey = true; // the next frame it gets must be a keyframe
            s.counts.keyframeWanted = true;
        }
        return false;
    }
    if (frame == h264 && needKey && !key) return false;
    if (frame == h264) needKey = false;
    write(frame, true);
    return true;
}

void WsSession::pushText(std::string text) {
    if (!open || closing || texts.size() >= kTextQueue) return;
    texts.push_back(std::move(text));
    pump();
}

void WsSession::pump() {
    if (writing || texts.empty() || closing) return;
    auto text = std::make_shared<const std::string>(std::move(texts.front()));
    texts.pop_front();
    write(std::move(text), false);
}

void WsSession::write(std::shared_ptr<const std::string> data, bool binary) {
    writing = true;
    writeStart = Clock::now();
    ws.binary(binary);
    ws.async_write(asio::buffer(*data),
                   [self = shared_from_this(), data](beast::error_code ec, size_t) {
                       self->writing = false;
                       if (ec) return self->kill();
                       self->pump();
                   });
}

void Net::State::accept() {
    acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || stopping) return;
        // Connections still sending their request are bounded too (a flood of idle sockets).
        if (!ec && httpSessions < 2 * config.maxClients + 8)
            std::make_shared<HttpSession>(*this, std::move(socket))->start();
        else if (!ec)
            ++counts.refused; // the socket closes here
        accept();
    });
}

void Net::State::remove(WsSession* session) {
    std::shared_ptr<WsSession> keep; // the session may be this call's last owner
    for (auto it = sessions.begin(); it != sessions.end(); ++it)
        if (it->get() == session) {
            keep = *it;
            sessions.erase(it);
            break;
        }
    session->open = false;
    if (steering == session) { // the next page in line steers
        steering = nullptr;
        for (const auto& other : sessions)
            if (other->open) {
                steering = other.get();
                other->pushText(R"({"type":"control","steering":true})");
                break;
            }
    }
    recount();
}

void Net::State::recount() {
    uint32_t open = 0, h264 = 0, stamp = 0;
    for (const auto& session : sessions) {
        open += session->open;
        h264 += session->open && session->wantsH264;
        stamp += session->open && session->wantsStamp;
    }
    counts.stampClients = stamp;
    counts.clients = open;
    counts.h264Clients = h264;
    counts.jpegClients = open - h264;
}

Net::Net(const NetConfig& config, MessageFn onMessage) : state(std::make_unique<State>()) {
    State& s = *state;
    s.config = config;
    s.onMessage = std::move(onMessage);
    beast::error_code ec;
    const auto address = asio::ip::make_address(config.address, ec);
    if (ec)
        throw std::runtime_error("address " + config.address + " is not numeric: " + ec.message());
    const tcp::endpoint endpoint(address, config.port);
    s.acceptor.open(endpoint.protocol(), ec);
    if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) s.acceptor.bind(endpoint, ec);
    if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec)
        throw std::runtime_error("cannot listen on " + config.address + " port " +
                                 std::to_string(config.port) + ": " + ec.message());
    s.port = s.acceptor.local_endpoint(ec).port();
    s.accept();
    s.thread = std::thread([&s] {
        try {
            s.io.run();
        } catch (...) {
        }
        s.ran.set_value();
    });
}

Net::~Net() {
    stop();
}

void Net::stop() noexcept {
    State& s = *state;
    if (!s.thread.joinable()) return;
    std::future<void> done = s.ran.get_future();
    asio::post(s.io, [&s] {
        s.stopping = true;
        beast::error_code ignored;
        s.acceptor.close(ignored);
        for (const auto& session : std::vector(s.sessions))
            if (session->open)
                session->close(websocket::close_code::going_away, "the server stops");
            else
                session->kill();
    });
    // Pages that do not answer the close in time are cut off with the io_context.
    if (done.wait_for(std::chrono::milliseconds(1000)) != std::future_status::ready) s.io.stop();
    s.thread.join();
    s.steering = nullptr;
    s.sessions.clear();
}

uint16_t Net::port() const {
    return state->port;
}

const NetCounts& Net::counts() const {
    return state->counts;
}

void Net::sendFrame(std::shared_ptr<const std::string> jpeg,
                    std::shared_ptr<const std::string> h264, bool h264Key) {
    State& s = *state;
    asio::post(s.io, [&s, jpeg = std::move(jpeg), h264 = std::move(h264), h264Key] {
        for (const auto& session : std::vector(s.sessions)) {
            if (!session->open) continue;
            if (session->offer(jpeg, h264, h264Key))
                ++s.counts.framesSent;
            else
                ++s.counts.sendsDropped;
        }
    });
}

void Net::sendToSteering(std::string text) {
    State& s = *state;
    asio::post(s.io, [&s, text = std::move(text)]() mutable {
        if (s.steering) s.steering->pushText(std::move(text));
    });
}

void Net::sendToStatsPages(std::string text) {
    State& s = *state;
    asio::post(s.io, [&s, text = std::move(text)] {
        for (const auto& session : std::vector(s.sessions))
            if (session->open && (session.get() == s.steering || session->wantsStamp))
                session->pushText(text);
    });
}

} // namespace estuary::lib::serve
