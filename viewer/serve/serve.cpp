// Serving the live picture (serve.h has the design): the checks of estuary_serve_desc, the
// encoder threads and the server's counts (steering.cpp: the steering page's input, size and pick
// readout).
#include "serve.h"
#include "server.h"
#include "errors.h"
#include "net.h"
#include "nvenc_encoder.h"
#include "page_input.h"
#include "picture_tap.h"
#include "recorder.h"
#include "stamp.h"
#include "video/video_module.h"
#include "png.h"
#include "viewer.h"

#include <arpa/inet.h>
#include <sys/random.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

extern const char* const kEstuaryServePage; // page/index.html, compiled in (serve_page.cpp)

namespace estuary::lib {

void ServerDeleter::operator()(Server* server) const noexcept {
    delete server;
}

namespace {

constexpr size_t kFrameHeader = 16;

bool loopback(const std::string& address) {
    return address == "127.0.0.1" || address == "::1";
}

std::string randomToken() {
    std::array<uint8_t, 16> bytes{};
    size_t got = 0;
    while (got < bytes.size()) {
        const ssize_t n = getrandom(bytes.data() + got, bytes.size() - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw runtimeError(std::string("getrandom failed: ") + std::strerror(errno));
        got += size_t(n);
    }
    static const char* hex = "0123456789abcdef";
    std::string token;
    for (uint8_t b : bytes) {
        token += hex[b >> 4];
        token += hex[b & 15];
    }
    return token;
}

void checkToken(const std::string& token) {
    if (token.size() < 16 || token.size() > 128)
        throw usageError("token has " + std::to_string(token.size()) +
                         " characters: 16 to 128 are allowed");
    for (char c : token)
        if (!std::isalnum(uint8_t(c)) && c != '-' && c != '_')
            throw usageError(std::string("token has the character '") + c +
                             "': only A-Z, a-z, 0-9, '-' and '_' are allowed");
}

std::string pageUrl(const std::string& address, uint16_t port, const std::string& token) {
    std::string host = address;
    if (address == "0.0.0.0" || address == "::") { // every address: name the machine
        char name[256] = {};
        host = gethostname(name, sizeof(name) - 1) == 0 && name[0] ? name : "localhost";
    } else if (address.find(':') != std::string::npos) {
        host = "[" + address + "]";
    }
    return "http://" + host + ":" + std::to_string(port) + "/" +
           (token.empty() ? "" : "?token=" + token);
}

void putLe(std::string& out, size_t at, uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i)
        out[at + size_t(i)] = char((value >> (8 * i)) & 0xFF);
}

// One frame for the page: a 16-byte header (codec 1 JPEG / 2 H.264, flags bit 0 keyframe, width
// and height as u16, 2 bytes 0, the frame index as u64; little-endian), then the data.
std::string frameHeader(uint8_t codec, bool key, uint32_t width, uint32_t height, uint64_t frame) {
    std::string out(kFrameHeader, '\0');
    out[0] = char(codec);
    out[1] = char(key ? 1 : 0);
    putLe(out, 2, width, 2);
    putLe(out, 4, height, 2);
    putLe(out, 8, frame, 8);
    return out;
}

// The picture as H.264 for the pages that decode it (null when the encoder fails: those pages get
// JPEG). A keyframe when a page joined or missed one; a new stream when the picture's size changed.
std::shared_ptr<std::string> encodeH264(Server& s, const std::vector<uint8_t>& picture,
                                        uint32_t width, uint32_t height, uint64_t frame,
                                        bool& key) {
    char error[256] = {};
    if (width != s.streamWidth || height != s.streamHeight) {
        s.video->streamClose(std::exchange(s.stream, nullptr));
        const char* name = nullptr;
        s.stream =
            s.video->streamOpen(width, height, 60, s.encoder.c_str(), &name, error, sizeof(error));
        s.streamWidth = width;
        s.streamHeight = height;
        if (!s.stream) return nullptr;
        s.net->counts().keyframeWanted = true;
    }
    key = s.net->counts().keyframeWanted.exchange(false);
    struct Out {
        std::string bytes;
        bool key = false;
    } out;
    out.bytes = frameHeader(2, false, width, height, frame);
    const int code = s.video->streamEncode(
        s.stream, picture.data(), key ? 1 : 0,
        [](void* user, const uint8_t* data, size_t size, int keyframe) {
            auto& o = *static_cast<Out*>(user);
            o.bytes.append(reinterpret_cast<const char*>(data), size);
            o.key = o.key || keyframe != 0;
        },
        &out, error, sizeof(error));
    if (code != 0 || out.bytes.size() == kFrameHeader) return nullptr;
    key = out.key;
    out.bytes[1] = char(key ? 1 : 0);
    return std::make_shared<std::string>(std::move(out.bytes));
}

void countEncoded(Server& s, Clock::time_point start) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    std::lock_guard lock(s.mutex);
    --s.busy;
    ++s.framesEncoded;
    s.encodeMsTotal += ms;
    s.encodeMsLast = ms;
    if (s.encodeSamples.size() < kSamplesMax) s.encodeSamples.push_back(ms);
}

// Frame `frame`'s picture, in the NVENC input, to the pages as H.264. A failure ends NVENC for
// this server: the frames after go by the picture tap (JPEG).
void encodeFromGpu(Server& s, uint64_t frame) {
    std::string error;
    const bool stamp = s.net->counts().stampClients > 0;
    bool ok = nvencWaitCopied(*s.nvenc, frame, stamp, error);
    const auto start = Clock::now();
    const VkExtent2D extent = nvencExtent(*s.nvenc);
    const bool idr = s.net->counts().keyframeWanted.exchange(false);
    auto out =
        std::make_shared<std::string>(frameHeader(2, false, extent.width, extent.height, frame));
    bool key = false;
    ok = ok && nvencEncode(*s.nvenc, idr, *out, key, error);
    if (ok) {
        (*out)[1] = char(key ? 1 : 0);
        s.net->sendFrame(nullptr, std::move(out), key);
    }
    {
        std::lock_guard lock(s.mutex);
        s.gpu = ok ? Server::Gpu::Free : Server::Gpu::Broken;
        if (!ok) s.gpuError = error;
    }
    countEncoded(s, start);
}

// How many JPEG encoders run at once: ESTUARY_SERVE_JPEG_THREADS (1..16), else a quarter of the
// machine's hardware threads, 1 to 4. One 1920x1080 picture takes 30-55 ms to encode on an H100
// machine's CPU, so one encoder alone serves at most about 25 frames a second.
uint32_t jpegEncoders() {
    if (const char* text = std::getenv("ESTUARY_SERVE_JPEG_THREADS")) {
        char* end = nullptr;
        const long n = std::strtol(text, &end, 10);
        if (end == text || *end != '\0' || n < 1 || n > 16)
            throw usageError(std::string("ESTUARY_SERVE_JPEG_THREADS=") + text +
                             ": the JPEG encoders to run at once, a whole number from 1 to 16");
        return uint32_t(n);
    }
    return std::clamp(std::thread::hardware_concurrency() / 4, 1u, 4u);
}

void encodeLoop(Server& s) {
    std::vector<uint8_t> picture;
    for (;;) {
        uint32_t width = 0, height = 0;
        uint64_t frame = 0;
        {
            std::unique_lock lock(s.mutex);
            s.changed.wait(
                lock, [&] { return s.closing || s.pendingFull || s.gpu == Server::Gpu::Pending; });
            if (s.closing) return;
            if (s.gpu == Server::Gpu::Pending) {
                s.gpu = Server::Gpu::Encoding;
                ++s.busy;
                frame = s.gpuFrame;
                lock.unlock();
                encodeFromGpu(s, frame);
                continue;
            }
            std::swap(picture, s.pending);
            width = s.pendingWidth;
            height = s.pendingHeight;
            frame = s.pendingFrame;
            s.pendingFull = false;
            ++s.busy;
        }
        const auto start = Clock::now();
        const serve::NetCounts& counts = s.net->counts();
        // While any page reads the stamp, every page's picture carries it (one encode for all).
        if (counts.stampClients > 0)
            stamp::drawStamp(picture.data(), size_t(width) * 4, 4, width, height, frame);
        std::shared_ptr<std::string> h264;
        bool key = false;
        if (s.stream && counts.h264Clients > 0)
            h264 = encodeH264(s, picture, width, height, frame, key);
        std::shared_ptr<std::string> jpeg;
        if (counts.jpegClients > 0 || (counts.h264Clients > 0 && !h264)) {
            jpeg = std::make_shared<std::string>(frameHeader(1, true, width, height, frame));
            try {
                appendJpeg(*jpeg, width, height, picture.data(), s.jpegQuality);
            } catch (const std::exception&) {
                jpeg.reset(); // a picture this small cannot fail; if it does, the frame is lost
            }
        }
        if (jpeg || h264) {
            std::lock_guard order(s.sendMutex);
            if (!s.sentAny || frame > s.lastSent) {
                s.net->sendFrame(std::move(jpeg), std::move(h264), key);
                s.lastSent = frame;
                s.sentAny = true;
            } else {
                std::lock_guard lock(s.mutex);
                ++s.framesDropped; // overtaken by a later frame another encoder sent first
            }
        }
        countEncoded(s, start);
    }
}

// H.264 for pages that decode it: NVENC from GPU memory where it opens (unless
// ESTUARY_SERVE_NVENC=0), else FFmpeg's h264_nvenc (from host memory) or libx264. Where none does
// (no FFmpeg, or one without them), AUTO serves JPEG alone and H264 is refused naming why.
void openStream(estuary_viewer& v, Server& s, bool required) {
    const char* nvencWanted = std::getenv("ESTUARY_SERVE_NVENC");
    if (nvencWanted && std::string(nvencWanted) == "0")
        s.nvencWhy = "ESTUARY_SERVE_NVENC=0";
    else
        s.nvenc = openNvenc(v, pictureExtent(v), s.bgra, s.nvencWhy);
    if (s.nvenc) {
        s.encoder = nvencName(*s.nvenc);
        return;
    }
    std::string why;
    try {
        s.video = loadVideoModule();
    } catch (const Error& e) {
        why = e.what();
    }
    if (s.video) {
        const VkExtent2D extent = pictureExtent(v);
        const char* name = nullptr;
        char error[512] = {};
        s.stream = s.video->streamOpen(extent.width, extent.height, 60, nullptr, &name, error,
                                       sizeof(error));
        if (s.stream) {
            s.encoder = name;
            s.streamWidth = extent.width;
            s.streamHeight = extent.height;
            return;
        }
        why = error;
    }
    s.video = nullptr;
    if (required) throw unsupported("H.264 serving: " + why + "; NVENC: " + s.nvencWhy);
}

} // namespace

