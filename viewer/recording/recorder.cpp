// Recording the picture to a video file (recorder.h has the design).
#include "recorder.h"
#include "errors.h"
#include "output_file.h"
#include "video/video_module.h"
#include "viewer.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <exception>
#include <string>
#include <utility>

namespace estuary::lib {
namespace {

// Pictures the worker may hold (queued or being encoded) beyond the frames in flight before the
// loop waits for it: the tap keeps this many buffers more than the host ring.
constexpr uint32_t kQueueFrames = 8;

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

// `staged`'s picture at the recording's size, nearest texel, where the target's size changed
// since the recording started (e.g. a resized window); the byte order is kept.
std::vector<uint8_t> resampled(const Recorder& r, const PictureTap::Staged& staged) {
    const auto* source = static_cast<const uint32_t*>(staged.buffer.mapped);
    std::vector<uint8_t> picture(size_t(r.width) * r.height * 4);
    auto* out = reinterpret_cast<uint32_t*>(picture.data());
    for (uint32_t y = 0; y < r.height; ++y) {
        const uint32_t sy = uint32_t(uint64_t(y) * staged.extent.height / r.height);
        for (uint32_t x = 0; x < r.width; ++x) {
            const uint32_t sx = uint32_t(uint64_t(x) * staged.extent.width / r.width);
            out[size_t(y) * r.width + x] = source[size_t(sy) * staged.extent.width + sx];
        }
    }
    return picture;
}

// Encodes one held picture, straight from the tap's buffer where it has the recording's size.
int encode(Recorder& r, const PictureTap::Staged& staged, char* error, size_t errorSize) {
    if (staged.extent.width == r.width && staged.extent.height == r.height)
        return r.api->write(r.video, static_cast<const uint8_t*>(staged.buffer.mapped), error,
                            errorSize);
    const std::vector<uint8_t> picture = resampled(r, staged);
    return r.api->write(r.video, picture.data(), error, errorSize);
}

void encodeLoop(Recorder& r) {
    for (;;) {
        const PictureTap::Staged* staged = nullptr;
        bool failed = false;
        {
            std::unique_lock lock(r.mutex);
            r.changed.wait(lock, [&] { return r.closing || !r.queue.empty(); });
            if (r.queue.empty()) return; // closing, and everything was written
            staged = r.queue.front();
            r.queue.pop_front();
            failed = !r.failure.empty();
        }
        if (failed) { // drop: the file is lost anyway
            releaseTapped(r.tap, staged);
            continue;
        }
        char error[512] = {};
        const auto start = std::chrono::steady_clock::now();
        if (r.encodeDelayMs)
            std::this_thread::sleep_for(std::chrono::milliseconds(r.encodeDelayMs));
        const int code = encode(r, *staged, error, sizeof(error));
        const double ms = msSince(start);
        releaseTapped(r.tap, staged);
        if (code != 0) {
            // The file is lost: its temporary goes now (a full disk gets its space back), and the
            // target keeps its previous file. stopRecording reports the error.
            r.api->abandon(std::exchange(r.video, nullptr));
        }
        std::lock_guard lock(r.mutex);
        if (code != 0 && r.failure.empty()) r.failure = error[0] ? error : "the encoder failed";
        if (code == 0) {
            ++r.framesWritten;
            r.encodeMs += ms;
            r.encodeMaxMs = std::max(r.encodeMaxMs, ms);
        }
    }
}

// Checks the request; returns the file the recording replaces when it stops (links followed, the
// rule of estuary's other outputs, output_file.h).
std::filesystem::path checkDesc(const estuary_record_desc& d) {
    if (!d.path || !*d.path) throw usageError("path is empty");
    const std::filesystem::path path(d.path);
    const std::string extension = path.extension().string();
    if (extension != ".mp4" && extension != ".mkv")
        throw usageError("path " + path.string() + " must end in .mp4 or .mkv (got '" + extension +
                         "')");
    if (d.fps > 240) throw usageError("fps " + std::to_string(d.fps) + " is not in 1..240 (0: 60)");
    if (d.quality > 51)
        throw usageError("quality " + std::to_string(d.quality) +
                         " is not in 1..51 (lower is better; 0: 23)");
    try {
        return checkRenameTarget(path);
    } catch (const Error& e) {
        throw usageError(e.what());
    }
}

// The worker's failure, said once from the frame loop's thread (the log and the window's notice are
// not the worker's to touch); the run goes on, and estuary_record_stop returns the error.
void reportFailureOnce(estuary_viewer& v, Recorder& r) {
    std::string failure;
    {
        std::lock_guard lock(r.mutex);
        if (r.failure.empty() || r.failureReported) return;
        r.failureReported = true;
        failure = r.failure;
    }
    const std::string message = "recording " + r.path + " failed, and stopped: " + failure;
    logMessage(v, ESTUARY_LOG_ERROR, message);
    showNotice(v, message, true);
}

} // namespace

// The video module: beside libestuary (found through this function's own address), else wherever
// the loader looks. Loaded once and kept.
const EstuaryVideoApi* loadVideoModule() {
    static const EstuaryVideoApi* api = nullptr;
    if (api) return api;
    constexpr const char* kName = "libestuary_video.so";
    Dl_info self{};
    std::string beside;
    if (dladdr(reinterpret_cast<void*>(&loadVideoModule), &self) && self.dli_fname)
        beside = (std::filesystem::path(self.dli_fname).parent_path() / kName).string();
    void* module = beside.empty() ? nullptr : dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!module) {
        const std::string besideError = beside.empty() ? "" : dlerror();
        module = dlopen(kName, RTLD_NOW | RTLD_LOCAL);
        if (!module) {
            const char* plainError = dlerror();
            throw unsupported(std::string("recording needs FFmpeg's libraries through ") + kName +
                              ", which did not load (" +
                              (!besideError.empty() ? besideError
                               : plainError         ? plainError
                                                    : "not found") +
                              "); install libavcodec, libavformat and libswscale, or build "
                              "estuary where their -dev packages are");
        }
    }
    using Entry = const EstuaryVideoApi* (*)();
    const auto entry = reinterpret_cast<Entry>(dlsym(module, "estuary_video_api"));
    const EstuaryVideoApi* found = entry ? entry() : nullptr;
    if (!found || found->version != kEstuaryVideoApiVersion)
        throw unsupported(std::string(kName) + " is not this estuary's (no estuary_video_api " +
                          std::to_string(kEstuaryVideoApiVersion) + ")");
    api = found;
    return api;
}

