// estuary.h's functions for frames (begin, wait, end, the frame's images and buffers, reads and
// picks), the display loop, waits, pictures, the window and measurements; the same conventions as
// c_api.cpp. A frame handle lives from its estuary_begin_frame to its estuary_end_frame.
#include "c_api_internal.h"

#include <charconv>
#include <cstdlib>

using namespace estuary;
using namespace estuary::lib;
using namespace estuary::lib::capi;

namespace estuary::lib::capi {

estuary_frame& beginPublishedFrame(estuary_viewer& v, const estuary_frame_desc* desc) {
    estuary_frame& frame = *beginFrame(v, desc);
    publish(&frame);
    return frame;
}

void endPublishedFrame(estuary_frame& frame) {
    struct Retire { // the frame ends, and its handle goes, whatever endFrame says
        estuary_frame& frame;
        ~Retire() { retire(frame.handle); }
    } retireHandle{frame};
    endFrame(frame);
}

} // namespace estuary::lib::capi

namespace {

uint32_t cudaCopy(estuary_frame& frame, estuary_image& image, uint32_t level) {
    if (image.writer != ESTUARY_WRITER_CUDA)
        throw usageError(image.name + " is written by the host: use estuary_frame_host_level");
    checkLevel(image, level);
    return cudaCopyOf(frame, image);
}

// A call on a frame: the live frame, the viewer's device current, `body(frame)`.
template <class Body> estuary_status onFrame(const char* call, estuary_frame* frame, Body&& body) {
    return guard(call, [&] {
        estuary_frame& f = activeFrame(frame);
        const CudaDeviceScope device(f.viewer);
        body(f);
    });
}

// Reads and picks of frames up to `frame` handed to their destinations (those still held).
void deliverUpTo(estuary_viewer& v, uint64_t frame) {
    const uint64_t first = frame + 1 >= v.hostRing ? frame + 1 - v.hostRing : 0;
    for (uint64_t f = first; f <= frame; ++f)
        v.gl ? completeFrame(v, f) : deliverReads(v, f);
}

} // namespace

extern "C" {

estuary_status estuary_begin_frame(estuary_viewer* viewer, const estuary_frame_desc* desc,
                                   estuary_frame** frame) {
    return guard("estuary_begin_frame", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        require(frame, "frame (the output)");
        estuary_frame_desc d{};
        if (desc) d = readStruct(desc, "desc", "estuary_frame_desc");
        const CudaDeviceScope device(&v);
        *frame = handleOf(&beginPublishedFrame(v, desc ? &d : nullptr));
    });
}

estuary_status estuary_frame_wait(estuary_frame* frame) {
    return onFrame("estuary_frame_wait", frame, [](estuary_frame& f) {
        if (f.viewer->cuda && f.viewer->protocolStart && f.index >= *f.viewer->protocolStart)
            cudaWaitSlot(*f.viewer, f);
    });
}

estuary_status estuary_end_frame(estuary_frame* frame) {
    return onFrame("estuary_end_frame", frame, [](estuary_frame& f) { endPublishedFrame(f); });
}

uint64_t estuary_frame_index(const estuary_frame* frame) {
    const estuary_frame* f = lookup(frame);
    return f ? f->index : 0;
}
uint64_t estuary_next_frame_index(estuary_viewer* viewer) {
    const estuary_viewer* v = lookup(viewer);
    return v ? v->nextFrame : 0;
}
uint32_t estuary_frame_slot(const estuary_frame* frame) {
    const estuary_frame* f = lookup(frame);
    return f ? f->slot : 0;
}
void* estuary_frame_stream(const estuary_frame* frame) {
    const estuary_frame* f = lookup(frame);
    return f ? f->stream : nullptr;
}
int estuary_frame_replayed(const estuary_frame* frame) {
    const estuary_frame* f = lookup(frame);
    return f && f->replayed ? 1 : 0;
}

estuary_status estuary_frame_surface(estuary_frame* frame, estuary_image* image, uint32_t level,
                                     uint64_t* surface) {
    return onFrame("estuary_frame_surface", frame, [&](estuary_frame& f) {
        estuary_image& i = resolveOf(*f.viewer, image, "image");
        require(surface, "surface (the output)");
        *surface = cudaSurface(i, cudaCopy(f, i, level), level);
    });
}

estuary_status estuary_frame_array(estuary_frame* frame, estuary_image* image, uint32_t level,
                                   void** cuda_array) {
    return onFrame("estuary_frame_array", frame, [&](estuary_frame& f) {
        estuary_image& i = resolveOf(*f.viewer, image, "image");
        require(cuda_array, "cuda_array (the output)");
        *cuda_array = cudaArray(i, cudaCopy(f, i, level), level);
    });
}

