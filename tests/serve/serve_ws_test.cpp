// The server's WebSocket side: hostile frames and messages close that page with the right code
// while a watching page keeps getting frames; the connection limit; a reader that never reads is
// cut off without holding the others back; who steers; and stopping closes pages with 1001 in
// bounded time.
#include "serve_support.h"

#include "net.h"
#include "page_input.h"

#include <nlohmann/json.hpp>

namespace estuary::serve_test {
namespace {

namespace serve = estuary::lib::serve;

class ServeWs : public ServedTest {};

// The upgrade by hand, so that the frames after it can break the protocol.
std::string upgradeRequest(uint16_t port) {
    return "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
           "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
}

// Upgrades by hand, waits for the 101 (as RFC 6455 4.1 has a client do), sends `frame` and
// returns all the server answered until it closed.
std::string rawUpgradeThen(uint16_t port, const std::string& frame) {
    asio::io_context io;
    tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), port});
    asio::write(socket, asio::buffer(upgradeRequest(port)));
    std::string answer;
    char buffer[4096];
    beast::error_code ec;
    while (answer.find("\r\n\r\n") == std::string::npos && !ec)
        answer.append(buffer, socket.read_some(asio::buffer(buffer), ec));
    asio::write(socket, asio::buffer(frame), ec);
    while (!ec)
        answer.append(buffer, socket.read_some(asio::buffer(buffer), ec));
    return answer;
}

// The close code in the server's close frame within `answer` (after the 101), 0 if none.
int closeCodeIn(const std::string& answer) {
    for (size_t i = answer.find("\r\n\r\n"); i != std::string::npos && i + 4 < answer.size();) {
        i += 4;
        while (i + 1 < answer.size()) {
            const auto opcode = uint8_t(answer[i]) & 0x0F;
            size_t length = uint8_t(answer[i + 1]) & 0x7F, header = 2;
            if (length == 126) {
                length = size_t(uint8_t(answer[i + 2])) << 8 | uint8_t(answer[i + 3]);
                header = 4;
            } else if (length == 127) {
                return 0; // not a close frame
            }
            if (opcode == 0x8 && length >= 2 && i + header + 2 <= answer.size())
                return int(uint8_t(answer[i + header])) << 8 | uint8_t(answer[i + header + 1]);
            i += header + length;
        }
        break;
    }
    return 0;
}

TEST_F(ServeWs, UnmaskedClientFrameGetsProtocolError1002) {
    start();
    const std::string text = "{}"; // a client's frame must be masked (RFC 6455 5.1)
    const std::string frame = std::string("\x81", 1) + char(text.size()) + text;
    const std::string answer = rawUpgradeThen(served->port, frame);
    EXPECT_NE(answer.find("101 Switching Protocols"), std::string::npos) << answer.substr(0, 100);
    EXPECT_EQ(closeCodeIn(answer), 1002);
}

TEST_F(ServeWs, ReservedOpcodeGetsProtocolError1002) {
    start();
    const std::string frame("\x83\x80\x01\x02\x03\x04", 6); // opcode 3, masked, empty
    EXPECT_EQ(closeCodeIn(rawUpgradeThen(served->port, frame)), 1002);
}

TEST_F(ServeWs, OversizedMessageGetsTooBig1009) {
    start();
    Page page(served->port);
    ASSERT_TRUE(page.connected);
    page.send(std::string(serve::kMessageLimit + 1000, ' '));
    EXPECT_EQ(page.closeCode(), 1009);
}

TEST_F(ServeWs, BadJsonAndBinaryMessagesGetBadPayload1007) {
    start();
    for (const auto& [message, binary] :
         std::vector<std::pair<std::string, bool>>{{"{not json", false},
                                                   {"[1, 2, 3]", false},
                                                   {R"({"no":"type"})", false},
                                                   {"\x01\x02", true}}) {
        Page page(served->port);
        ASSERT_TRUE(page.connected);
        page.send(message, binary);
        EXPECT_EQ(page.closeCode(), 1007) << message;
    }
}

TEST_F(ServeWs, MessagesOutOfRangeGetPolicyError1008) {
    start();
    for (const char* message :
         {R"({"type":"pointer","action":"fly","x":1,"y":1})",
          R"({"type":"pointer","action":"down","x":1,"y":1,"button":9})",
          R"({"type":"key","code":1e300,"action":1})", R"({"type":"wheel","x":1,"y":1,"dy":"a"})",
          R"({"type":"stamp","frame":3,"id":70000})", R"({"type":"stamp","frame":3})",
          R"({"type":"launch_missiles"})"}) {
        Page page(served->port);
        ASSERT_TRUE(page.connected);
        page.send(message);
        EXPECT_EQ(page.closeCode(), 1008) << message;
    }
}