namespace {

// The worker stops without encoding what is queued (an abandoned recording).
void stopWorker(Recorder& r) {
    if (!r.worker.joinable()) return;
    {
        std::lock_guard lock(r.mutex);
        r.closing = true;
        r.queue.clear();
    }
    r.changed.notify_all();
    r.worker.join();
}

} // namespace

Recorder::~Recorder() {
    stopWorker(*this);
    if (video) api->abandon(video);
}

void startRecording(estuary_viewer& v, const estuary_record_desc& desc) {
    if (v.recorder) throw usageError("already recording " + v.recorder->path);
    const std::filesystem::path target = checkDesc(desc);
    if (v.gl) throw unsupported("the OpenGL consumer's pictures are not recorded");
    if (!pictureReadable(v))
        throw unsupported("this window's surface cannot be read back "
                          "(no transfer-source use), or the window has no picture yet");
    auto r = std::make_unique<Recorder>();
    r->api = loadVideoModule();
    const VkExtent2D extent = pictureExtent(v);
    r->width = extent.width;
    r->height = extent.height;
    r->bgra =
        pictureFormat(v) == VK_FORMAT_B8G8R8A8_UNORM || pictureFormat(v) == VK_FORMAT_B8G8R8A8_SRGB;
    r->tap.spare = kQueueFrames;
    if (const char* delay = std::getenv("ESTUARY_FAULT_ENCODE_DELAY_MS"))
        r->encodeDelayMs = uint32_t(std::strtoul(delay, nullptr, 10));
    r->path = desc.path;
    // Beside the file replaced, so that the rename stays in its folder (a link's target's).
    const std::string finalPath = target.string();
    const std::string temp = finalPath + ".part";
    EstuaryVideoOptions options{};
    options.path = finalPath.c_str();
    options.tempPath = temp.c_str();
    options.width = r->width;
    options.height = r->height;
    options.fps = desc.fps ? desc.fps : 60;
    options.quality = desc.quality ? desc.quality : 23;
    options.encoder = desc.encoder;
    options.bgra = r->bgra ? 1 : 0;
    char error[512] = {};
    const char* encoder = nullptr;
    r->video = r->api->open(&options, &encoder, error, sizeof(error));
    if (!r->video) {
        // The file failing (a full disk at its header) is a runtime error; an encoder or
        // container this FFmpeg lacks is the environment's (video_module.h words them apart).
        const std::string text = error;
        if (text.rfind("writing ", 0) == 0 || text.rfind("cannot write ", 0) == 0)
            throw runtimeError(text);
        throw unsupported(text);
    }
    r->encoder = encoder ? encoder : "";
    Recorder* raw = r.get();
    r->worker = std::thread([raw] { encodeLoop(*raw); });
    v.recorder = std::move(r);
    ++v.drawVersion; // frames recorded from now on copy their picture out
    logMessage(v, ESTUARY_LOG_INFO,
               "recording " + raw->path + " with " + raw->encoder + " at " +
                   std::to_string(raw->width) + "x" + std::to_string(raw->height));
}

