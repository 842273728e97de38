// What the server's tests share: a headless viewer drawing a changing noise field on a thread of
// its own (the frame loop), started serving; raw TCP and WebSocket clients with bounded waits;
// and a watcher, a page that keeps reading frames on its own thread, whose frame index shows that
// frames go on after each hostile request.
#pragma once

#include "estuary/estuary.h"

#include <utility> // before Asio: its awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace estuary::serve_test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// A viewer whose loop runs on a thread of its own while a test talks to its server.
class ServedViewer {
  public:
    // Starts serving with `desc` (its status in `status`; the loop runs only when it is OK).
    ServedViewer(estuary_serve_desc desc, uint32_t width = 256, uint32_t height = 192);
    ~ServedViewer();
    ServedViewer(const ServedViewer&) = delete;
    ServedViewer& operator=(const ServedViewer&) = delete;

    estuary_status status = ESTUARY_OK;
    std::string error;
    estuary_serve_info info(); // from the loop thread's last copy
    uint16_t port = 0;
    std::string token;
    uint64_t framesDrawn() const { return drawn.load(); }
    // The keys the viewer saw (estuary_input.keys), in order.
    std::vector<int32_t> keys();
    // Stops the loop, then the server; returns how long estuary_serve_stop took (ms).
    double stop();
    uint32_t validationMessages = 0;

  private:
    void loop();
    estuary_viewer* viewer = nullptr;
    estuary_image* field = nullptr;
    std::thread thread;
    std::atomic<bool> running{false};
    std::atomic<uint64_t> drawn{0};
    std::mutex mutex;
    estuary_serve_info lastInfo{};
    std::vector<int32_t> seenKeys;
    bool stopped = false;
};

// Sends `request` as is over a fresh connection to `address`:`port` and returns all the server
// answers until it closes (at most `seconds`).
std::string rawExchange(uint16_t port, const std::string& request,
                        const std::string& address = "127.0.0.1", int seconds = 5);
// The status code of an HTTP response ("HTTP/1.1 404 ..." -> 404; 0 for none).
int statusOf(const std::string& response);

// A page on its own thread: connects, says hello, and keeps reading; counts frames.
class Watcher {
  public:
    explicit Watcher(uint16_t port, const std::string& token = "",
                     const std::string& address = "127.0.0.1");
    ~Watcher();
    Watcher(const Watcher&) = delete;
    Watcher& operator=(const Watcher&) = delete;
    bool connected() const { return isOpen.load(); }
    uint64_t frames() const { return received.load(); }
    int64_t lastFrame() const { return last.load(); }
    int closeCode() const { return code.load(); }
    // Waits (at most `seconds`) for a frame with an index above `after`.
    bool frameAfter(uint64_t after, int seconds = 10) const;
    std::vector<std::string> texts();

  private:
    asio::io_context io;
    websocket::stream<tcp::socket> ws{io};
    std::thread thread;
    std::atomic<bool> isOpen{false};
    std::atomic<uint64_t> received{0};
    std::atomic<int64_t> last{-1};
    std::atomic<int> code{0};
    std::mutex mutex;
    std::vector<std::string> seenTexts;
};

// A page driven from the test's thread: sends, and reads until what it waits for.
class Page {
  public:
    explicit Page(uint16_t port, const std::string& token = "",
                  const std::string& address = "127.0.0.1", bool h264 = false);
    // The next frame: its codec byte (1 JPEG, 2 H.264), key flag, size and payload; codec 0 when
    // the connection ended.
    struct Frame {
        int codec = 0;
        bool key = false;
        std::string payload;
        uint32_t width = 0, height = 0;
    };
    Frame nextFrame();
    bool connected = false;
    beast::error_code send(const std::string& text, bool binary = false);
    // The next text message whose "type" is `type` (reading past frames); "" when the
    // connection ends first (closeCode() then says how).
    std::string nextText(const std::string& type, int maxMessages = 5000);
    // Reads until the connection ends; the close code the server sent (0: none).
    int closeCode();

    asio::io_context io;
    websocket::stream<tcp::socket> ws{io};
};

// Frames keep coming to `watcher` after whatever the test did: one drawn after now arrives.
#define EXPECT_FRAMES_GO_ON(viewer, watcher)                                                       \
    EXPECT_TRUE((watcher).frameAfter((viewer).framesDrawn() + 1))                                  \
        << "no frame reached the watching page after this request"

// A served viewer and a page watching it: start() serves and waits for the first frame; at the
// end of each test the frames must still be reaching the page.
class ServedTest : public ::testing::Test {
  protected:
    void start(const estuary_serve_desc& desc = {}) {
        served.emplace(desc);
        ASSERT_EQ(served->status, ESTUARY_OK) << served->error;
        watcher.emplace(served->port);
        ASSERT_TRUE(watcher->connected());
        ASSERT_TRUE(watcher->frameAfter(0)) << "no first frame";
    }
    void TearDown() override {
        if (watcher) {
            EXPECT_FRAMES_GO_ON(*served, *watcher);
        }
        watcher.reset();
        served.reset();
    }
    std::optional<ServedViewer> served;
    std::optional<Watcher> watcher;
};

} // namespace estuary::serve_test