TEST_F(ServeWs, ConnectionsOverMaxClientsGet503) {
    estuary_serve_desc d{};
    d.max_clients = 2;
    start(d);
    Page second(served->port);
    ASSERT_TRUE(second.connected);
    const std::string answer = rawExchange(served->port, upgradeRequest(served->port));
    EXPECT_EQ(statusOf(answer), 503) << answer.substr(0, 200);
}

TEST_F(ServeWs, AReaderThatNeverReadsIsCutOffAndOthersGoOn) {
    start();
    // A page that says hello, then never reads: its socket's buffers fill, its frames are dropped
    // and, once one has not left for seconds, its connection is closed.
    asio::io_context io;
    websocket::stream<tcp::socket> stuck(io);
    stuck.next_layer().open(tcp::v4());
    stuck.next_layer().set_option(asio::socket_base::receive_buffer_size(4096));
    stuck.next_layer().connect({asio::ip::make_address("127.0.0.1"), served->port});
    stuck.handshake("127.0.0.1:" + std::to_string(served->port), "/ws");
    stuck.write(asio::buffer(std::string(R"({"type":"hello"})")));
    const auto joined = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (served->info().clients != 2 && std::chrono::steady_clock::now() < joined)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_EQ(served->info().clients, 2u);
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(40);
    while (served->info().clients == 2 && std::chrono::steady_clock::now() < end)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(served->info().clients, 1u) << "the page that never reads is still connected";
    EXPECT_GT(served->info().sends_dropped, 0u);
}

