// The server tests' viewer, clients and watcher (serve_support.h).
#include "serve_support.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cstring>

namespace estuary::serve_test {

ServedViewer::ServedViewer(estuary_serve_desc desc, uint32_t width, uint32_t height) {
    estuary_viewer_desc d{};
    d.api_version = ESTUARY_API_VERSION;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.cuda = ESTUARY_CUDA_OFF;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    d.width = width;
    d.height = height;
    if (estuary_create_viewer(&d, &viewer) != ESTUARY_OK) {
        status = ESTUARY_ERROR_RUNTIME;
        error = estuary_last_error();
        return;
    }
    estuary_image_desc image{};
    image.format = ESTUARY_FORMAT_R32_FLOAT;
    image.kind = ESTUARY_IMAGE_2D;
    image.width = 64;
    image.height = 48;
    image.levels = 1;
    image.writer = ESTUARY_WRITER_HOST;
    image.name = "noise";
    estuary_view* view = nullptr;
    estuary_field_view_desc fd{};
    if (estuary_create_image(viewer, &image, &field) != ESTUARY_OK ||
        (fd.image = field, estuary_add_field_view(viewer, &fd, &view)) != ESTUARY_OK) {
        status = ESTUARY_ERROR_RUNTIME;
        error = estuary_last_error();
        return;
    }
    status = estuary_serve_start(viewer, &desc);
    if (status != ESTUARY_OK) {
        error = estuary_last_error();
        return;
    }
    estuary_serve_info i{};
    estuary_get_serve_info(viewer, &i);
    port = uint16_t(i.port);
    const std::string url = i.url;
    const size_t at = url.find("?token=");
    if (at != std::string::npos) token = url.substr(at + 7);
    lastInfo = i;
    running = true;
    thread = std::thread([this] { loop(); });
}

// Each frame a new noise field (so that every picture differs), its info and keys copied out.
void ServedViewer::loop() {
    uint32_t seed = 1;
    while (running) {
        estuary_frame* frame = nullptr;
        if (estuary_begin_frame(viewer, nullptr, &frame) != ESTUARY_OK) break;
        void* data = nullptr;
        if (estuary_frame_host_level(frame, field, 0, &data) == ESTUARY_OK) {
            auto* texels = static_cast<float*>(data);
            for (int i = 0; i < 64 * 48; ++i) {
                seed = seed * 1664525u + 1013904223u;
                texels[i] = float(seed >> 8) / float(1u << 24);
            }
        }
        estuary_input input{};
        estuary_get_input(viewer, &input);
        estuary_serve_info i{};
        estuary_get_serve_info(viewer, &i);
        {
            std::lock_guard lock(mutex);
            seenKeys.insert(seenKeys.end(), input.keys, input.keys + input.key_count);
            lastInfo = i;
        }
        if (estuary_end_frame(frame) != ESTUARY_OK) break;
        ++drawn;
        std::this_thread::sleep_for(std::chrono::milliseconds(8));
    }
}

estuary_serve_info ServedViewer::info() {
    std::lock_guard lock(mutex);
    return lastInfo;
}

std::vector<int32_t> ServedViewer::keys() {
    std::lock_guard lock(mutex);
    return seenKeys;
}

double ServedViewer::stop() {
    running = false;
    if (thread.joinable()) thread.join();
    double ms = 0;
    if (viewer && !stopped && status == ESTUARY_OK) {
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(estuary_serve_stop(viewer), ESTUARY_OK) << estuary_last_error();
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                 .count();
    }
    stopped = true;
    return ms;
}

ServedViewer::~ServedViewer() {
    stop();
    if (viewer) {
        estuary_destroy_viewer(viewer, &validationMessages);
        EXPECT_EQ(validationMessages, 0u) << "validation messages (printed above)";
    }
}

namespace {

void setTimeouts(int fd, int seconds) {
    timeval tv{};
    tv.tv_sec = seconds;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

} // namespace

std::string rawExchange(uint16_t port, const std::string& request, const std::string& address,
                        int seconds) {
    asio::io_context io;
    tcp::socket socket(io);
    beast::error_code ec;
    socket.connect({asio::ip::make_address(address), port}, ec);
    if (ec) return "";
    setTimeouts(socket.native_handle(), seconds);
    // Plain system calls: with the timeouts above, no wait is unbounded.
    size_t sent = 0;
    while (sent < request.size()) {
        const ssize_t n = ::send(socket.native_handle(), request.data() + sent,
                                 request.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break; // the server may close before reading everything (413, 431)
        sent += size_t(n);
    }
    std::string answer;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::recv(socket.native_handle(), buffer, sizeof(buffer), 0);
        if (n <= 0) break;
        answer.append(buffer, size_t(n));
    }
    return answer;
}

int statusOf(const std::string& response) {
    if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
    return std::atoi(response.substr(9, 3).c_str());
}

Watcher::Watcher(uint16_t port, const std::string& token, const std::string& address) {
    beast::error_code ec;
    ws.next_layer().connect({asio::ip::make_address(address), port}, ec);
    if (ec) return;
    setTimeouts(ws.next_layer().native_handle(), 10);
    ws.handshake(address + ":" + std::to_string(port),
                 "/ws" + (token.empty() ? "" : "?token=" + token), ec);
    if (ec) return;
    ws.write(asio::buffer(std::string(R"({"type":"hello","h264":false})")), ec);
    if (ec) return;
    isOpen = true;
    thread = std::thread([this] {
        for (;;) {
            beast::flat_buffer buffer;
            beast::error_code error;
            ws.read(buffer, error);
            if (error) {
                code = int(ws.reason().code);
                isOpen = false;
                return;
            }
            if (ws.got_text()) {
                std::lock_guard lock(mutex);
                seenTexts.push_back(beast::buffers_to_string(buffer.data()));
                continue;
            }
            const std::string data = beast::buffers_to_string(buffer.data());
            if (data.size() < 16) continue;
            uint64_t frame = 0;
            std::memcpy(&frame, data.data() + 8, 8);
            last = int64_t(frame);
            ++received;
        }
    });
}

Watcher::~Watcher() {
    beast::error_code ignored;
    ws.next_layer().shutdown(tcp::socket::shutdown_both, ignored);
    if (thread.joinable()) thread.join();
}

bool Watcher::frameAfter(uint64_t after, int seconds) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < end) {
        if (last.load() > int64_t(after)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

std::vector<std::string> Watcher::texts() {
    std::lock_guard lock(mutex);
    return seenTexts;
}

Page::Page(uint16_t port, const std::string& token, const std::string& address, bool h264) {
    beast::error_code ec;
    ws.next_layer().connect({asio::ip::make_address(address), port}, ec);
    if (!ec)
        ws.handshake(address + ":" + std::to_string(port),
                     "/ws" + (token.empty() ? "" : "?token=" + token), ec);
    const std::string hello =
        std::string(R"({"type":"hello","h264":)") + (h264 ? "true}" : "false}");
    if (!ec) ws.write(asio::buffer(hello), ec);
    connected = !ec;
}

Page::Frame Page::nextFrame() {
    for (;;) {
        beast::flat_buffer buffer;
        beast::error_code ec;
        ws.read(buffer, ec);
        if (ec) return {};
        if (ws.got_text()) continue;
        const std::string data = beast::buffers_to_string(buffer.data());
        if (data.size() < 16) return {};
        const auto u16 = [&](size_t at) {
            return uint32_t(uint8_t(data[at])) | uint32_t(uint8_t(data[at + 1])) << 8;
        };
        return {int(uint8_t(data[0])), (uint8_t(data[1]) & 1) != 0, data.substr(16), u16(2),
                u16(4)};
    }
}

beast::error_code Page::send(const std::string& text, bool binary) {
    beast::error_code ec;
    ws.binary(binary);
    ws.write(asio::buffer(text), ec);
    return ec;
}

std::string Page::nextText(const std::string& type, int maxMessages) {
    for (int i = 0; i < maxMessages; ++i) {
        beast::flat_buffer buffer;
        beast::error_code ec;
        ws.read(buffer, ec);
        if (ec) return "";
        if (!ws.got_text()) continue;
        const std::string text = beast::buffers_to_string(buffer.data());
        if (text.find("\"type\":\"" + type + "\"") != std::string::npos) return text;
    }
    return "";
}

int Page::closeCode() {
    for (;;) {
        beast::flat_buffer buffer;
        beast::error_code ec;
        ws.read(buffer, ec);
        if (ec) return int(ws.reason().code);
    }
}

} // namespace estuary::serve_test