estuary_status estuary_frame_mipmapped_array(estuary_frame* frame, estuary_image* image,
                                             void** cuda_mipmapped_array) {
    return onFrame("estuary_frame_mipmapped_array", frame, [&](estuary_frame& f) {
        estuary_image& i = resolveOf(*f.viewer, image, "image");
        require(cuda_mipmapped_array, "cuda_mipmapped_array (the output)");
        *cuda_mipmapped_array = cudaMipmappedArray(i, cudaCopy(f, i, 0));
    });
}

estuary_status estuary_frame_device_pointer(estuary_frame* frame, estuary_buffer* buffer,
                                            void** pointer) {
    return onFrame("estuary_frame_device_pointer", frame, [&](estuary_frame& f) {
        estuary_buffer& b = resolveOf(*f.viewer, buffer, "buffer");
        require(pointer, "pointer (the output)");
        if (b.writer != ESTUARY_WRITER_CUDA)
            throw usageError(b.name + " is written by the host: use estuary_frame_host_pointer");
        *pointer = cudaPointer(b, cudaCopyOf(f, b));
    });
}

estuary_status estuary_frame_host_level(estuary_frame* frame, estuary_image* image, uint32_t level,
                                        void** data) {
    return onFrame("estuary_frame_host_level", frame, [&](estuary_frame& f) {
        estuary_image& i = resolveOf(*f.viewer, image, "image");
        require(data, "data (the output)");
        if (i.writer != ESTUARY_WRITER_HOST)
            throw usageError(i.name + " is written by CUDA: use estuary_frame_surface");
        checkLevel(i, level);
        if (i.generateMips && level > 0)
            throw usageError(i.name + " generates its mips (ESTUARY_IMAGE_GENERATE_MIPS): "
                                      "write level 0 only");
        i.writtenFrame = f.index;
        *data = static_cast<uint8_t*>(i.staging[f.entry].mapped) + i.regions[level].bufferOffset;
    });
}

estuary_status estuary_frame_host_pointer(estuary_frame* frame, estuary_buffer* buffer,
                                          void** data) {
    return onFrame("estuary_frame_host_pointer", frame, [&](estuary_frame& f) {
        estuary_buffer& b = resolveOf(*f.viewer, buffer, "buffer");
        require(data, "data (the output)");
        if (b.writer != ESTUARY_WRITER_HOST)
            throw usageError(b.name + " is written by CUDA: use estuary_frame_device_pointer");
        b.writtenFrame = f.index;
        *data = b.host[b.copies + f.entry].mapped;
    });
}

estuary_status estuary_frame_copy_to_image(estuary_frame* frame, estuary_image* image,
                                           uint32_t level, const void* source, uint64_t bytes) {
    return onFrame("estuary_frame_copy_to_image", frame, [&](estuary_frame& f) {
        estuary_image& i = resolveOf(*f.viewer, image, "image");
        require(source, "source");
        checkLevel(i, level);
        const uint64_t expected = levelBytes(i, level);
        if (bytes != expected)
            throw usageError(i.name + ": level " + std::to_string(level) + " holds " +
                             std::to_string(expected) + " bytes of tightly packed texels; " +
                             std::to_string(bytes) + " were given");
        if (i.writer == ESTUARY_WRITER_CUDA) {
            cudaCopy(f, i, level);
            cudaCopyToImage(f, i, level, source, bytes);
            return;
        }
        if (i.generateMips && level > 0)
            throw usageError(i.name + " generates its mips: copy level 0 only");
        i.writtenFrame = f.index;
        std::memcpy(static_cast<uint8_t*>(i.staging[f.entry].mapped) +
                        i.regions[level].bufferOffset,
                    source, bytes);
    });
}

estuary_status estuary_frame_read_image(estuary_frame* frame, estuary_image* image, uint32_t level,
                                        uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                                        uint32_t flags, void* destination) {
    return onFrame("estuary_frame_read_image", frame, [&](estuary_frame& f) {
        estuary_image& i = resolveOf(*f.viewer, image, "image");
        readImage(f, &i, level, x, y, width, height, flags, destination);
    });
}

estuary_status estuary_frame_read_buffer(estuary_frame* frame, estuary_buffer* buffer,
                                         uint64_t offset, uint64_t bytes, uint32_t flags,
                                         void* destination) {
    return onFrame("estuary_frame_read_buffer", frame, [&](estuary_frame& f) {
        estuary_buffer& b = resolveOf(*f.viewer, buffer, "buffer");
        readBuffer(f, &b, offset, bytes, flags, destination);
    });
}