void startServing(estuary_viewer& v, const estuary_serve_desc& d) {
    if (v.server) throw usageError("already serving at " + v.server->url);
    if (v.gl) throw unsupported("the OpenGL consumer's pictures are not served");
    const std::string address = d.address ? d.address : "127.0.0.1";
    in6_addr parsed{};
    if (inet_pton(AF_INET, address.c_str(), &parsed) != 1 &&
        inet_pton(AF_INET6, address.c_str(), &parsed) != 1)
        throw usageError("address '" + address + "' is not a numeric IPv4 or IPv6 address");
    if (d.port > 65535)
        throw usageError("port " + std::to_string(d.port) + " is not in 0..65535 (0: any free)");
    if (!loopback(address) && !d.allow_remote)
        throw usageError("address " + address +
                         " is not 127.0.0.1 or ::1: other machines could connect; set "
                         "allow_remote (a token is then required)");
    if (uint32_t(d.codec) > ESTUARY_SERVE_CODEC_JPEG)
        throw usageError("codec " + std::to_string(int(d.codec)) +
                         " is not an estuary_serve_codec (AUTO, H264, JPEG)");
    if (d.max_clients > 64)
        throw usageError("max_clients " + std::to_string(d.max_clients) +
                         " is not in 1..64 (0: 8)");
    if (d.jpeg_quality > 100)
        throw usageError("jpeg_quality " + std::to_string(d.jpeg_quality) +
                         " is not in 1..100 (0: 80)");
    std::string token;
    if (d.token) {
        token = d.token;
        checkToken(token);
    } else if (!loopback(address)) {
        token = randomToken();
    }
    auto s = std::make_unique<Server>();
    s->jpegQuality = d.jpeg_quality ? int(d.jpeg_quality) : 80;
    const VkFormat format = pictureFormat(v);
    s->bgra = format == VK_FORMAT_B8G8R8A8_UNORM || format == VK_FORMAT_B8G8R8A8_SRGB;
    if (d.codec != ESTUARY_SERVE_CODEC_JPEG) openStream(v, *s, d.codec == ESTUARY_SERVE_CODEC_H264);
    serve::NetConfig config;
    config.address = address;
    config.port = uint16_t(d.port);
    config.token = token;
    config.maxClients = d.max_clients ? d.max_clients : 8;
    config.page = kEstuaryServePage;
    Server* raw = s.get();
    try {
        s->net =
            std::make_unique<serve::Net>(config, [raw](const nlohmann::json& m, bool steering) {
                return onPageMessage(*raw, m, steering);
            });
    } catch (const std::runtime_error& e) {
        throw runtimeError(e.what());
    }
    s->url = pageUrl(address, s->net->port(), token);
    if (!raw->stream && !raw->nvenc) raw->encoders = jpegEncoders();
    for (uint32_t i = 0; i < raw->encoders; ++i)
        raw->encoderThreads.emplace_back([raw] { encodeLoop(*raw); });
    v.server.reset(s.release());
    ++v.drawVersion; // frames drawn from now on copy their picture out
    // Neither the URL nor the token in the log: the caller shows estuary_serve_info.url once.
    const bool h264 = raw->stream || raw->nvenc;
    logMessage(
        v, ESTUARY_LOG_INFO,
        "server on " + address + " port " + std::to_string(raw->net->port()) +
            (token.empty() ? "" : ", token required") + ", frames as " +
            (h264 ? raw->encoder + " H.264 (JPEG where a page lacks it)"
                  : "JPEG (" + std::to_string(raw->encoders) + " encoder" +
                        (raw->encoders > 1 ? "s" : "") + " at once)") +
            (raw->nvenc || raw->nvencWhy.empty() ? "" : "; NVENC not used: " + raw->nvencWhy));
}

