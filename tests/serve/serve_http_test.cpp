// The server's HTTP side under hostile requests (headless on lavapipe, validation on): each gets
// its error and a closed connection, the server reads no file, and a watching page keeps getting
// frames afterwards. Also the checks of estuary_serve_desc and the token of a non-loopback bind.
#include "serve_support.h"

namespace estuary::serve_test {
namespace {

std::string get(const std::string& target, const std::string& host = "127.0.0.1") {
    return "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n";
}

class ServeHttp : public ServedTest {
  protected:
    void SetUp() override { start(); }
};

TEST_F(ServeHttp, RootServesTheEmbeddedPage) {
    const std::string answer = rawExchange(served->port, get("/"));
    EXPECT_EQ(statusOf(answer), 200) << answer.substr(0, 200);
    EXPECT_NE(answer.find("<canvas id=\"view\""), std::string::npos);
    EXPECT_NE(answer.find("Content-Type: text/html"), std::string::npos);
}

TEST_F(ServeHttp, EveryOtherPathAndTraversalGets404WithoutReadingFiles) {
    for (const char* target :
         {"/index.html", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
          "/ws/../etc/passwd", "//etc/passwd", "/favicon.ico", "/page/index.html", "/.%00/", "/ws/",
          "*", "http://example.com/etc/passwd"}) {
        const std::string answer = rawExchange(served->port, get(target));
        EXPECT_EQ(statusOf(answer), 404) << target << ": " << answer.substr(0, 200);
        EXPECT_EQ(answer.find("root:"), std::string::npos) << target;
    }
}

TEST_F(ServeHttp, MethodsOtherThanGetGet405) {
    for (const char* method : {"POST", "PUT", "DELETE", "HEAD", "OPTIONS"}) {
        const std::string answer = rawExchange(
            served->port, std::string(method) + " / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        EXPECT_EQ(statusOf(answer), 405) << method << ": " << answer.substr(0, 200);
    }
}

TEST_F(ServeHttp, OversizedHeaderGets431) {
    const std::string answer = rawExchange(
        served->port,
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
    EXPECT_EQ(statusOf(answer), 431) << answer.substr(0, 200);
}

TEST_F(ServeHttp, OversizedBodyGets413) {
    const std::string answer = rawExchange(
        served->port, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n" +
                          std::string(100000, 'b'));
    EXPECT_EQ(statusOf(answer), 413) << answer.substr(0, 200);
}

TEST_F(ServeHttp, MalformedRequestsGet400) {
    for (const std::string& request :
         {std::string("GARBAGE\r\n\r\n"), std::string("GET / HTTP/9.9\r\n\r\n"),
          std::string("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n"),
          std::string("GET / HTTP/1.1\r\nBad Header Line\r\n\r\n"),
          std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) + "\r\n\r\n"}) {
        const std::string answer = rawExchange(served->port, request);
        EXPECT_EQ(statusOf(answer), 400) << request << ": " << answer.substr(0, 200);
    }
}

TEST_F(ServeHttp, ForeignHostOrOriginGets403) {
    // DNS rebinding (another name for this address) and a cross-site WebSocket from a page of
    // another site: with no token, only this machine's names and its own origin are served.
    EXPECT_EQ(statusOf(rawExchange(served->port, get("/", "evil.example:80"))), 403);
    const std::string upgrade =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(served->port) +
        "\r\nOrigin: http://evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
    EXPECT_EQ(statusOf(rawExchange(served->port, upgrade)), 403);
}

TEST_F(ServeHttp, PlainGetOfTheSocketPathGets400) {
    EXPECT_EQ(statusOf(rawExchange(served->port, get("/ws"))), 400);
}

TEST_F(ServeHttp, IdleConnectionsAreBoundedAndTheServerAnswersOthers) {
    asio::io_context io;
    std::vector<tcp::socket> idle;
    for (int i = 0; i < 64; ++i) { // far over 2 * max_clients + 8: the rest are closed at once
        idle.emplace_back(io);
        beast::error_code ec;
        idle.back().connect({asio::ip::make_address("127.0.0.1"), served->port}, ec);
    }
    EXPECT_EQ(statusOf(rawExchange(served->port, get("/"))), 0)
        << "the request waiting behind 64 idle connections should have been refused";
    idle.clear();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(statusOf(rawExchange(served->port, get("/"))), 200);
    EXPECT_GT(served->info().requests_refused, 0u);
}

TEST(ServeDesc, BadFieldsAreRefusedNamingThem) {
    struct Case {
        estuary_serve_desc desc;
        estuary_status status;
        const char* says;
    };
    std::vector<Case> cases;
    estuary_serve_desc d{};
    d.address = "localhost";
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "not a numeric"});
    d = {};
    d.port = 70000;
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "port 70000"});
    d = {};
    d.address = "127.0.0.2";
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "allow_remote"});
    d = {};
    d.token = "short";
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "token has 5 characters"});
    d = {};
    d.token = "abcdefghijklmnop/";
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "character '/'"});
    d = {};
    d.codec = static_cast<estuary_serve_codec>(7);
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "codec 7"});
    d = {};
    d.max_clients = 100;
    cases.push_back({d, ESTUARY_ERROR_INVALID_ARGUMENT, "max_clients 100"});
    for (const Case& c : cases) {
        ServedViewer served(c.desc);
        EXPECT_EQ(served.status, c.status) << c.says;
        EXPECT_NE(served.error.find(c.says), std::string::npos) << served.error;
    }
}

TEST(ServeDesc, APortInUseIsARuntimeError) {
    ServedViewer first(estuary_serve_desc{});
    ASSERT_EQ(first.status, ESTUARY_OK) << first.error;
    estuary_serve_desc d{};
    d.port = first.port;
    ServedViewer second(d);
    EXPECT_EQ(second.status, ESTUARY_ERROR_RUNTIME);
    EXPECT_NE(second.error.find("port " + std::to_string(first.port)), std::string::npos)
        << second.error;
}

// A bind other than 127.0.0.1 (here 127.0.0.2, which needs no network) with allow_remote gets a
// generated token, and both the page and the WebSocket require it.
TEST(ServeToken, NonLoopbackBindRequiresTheGeneratedToken) {
    estuary_serve_desc d{};
    d.address = "127.0.0.2";
    d.allow_remote = 1;
    ServedViewer served(d);
    ASSERT_EQ(served.status, ESTUARY_OK) << served.error;
    ASSERT_EQ(served.token.size(), 32u) << "a 128-bit token, in hex";
    const std::string address = "127.0.0.2";
    EXPECT_EQ(statusOf(rawExchange(served.port, get("/"), address)), 403);
    EXPECT_EQ(statusOf(rawExchange(served.port, get("/?token=wrong"), address)), 403);
    EXPECT_EQ(statusOf(rawExchange(served.port, get("/?token=" + served.token + "x"), address)),
              403);
    EXPECT_EQ(statusOf(rawExchange(served.port, get("/?token=" + served.token), address)), 200);
    Watcher without(served.port, "", address);
    EXPECT_FALSE(without.connected()) << "the WebSocket opened without the token";
    Watcher with(served.port, served.token, address);
    ASSERT_TRUE(with.connected());
    EXPECT_FRAMES_GO_ON(served, with);
}

} // namespace
} // namespace estuary::serve_test