estuary_status estuary_frame_pick(estuary_frame* frame, estuary_view* view, float x, float y,
                                  float radius, estuary_pick* result) {
    return onFrame("estuary_frame_pick", frame, [&](estuary_frame& f) {
        estuary_view& w = resolveOf(*f.viewer, view, "view");
        if (result) checkOutput(result, "result", "estuary_pick");
        pickView(f, &w, x, y, radius, result);
    });
}

estuary_status estuary_display(estuary_viewer* viewer, estuary_frame_fn callback, void* user,
                               uint64_t frames) {
    return guard("estuary_display", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        if (!callback)
            throw usageError("callback is NULL; pass the function called once per frame");
        // Samples run headless in tests as they are: ESTUARY_FRAMES caps the frames and
        // ESTUARY_SCREENSHOT names the PNG written of the last one.
        if (const char* text = std::getenv("ESTUARY_FRAMES"); text && *text) {
            uint64_t cap = 0;
            const auto [end, ec] = std::from_chars(text, text + std::strlen(text), cap);
            if (ec != std::errc() || *end != '\0' || cap == 0)
                throw usageError(std::string("ESTUARY_FRAMES=") + text +
                                 " is not a whole number of frames above 0");
            frames = frames ? std::min(frames, cap) : cap;
        }
        const uint64_t viewerHandle = v.handle;
        // The callback may destroy the viewer (through its handle): checked after each frame.
        auto alive = [&] { return handles().find(viewerHandle, HandleKind::Viewer) == &v; };
        for (uint64_t n = 0; (frames == 0 || n < frames) && !v.closeRequested && !windowClosed(v);
             ++n) {
            int stop = 0;
            {
                const CudaDeviceScope device(&v);
                estuary_frame& f = beginPublishedFrame(v, nullptr);
                try {
                    stop = callback(handleOf(&f), user);
                } catch (...) { // a C callback cannot throw, but a C++ one might
                    if (alive() && f.active) endPublishedFrame(f);
                    throw;
                }
                if (!alive())
                    throw invalidHandle("the frame callback destroyed the viewer it was called "
                                        "by; return non-zero to stop the loop instead");
                // A callback that ended its own frame is refused: the loop owns it.
                if (!f.active)
                    throw usageError("the frame callback ended its frame; estuary_display ends "
                                     "it after the callback returns");
                endPublishedFrame(f);
            }
            if (stop) break;
        }
        const CudaDeviceScope device(&v);
        finish(v);
        if (const char* path = std::getenv("ESTUARY_SCREENSHOT"); path && *path && v.nextFrame > 0)
            writeScreenshot(v, path);
    });
}

estuary_status estuary_wait_frame(estuary_viewer* viewer, uint64_t frame) {
    return guard("estuary_wait_frame", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        if (frame >= v.nextFrame)
            throw usageError("frame " + std::to_string(frame) + " has not ended yet (next frame: " +
                             std::to_string(v.nextFrame) + ")");
        const CudaDeviceScope device(&v);
        waitFrame(v, frame, "estuary_wait_frame");
        deliverUpTo(v, frame);
    });
}

estuary_status estuary_finish(estuary_viewer* viewer) {
    return guard("estuary_finish", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const CudaDeviceScope device(&v);
        finish(v);
    });
}

estuary_status estuary_screenshot(estuary_viewer* viewer, const char* path) {
    return guard("estuary_screenshot", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        require(path, "path");
        if (!*path) throw usageError("path is empty");
        const CudaDeviceScope device(&v);
        writeScreenshot(v, path);
    });
}

estuary_status estuary_read_pixels(estuary_viewer* viewer, void* pixels, uint64_t bytes) {
    return guard("estuary_read_pixels", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        require(pixels, "pixels");
        const CudaDeviceScope device(&v);
        VkExtent2D extent{};
        const std::vector<uint8_t> rgba = readPixels(v, extent);
        if (bytes != rgba.size())
            throw usageError("the picture is " + std::to_string(extent.width) + "x" +
                             std::to_string(extent.height) + " RGBA8, " +
                             std::to_string(rgba.size()) + " bytes; " + std::to_string(bytes) +
                             " were given");
        std::memcpy(pixels, rgba.data(), rgba.size());
    });
}

estuary_status estuary_set_ui_callback(estuary_viewer* viewer, estuary_ui_fn callback, void* user) {
    return guard("estuary_set_ui_callback", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        v.uiCallback = callback;
        v.uiUser = user;
    });
}

estuary_status estuary_get_input(estuary_viewer* viewer, estuary_input* input) {
    return guard("estuary_get_input", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(input, "input", "estuary_input");
        writeStruct(input, currentInput(v));
    });
}