void recordPictureCopy(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, uint64_t frame,
                       VkImage image, VkExtent2D extent) {
    Recorder* r = v.recorder.get();
    if (!r) return;
    tapPicture(v, r->tap, cmd, entry, frame, image, extent);
}

void collectRecordedPicture(estuary_viewer& v, uint64_t frame) {
    Recorder* r = v.recorder.get();
    if (!r) return;
    reportFailureOnce(v, *r);
    const auto start = std::chrono::steady_clock::now();
    const PictureTap::Staged* staged = takeTapped(r->tap, frame, /*hold=*/true);
    if (!staged) return; // drawn before the recording, or nothing drawn
    try {
        std::lock_guard lock(r->mutex);
        r->queue.push_back(staged);
        ++r->framesQueued;
    } catch (...) { // not queued: the worker will never give it back
        releaseTapped(r->tap, staged);
        throw;
    }
    r->changed.notify_all();
    r->copyMs += msSince(start);
}

void stopRecording(estuary_viewer& v, estuary_record_info* info) {
    if (!v.recorder) throw usageError("nothing is being recorded");
    if (v.frame.active)
        throw usageError("between frames only (frame " + std::to_string(v.frame.index) +
                         " has begun): the recording goes on");
    // Every frame drawn and collected (finish completes them in order). A failure here leaves the
    // recording as it was, as estuary.h promises of a failed call; the viewer's destruction
    // abandons it if it cannot be finished later.
    finish(v);
    std::unique_ptr<Recorder> r = std::move(v.recorder);
    ++v.drawVersion;
    {
        std::lock_guard lock(r->mutex);
        r->closing = true;
    }
    r->changed.notify_all();
    r->worker.join();
    releaseTap(v, r->tap);
    if (info) {
        *info = estuary_record_info{};
        info->frames = r->framesWritten;
        info->copy_ms_mean = r->framesQueued ? r->copyMs / double(r->framesQueued) : 0.0;
        info->stall_ms_total = r->tap.waitMs;
        v.lastEncoder = r->encoder;
        info->encoder = v.lastEncoder.c_str();
    }
    if (!r->failure.empty()) // its temporary file is gone: the worker abandoned it
        throw runtimeError("recording " + r->path + " failed: " + r->failure +
                           "; the file at that path was left as it was");
    char error[512] = {};
    void* video = std::exchange(r->video, nullptr); // finish frees it, whatever it returns
    if (r->api->finish(video, error, sizeof(error)) != 0)
        throw runtimeError("recording " + r->path + " failed: " + std::string(error) +
                           "; the file at that path was left as it was");
    char timing[200];
    std::snprintf(timing, sizeof(timing),
                  "; the encoder took %.3f ms a picture (mean; %.3f the slowest), the loop "
                  "waited for it at %llu frames (%.1f ms in all)",
                  r->framesWritten ? r->encodeMs / double(r->framesWritten) : 0.0, r->encodeMaxMs,
                  static_cast<unsigned long long>(r->tap.waits), r->tap.waitMs);
    logMessage(v, ESTUARY_LOG_INFO,
               "recorded " + std::to_string(r->framesWritten) + " frames to " + r->path + timing);
}

void closeRecorder(estuary_viewer& v) noexcept {
    if (!v.recorder) return;
    try {
        stopRecording(v, nullptr);
    } catch (const std::exception& e) {
        logMessage(v, ESTUARY_LOG_ERROR, e.what());
    }
    // Not stopped (the frames could not be finished): the worker reads the tap's mapped buffers,
    // so it stops before they go, and they go only once the GPU no longer writes them.
    std::unique_ptr<Recorder> r = std::move(v.recorder);
    if (!r) return;
    stopWorker(*r);
    try {
        if (settleGpuWork(v)) releaseTap(v, r->tap);
    } catch (const std::exception& e) {
        logMessage(v, ESTUARY_LOG_ERROR, e.what());
    }
}

} // namespace estuary::lib
