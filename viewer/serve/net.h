// The server's network side: one thread running Boost.Asio, Boost.Beast parsing HTTP and
// WebSocket (no parsing of our own). It answers "/" with the page it was given, upgrades "/ws" to a
// WebSocket, and answers anything else with an error and a closed connection. It never reads a
// file. Frames handed to sendFrame go to every page whose previous frame has left; the others
// miss it (counted). The page's JSON messages go to `onMessage` on the network thread. Who calls
// it: serve.cpp, which owns one Net per running server.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace estuary::lib::serve {

// Bounds on what a peer may send or hold.
inline constexpr uint32_t kHeaderLimit = 8 * 1024;   // an HTTP request's header
inline constexpr uint32_t kBodyLimit = 4 * 1024;     // an HTTP request's body (GET has none)
inline constexpr uint32_t kMessageLimit = 64 * 1024; // a WebSocket message from the page
inline constexpr int kRequestSeconds = 10;           // to send a whole HTTP request
inline constexpr int kStuckSeconds = 3;              // a frame not gone by then: the page is shut
inline constexpr size_t kTextQueue = 32;             // text messages waiting for a page
// A page's socket send buffer: frames the kernel holds are latency the page sees, and a small
// buffer makes a slow page miss frames (counted) instead of watching the past.
inline constexpr int kSendBuffer = 256 * 1024;

struct NetConfig {
    std::string address; // numeric
    uint16_t port = 0;
    std::string token; // empty: none required (loopback only)
    uint32_t maxClients = 8;
    const char* page = nullptr; // the page's HTML, static storage
};

struct NetCounts {
    std::atomic<uint32_t> clients{0}, jpegClients{0}, h264Clients{0};
    std::atomic<uint32_t> stampClients{0}; // pages that asked for the frame stamp (stamp.h)
    std::atomic<uint64_t> framesSent{0}, sendsDropped{0}, refused{0};
    mutable std::atomic<bool> keyframeWanted{false}; // a page joined or missed an H.264 frame
};

// Returns "" when the message is fine, else why it is not (the page is then closed with 1008).
// `steering`: it came from the page that steers.
using MessageFn = std::function<std::string(const nlohmann::json& message, bool steering)>;

class Net {
  public:
    // Binds and starts the thread; throws std::runtime_error naming the address on failure.
    Net(const NetConfig& config, MessageFn onMessage);
    ~Net(); // stop()
    Net(const Net&) = delete;
    Net& operator=(const Net&) = delete;

    // Closes every page's WebSocket (1001) and joins the thread, within about a second.
    void stop() noexcept;
    uint16_t port() const;
    const NetCounts& counts() const;
    // From any thread. Either may be null (no page wants that codec).
    void sendFrame(std::shared_ptr<const std::string> jpeg, std::shared_ptr<const std::string> h264,
                   bool h264Key);
    // A text message to the page that steers (dropped when none, or when its queue is full).
    void sendToSteering(std::string text);
    // To the page that steers and every page that asked for the stamp (serve_stats).
    void sendToStatsPages(std::string text);

    struct State;

  private:
    std::unique_ptr<State> state;
};

// The part of a request target before '?', and the value of its `token` parameter ("" if none).
struct Target {
    std::string path, token;
};
Target parseTarget(const std::string& target);
// Equal, in a time that does not depend on where they differ.
bool sameSecret(const std::string& a, const std::string& b);

} // namespace estuary::lib::serve