void stopServing(estuary_viewer& v) {
    if (!v.server) throw usageError("nothing is being served");
    if (v.frame.active)
        throw usageError("between frames only (frame " + std::to_string(v.frame.index) +
                         " has begun): the server goes on");
    Server& s = *v.server;
    s.net->stop();
    {
        std::lock_guard lock(s.mutex);
        s.closing = true;
    }
    s.changed.notify_all();
    for (std::thread& t : s.encoderThreads)
        t.join();
    waitIdle(v, "stopping the server"); // the frames in flight copy into the tap's buffers
    releaseTap(v, s.tap);
    v.server.reset();
    ++v.drawVersion;
}

estuary_serve_info serveInfo(estuary_viewer& v) {
    estuary_serve_info info{};
    info.struct_size = sizeof(info);
    if (!v.server) return info;
    Server& s = *v.server;
    const serve::NetCounts& counts = s.net->counts();
    info.running = 1;
    info.port = s.net->port();
    info.url = s.url.c_str();
    info.encoder = s.encoder.c_str();
    info.clients = counts.clients;
    info.frames_sent = counts.framesSent;
    info.sends_dropped = counts.sendsDropped;
    info.requests_refused = counts.refused;
    std::lock_guard lock(s.mutex);
    info.frames_encoded = s.framesEncoded;
    info.frames_dropped = s.framesDropped;
    info.encode_ms_mean = s.framesEncoded ? s.encodeMsTotal / double(s.framesEncoded) : 0.0;
    info.encode_ms_last = s.encodeMsLast;
    info.latency_ms_last = s.latencyMsLast;
    return info;
}