estuary_status estuary_poll_events(estuary_viewer* viewer) {
    return guard("estuary_poll_events", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        startInputPoll(v);
        deliverInjected(v);
        pollEvents(v);
    });
}

estuary_status estuary_inject_event(estuary_viewer* viewer, const estuary_event* event) {
    return guard("estuary_inject_event", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_event e = readStruct(event, "event", "estuary_event");
        if (uint32_t(e.kind) > ESTUARY_EVENT_ICONIFY)
            throw usageError("event kind " + std::to_string(int(e.kind)) +
                             " is not an estuary_event_kind");
        if (e.kind == ESTUARY_EVENT_BUTTON && (e.code < 0 || e.code > 2))
            throw usageError("button " + std::to_string(e.code) +
                             " is not 0 (left), 1 (right) or 2 (middle)");
        if (v.injected.size() >= 4096)
            throw usageError("4096 injected events are waiting: poll (estuary_begin_frame or "
                             "estuary_poll_events) to deliver them");
        v.injected.push_back(e);
    });
}

estuary_status estuary_set_window_size(estuary_viewer* viewer, uint32_t width, uint32_t height) {
    return guard("estuary_set_window_size", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        setWindowSize(v, width, height);
    });
}

int estuary_should_close(estuary_viewer* viewer) {
    // A viewer that is gone should close: loops polling it end.
    estuary_viewer* v = lookup(viewer);
    return !v || v->closeRequested || windowClosed(*v) ? 1 : 0;
}

estuary_status estuary_request_close(estuary_viewer* viewer) {
    return guard("estuary_request_close", [&] { resolve(viewer, "viewer").closeRequested = true; });
}

estuary_status estuary_notify(estuary_viewer* viewer, const char* text, int is_error) {
    return guard("estuary_notify", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        require(text, "text");
        showNotice(v, text, is_error != 0);
    });
}

estuary_status estuary_next_frame_stats(estuary_viewer* viewer, estuary_frame_stats* stats) {
    bool ready = false;
    const estuary_status status = guard("estuary_next_frame_stats", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(stats, "stats", "estuary_frame_stats");
        if (v.timing.ready.empty()) return;
        writeStruct(stats, v.timing.ready.front());
        v.timing.ready.pop_front();
        ready = true;
    });
    return status == ESTUARY_OK && !ready ? ESTUARY_NOT_READY : status;
}

estuary_status estuary_align_frame_stats(estuary_viewer* viewer, estuary_frame_stats* stats,
                                         size_t count) {
    return guard("estuary_align_frame_stats", [&] {
        const estuary_viewer& v = resolve(viewer, "viewer");
        if (count == 0) return;
        checkOutput(stats, "stats", "estuary_frame_stats");
        // An array of the caller's structs: its stride is the caller's struct_size.
        const uint32_t stride = stats->struct_size;
        auto* bytes = reinterpret_cast<uint8_t*>(stats);
        for (size_t i = 0; i < count; ++i) {
            auto* one = reinterpret_cast<estuary_frame_stats*>(bytes + i * stride);
            estuary_frame_stats s = readStruct(one, "stats[i]", "estuary_frame_stats");
            alignStats(v, s);
            writeStruct(one, s);
        }
    });
}

estuary_status estuary_get_clock_info(estuary_viewer* viewer, estuary_clock_info* info) {
    return guard("estuary_get_clock_info", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(info, "info", "estuary_clock_info");
        const CudaDeviceScope device(&v);
        writeStruct(info, clockInfo(v));
    });
}

estuary_status estuary_get_metrics(estuary_viewer* viewer, estuary_metrics* out) {
    return guard("estuary_get_metrics", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(out, "metrics", "estuary_metrics");
        const CudaDeviceScope device(&v);
        writeStruct(out, metrics(v));
    });
}

estuary_status estuary_inject_fault(estuary_viewer* viewer, estuary_fault fault, uint64_t frame) {
    return guard("estuary_inject_fault", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        switch (fault) {
        case ESTUARY_FAULT_DEVICE_LOST:
            v.faultDeviceLost = frame;
            break;
        case ESTUARY_FAULT_VULKAN_STALL:
            v.faultVulkanStall = frame;
            break;
        case ESTUARY_FAULT_ALLOC_FAIL:
            v.faultAllocFail = true;
            break;
        case ESTUARY_FAULT_CUDA_STALL:
            if (!v.cuda) throw unsupported("ESTUARY_FAULT_CUDA_STALL needs CUDA");
            v.faultCudaStall = frame;
            break;
        default:
            throw usageError("fault " + std::to_string(int(fault)) + " is not an estuary_fault");
        }
    });
}

} // extern "C"