TEST_F(ServeWs, FirstPageSteersOthersWatchUntilTheyTakeControl) {
    start();
    Page first(served->port), second(served->port);
    ASSERT_TRUE(first.connected && second.connected);
    EXPECT_NE(second.nextText("welcome").find("\"steering\":false"), std::string::npos);
    // The watcher (the first page of all) steers: the others' keys are not the viewer's.
    second.send(R"({"type":"key","code":75,"action":1})"); // K
    second.send(R"({"type":"control"})");
    EXPECT_NE(second.nextText("control").find("\"steering\":true"), std::string::npos);
    second.send(R"({"type":"key","code":74,"action":1})"); // J
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::vector<int32_t> keys;
    while (std::chrono::steady_clock::now() < end) {
        keys = served->keys();
        if (!keys.empty()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_EQ(keys, std::vector<int32_t>{74}) << "only the steering page's key";
}

// The steering page's cursor over the field: the texel there comes back as its pick readout.
TEST_F(ServeWs, TheSteeringPagesCursorGetsThePickReadout) {
    start();
    Page page(served->port);
    ASSERT_TRUE(page.connected);
    page.send(R"({"type":"control"})");
    ASSERT_NE(page.nextText("control").find("\"steering\":true"), std::string::npos);
    page.send(R"({"type":"key","code":72,"action":1})"); // H: the panels off the field
    page.send(R"({"type":"pointer","action":"move","x":128,"y":96})");
    // Readouts come when they change: the first ones may predate the cursor's move.
    std::string readout;
    nlohmann::json pick;
    for (int i = 0; i < 20 && !pick.contains("probe"); ++i) {
        readout = page.nextText("pick");
        ASSERT_FALSE(readout.empty()) << "no pick readout";
        pick = nlohmann::json::parse(readout);
    }
    ASSERT_TRUE(pick.contains("probe")) << readout;
    const auto& values = pick["probe"]["values"];
    ASSERT_EQ(values.size(), 1u) << readout;
    EXPECT_GE(values[0].get<double>(), 0.0) << "the noise field's values are in [0, 1)";
    EXPECT_LT(values[0].get<double>(), 1.0);
}

// The steering page's size becomes the headless picture's (even, within bounds); a watching
// page's is only checked.
TEST_F(ServeWs, TheSteeringPagesSizeBecomesThePicturesSize) {
    start();
    Page page(served->port);
    ASSERT_TRUE(page.connected);
    page.send(R"({"type":"resize","width":300,"height":100})"); // watching: ignored
    page.send(R"({"type":"control"})");
    ASSERT_NE(page.nextText("control").find("\"steering\":true"), std::string::npos);
    page.send(R"({"type":"resize","width":333.5,"height":9999})");
    Page::Frame frame;
    for (int i = 0; i < 200 && frame.width != 332; ++i)
        frame = page.nextFrame();
    EXPECT_EQ(frame.width, 332u) << "333.5 wide: even, rounded down";
    EXPECT_EQ(frame.height, 2160u) << "9999 high: the bound";
    EXPECT_EQ(served->info().clients, 2u);
    // A size out of the message's range is refused, naming it; the picture keeps its size.
    page.send(R"({"type":"resize","width":0,"height":100})");
    EXPECT_EQ(page.closeCode(), 1008);
}

TEST_F(ServeWs, StopClosesPagesWithGoingAwayInBoundedTime) {
    start();
    Page page(served->port);
    ASSERT_TRUE(page.connected);
    const double ms = served->stop();
    EXPECT_LT(ms, 3000.0);
    EXPECT_EQ(page.closeCode(), 1001);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(watcher->closeCode(), 1001);
    watcher.reset(); // no frames after a stop
}

// A page that says it decodes H.264 gets H.264 (Annex B, a keyframe with its SPS first), while a
// page that does not gets JPEG from the same server.
TEST(ServeH264, PagesThatDecodeItGetAnnexBFromAKeyframeOthersJpeg) {
    ServedViewer served(estuary_serve_desc{});
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    const std::string encoder = served.info().encoder;
    if (encoder == "jpeg")
        GTEST_SKIP() << "no H.264 encoder here (libestuary_video.so or libx264 missing)";
    Page h264(served.port, "", "127.0.0.1", true), jpeg(served.port);
    ASSERT_TRUE(h264.connected && jpeg.connected);
    const Page::Frame first = h264.nextFrame();
    ASSERT_EQ(first.codec, 2) << "encoder " << encoder;
    EXPECT_TRUE(first.key);
    ASSERT_GT(first.payload.size(), 5u);
    EXPECT_EQ(first.payload.substr(0, 4), std::string("\0\0\0\1", 4)) << "Annex B start code";
    EXPECT_EQ(uint8_t(first.payload[4]) & 0x1F, 7) << "an SPS first";
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(h264.nextFrame().codec, 2);
    EXPECT_EQ(jpeg.nextFrame().codec, 1);
}

TEST(ServePageInput, MessagesBecomeTheEventsAWindowWouldSend) {
    std::vector<estuary_event> events;
    EXPECT_EQ(serve::eventsFromMessage(
                  nlohmann::json::parse(
                      R"({"type":"pointer","action":"down","x":10,"y":20,"button":1,"mods":2})"),
                  events),
              "");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, ESTUARY_EVENT_CURSOR);
    EXPECT_EQ(events[0].x, 10.0);
    EXPECT_EQ(events[1].kind, ESTUARY_EVENT_BUTTON);
    EXPECT_EQ(events[1].code, 1);
    EXPECT_EQ(events[1].action, 1);
    EXPECT_EQ(events[1].mods, ESTUARY_MOD_CONTROL);
    events.clear();
    EXPECT_EQ(serve::eventsFromMessage(
                  nlohmann::json::parse(R"({"type":"wheel","x":1,"y":2,"dy":-3})"), events),
              "");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[1].kind, ESTUARY_EVENT_SCROLL);
    EXPECT_EQ(events[1].y, -3.0);
    events.clear();
    EXPECT_NE(serve::eventsFromMessage(
                  nlohmann::json::parse(R"({"type":"key","code":20,"action":1})"), events)
                  .find("\"code\" 20 is not in 32..348"),
              std::string::npos);
    EXPECT_TRUE(events.empty());
    EXPECT_EQ(serve::eventsFromMessage(
                  nlohmann::json::parse(R"({"type":"resize","width":800,"height":600})"), events),
              "");
    EXPECT_TRUE(events.empty());
    EXPECT_NE(serve::eventsFromMessage(
                  nlohmann::json::parse(R"({"type":"resize","width":0,"height":600})"), events)
                  .find("\"width\" 0 is not in 1..65536"),
              std::string::npos);
    // Escape ends a window's run; a page's is dropped (a page never ends the program).
    EXPECT_EQ(serve::eventsFromMessage(
                  nlohmann::json::parse(R"({"type":"key","code":256,"action":1})"), events),
              "");
    EXPECT_TRUE(events.empty());
}

TEST(ServePageInput, APagesSizeBecomesAnEvenPictureWithinBounds) {
    using Size = std::array<uint32_t, 2>;
    EXPECT_EQ(serve::pictureSizeFor(800, 600), (Size{800, 600}));
    EXPECT_EQ(serve::pictureSizeFor(801.7, 601), (Size{800, 600}));
    EXPECT_EQ(serve::pictureSizeFor(1, 20), (Size{64, 64}));
    EXPECT_EQ(serve::pictureSizeFor(65536, 65536), (Size{3840, 2160}));
}

TEST(ServeTarget, TokenIsReadFromTheQueryOnly) {
    EXPECT_EQ(serve::parseTarget("/ws?token=abc&x=1").token, "abc");
    EXPECT_EQ(serve::parseTarget("/ws?x=1&token=abc").path, "/ws");
    EXPECT_EQ(serve::parseTarget("/token=abc").token, "");
    EXPECT_TRUE(serve::sameSecret("abcdef", "abcdef"));
    EXPECT_FALSE(serve::sameSecret("abcdeg", "abcdef"));
    EXPECT_FALSE(serve::sameSecret("abc", "abcdef"));
    EXPECT_FALSE(serve::sameSecret("abcdefg", "abcdef"));
}

} // namespace
} // namespace estuary::serve_test