void servePictureCopy(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, uint64_t frame,
                      VkImage image, VkExtent2D extent) {
    Server* s = v.server.get();
    if (!s) return;
    const serve::NetCounts& counts = s->net->counts();
    bool gpu = false, gpuWorks = false;
    std::string broken;
    if (s->nvenc) {
        const VkExtent2D e = nvencExtent(*s->nvenc);
        std::lock_guard lock(s->mutex);
        if (s->gpu == Server::Gpu::Broken && !std::exchange(s->gpuErrorLogged, true))
            broken = s->gpuError;
        gpuWorks =
            s->gpu != Server::Gpu::Broken && e.width == extent.width && e.height == extent.height;
        if (gpuWorks && counts.h264Clients > 0) {
            gpu = s->gpu == Server::Gpu::Free;
            if (gpu) {
                s->gpu = Server::Gpu::Claimed;
                s->gpuFrame = frame;
            } else {
                ++s->framesDropped; // NVENC still has the last picture
            }
        }
    }
    if (!broken.empty()) // outside the lock: a log callback may ask for the serve info
        logMessage(v, ESTUARY_LOG_ERROR, "serving: NVENC failed, JPEG from now on: " + broken);
    if (gpu) recordNvencCopy(v, *s->nvenc, cmd, image);
    // The host copy, for JPEG pages (and H.264 ones when NVENC cannot take this picture).
    if (!gpuWorks || counts.jpegClients > 0)
        tapPicture(v, s->tap, cmd, entry, frame, image, extent);
}

bool servedSignal(const estuary_viewer& v, uint64_t frame, VkSemaphoreSubmitInfo& signal) {
    if (!v.server || !v.server->nvenc) return false;
    signal = nvencSignal(*v.server->nvenc, frame);
    return true;
}

void servedFrameSubmitted(estuary_viewer& v, uint64_t frame) {
    Server* s = v.server.get();
    if (!s || !s->nvenc) return;
    {
        std::lock_guard lock(s->mutex);
        if (s->gpu != Server::Gpu::Claimed || s->gpuFrame != frame) return;
        s->gpu = Server::Gpu::Pending;
        s->taken[frame % s->taken.size()] = {frame, hostNowNs()};
    }
    s->changed.notify_all();
}

void collectServedPicture(estuary_viewer& v, uint64_t frame) {
    Server* s = v.server.get();
    if (!s) return;
    const PictureTap::Staged* staged = takeTapped(s->tap, frame);
    if (!staged || s->net->counts().clients == 0) return; // nobody watches: nothing to encode
    {
        std::lock_guard lock(s->mutex);
        if (s->pendingFull || s->busy >= s->encoders) { // dropped, never queued: encoders busy
            ++s->framesDropped;
            return;
        }
    }
    // The encoder touches `pending` only once pendingFull is set.
    const VkExtent2D e = staged->extent;
    s->pending.resize(size_t(e.width) * e.height * 4);
    std::memcpy(s->pending.data(), staged->buffer.mapped, s->pending.size());
    if (s->bgra)
        for (size_t p = 0; p < s->pending.size(); p += 4)
            std::swap(s->pending[p], s->pending[p + 2]);
    {
        std::lock_guard lock(s->mutex);
        s->pendingWidth = e.width;
        s->pendingHeight = e.height;
        s->pendingFrame = frame;
        s->pendingFull = true;
        const FrameRecord* record = findRecord(v, frame);
        s->taken[frame % s->taken.size()] = {frame, record ? record->endNs : hostNowNs()};
    }
    s->changed.notify_all();
}

void closeServer(estuary_viewer& v) noexcept {
    if (!v.server) return;
    try {
        stopServing(v);
    } catch (const std::exception& e) {
        logMessage(v, ESTUARY_LOG_ERROR, e.what());
        v.server.reset();
    }
}

} // namespace estuary::lib
