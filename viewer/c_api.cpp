// estuary.h's functions: each checks its arguments (a NULL handle or output, a handle of another
// viewer, a frame call outside its frame), calls into the library, and turns what it throws into
// a status with the message kept for estuary_last_error (thread-local). Nothing escapes as an
// exception into C.
#include "viewer.h"
#include "cuda_side.h"
#include "vk_check.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

using namespace estuary;
using namespace estuary::lib;

namespace {

thread_local std::string tLastError;

// "call: what", once: messages made inside (the views') may name the call themselves.
std::string lastError(const char* call, const char* what) {
    const std::string prefix = std::string(call) + ": ";
    return std::string_view(what).starts_with(prefix) ? what : prefix + what;
}

template <class Body> estuary_status guard(const char* call, Body&& body) {
    try {
        body();
        return ESTUARY_OK;
    } catch (const Error& e) {
        tLastError = lastError(call, e.what());
        return e.status();
    } catch (const std::bad_alloc&) {
        tLastError = std::string(call) + ": out of host memory";
        return ESTUARY_ERROR_RUNTIME;
    } catch (const std::exception& e) {
        tLastError = lastError(call, e.what());
        return ESTUARY_ERROR_RUNTIME;
    }
}

void require(const void* pointer, const char* name) {
    if (!pointer) throw usageError(std::string(name) + " is NULL");
}

estuary_frame& activeFrame(estuary_frame* frame) {
    require(frame, "frame");
    if (!frame->active)
        throw usageError("frame " + std::to_string(frame->index) +
                         " has ended (or was never begun): call this between estuary_begin_frame "
                         "and estuary_end_frame");
    return *frame;
}

void sameViewer(const estuary_frame& frame, const estuary_viewer* owner, const std::string& what) {
    if (owner != frame.viewer) throw usageError(what + " belongs to another viewer");
}

// The frame's copy of a CUDA-written image; a single's first use in the frame waits for the
// earlier draws.
uint32_t cudaCopy(estuary_frame& frame, estuary_image& image, uint32_t level) {
    sameViewer(frame, image.viewer, "image " + image.name);
    if (image.writer != ESTUARY_WRITER_CUDA)
        throw usageError(image.name + " is written by the host: use estuary_frame_host_level");
    if (level >= image.levels)
        throw usageError(image.name + ": level " + std::to_string(level) + " of " +
                         std::to_string(image.levels));
    // (With one frame in flight the slot's own wait already covers every earlier draw.)
    if (image.copies == 1 && frame.viewer->slots > 1 && !frame.replayed && !frame.allDrawnWaited) {
        cudaWaitAllDrawn(*frame.viewer, frame);
        frame.allDrawnWaited = true;
    }
    return copyOf(image, frame.index);
}

} // namespace

extern "C" {

uint32_t estuary_version(void) {
    return ESTUARY_API_VERSION;
}

const char* estuary_status_name(estuary_status status) {
    switch (status) {
    case ESTUARY_OK:
        return "ESTUARY_OK";
    case ESTUARY_ERROR_RUNTIME:
        return "ESTUARY_ERROR_RUNTIME";
    case ESTUARY_ERROR_INVALID_ARGUMENT:
        return "ESTUARY_ERROR_INVALID_ARGUMENT";
    case ESTUARY_ERROR_UNSUPPORTED:
        return "ESTUARY_ERROR_UNSUPPORTED";
    case ESTUARY_NOT_READY:
        return "ESTUARY_NOT_READY";
    }
    return "(not an estuary_status)";
}

const char* estuary_last_error(void) {
    return tLastError.c_str();
}

int estuary_gpu_work_abandoned(void) {
    return gpuWorkAbandoned() ? 1 : 0;
}

estuary_status estuary_create_viewer(const estuary_viewer_desc* desc, estuary_viewer** viewer) {
    return guard("estuary_create_viewer", [&] {
        require(desc, "desc");
        require(viewer, "viewer (the output)");
        *viewer = createViewer(*desc);
    });
}

estuary_status estuary_destroy_viewer(estuary_viewer* viewer, uint32_t* validation_messages) {
    return guard("estuary_destroy_viewer", [&] {
        if (!viewer) return;
        const uint32_t gl = glMessages(*viewer);
        const bool fromEnvironment = viewer->validationFromEnvironment;
        const uint32_t messages = destroyViewer(viewer) + gl;
        if (validation_messages) *validation_messages = messages;
        // A program run with ESTUARY_VALIDATION=1 learns of the messages through its exit code.
        if (fromEnvironment && messages > 0)
            throw runtimeError("the validation layer (ESTUARY_VALIDATION=1) reported " +
                               std::to_string(messages) + " message(s); they were logged above");
    });
}

estuary_status estuary_get_viewer_info(estuary_viewer* viewer, estuary_viewer_info* info) {
    return guard("estuary_get_viewer_info", [&] {
        require(viewer, "viewer");
        require(info, "info");
        estuary_viewer& v = *viewer;
        *info = estuary_viewer_info{};
        info->has_cuda = v.cuda ? 1 : 0;
        info->cuda_device = v.cuda ? v.cudaDevice : -1;
        info->headless = v.headless ? 1 : 0;
        info->frames_in_flight = v.slots;
        const VkExtent2D e = windowExtent(v);
        info->width = v.headless ? v.width : e.width;
        info->height = v.headless ? v.height : e.height;
        info->draw_path = v.drawPath;
        info->consumer = v.consumer;
        info->gl_handoff = v.glHandoff;
        info->device_name = v.physical.properties.deviceName;
        info->device_uuid = v.deviceUuid.c_str();
        info->device_type = v.deviceType.c_str();
        info->cuda_choice = v.cudaChoice.c_str();
        info->vulkan_version = v.vulkanVersion.c_str();
        info->driver_version = v.driverVersion.c_str();
        info->data_dir = v.dataDirText.c_str();
        info->gl_debug_messages = glMessages(v);
    });
}

uint32_t estuary_validation_messages(estuary_viewer* viewer) {
    return viewer ? validationMessageCount(viewer->instance) + glMessages(*viewer) : 0;
}

estuary_status estuary_create_image(estuary_viewer* viewer, const estuary_image_desc* desc,
                                    estuary_image** image) {
    return guard("estuary_create_image", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        require(image, "image (the output)");
        *image = createImage(*viewer, *desc);
    });
}

estuary_status estuary_create_buffer(estuary_viewer* viewer, const estuary_buffer_desc* desc,
                                     estuary_buffer** buffer) {
    return guard("estuary_create_buffer", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        require(buffer, "buffer (the output)");
        *buffer = createBuffer(*viewer, *desc);
    });
}

estuary_status estuary_destroy_image(estuary_viewer* viewer, estuary_image* image) {
    return guard("estuary_destroy_image", [&] {
        if (!image) return;
        require(viewer, "viewer");
        if (image->viewer != viewer) throw usageError(image->name + " belongs to another viewer");
        destroyImage(*viewer, image);
    });
}

estuary_status estuary_destroy_buffer(estuary_viewer* viewer, estuary_buffer* buffer) {
    return guard("estuary_destroy_buffer", [&] {
        if (!buffer) return;
        require(viewer, "viewer");
        if (buffer->viewer != viewer) throw usageError(buffer->name + " belongs to another viewer");
        destroyBuffer(*viewer, buffer);
    });
}

estuary_status estuary_get_image_info(estuary_image* image, estuary_image_info* info) {
    return guard("estuary_get_image_info", [&] {
        require(image, "image");
        require(info, "info");
        *info = estuary_image_info{};
        info->format = image->format;
        info->kind = image->kind;
        info->width = image->extent.width;
        info->height = image->extent.height;
        info->depth = image->shape.depth;
        info->layers = image->shape.layers;
        info->levels = image->levels;
        info->copies = image->copies;
        info->writer = image->writer;
        info->texel_bytes = image->texelBytes;
        for (uint32_t level = 0; level < image->levels && level < 16; ++level)
            info->level_bytes[level] = levelBytes(*image, level);
    });
}

estuary_status estuary_get_buffer_info(estuary_buffer* buffer, estuary_buffer_info* info) {
    return guard("estuary_get_buffer_info", [&] {
        require(buffer, "buffer");
        require(info, "info");
        *info = estuary_buffer_info{};
        info->size = buffer->size;
        info->copies = buffer->copies;
        info->writer = buffer->writer;
    });
}

estuary_status estuary_add_field_view(estuary_viewer* viewer, const estuary_field_view_desc* desc,
                                      estuary_view** view) {
    return guard("estuary_add_field_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addFieldView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_add_volume_view(estuary_viewer* viewer, const estuary_volume_view_desc* desc,
                                       estuary_view** view) {
    return guard("estuary_add_volume_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addVolumeView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_add_points_view(estuary_viewer* viewer, const estuary_points_view_desc* desc,
                                       estuary_view** view) {
    return guard("estuary_add_points_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addPointsView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_add_markers_view(estuary_viewer* viewer,
                                        const estuary_markers_view_desc* desc,
                                        estuary_view** view) {
    return guard("estuary_add_markers_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addMarkersView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_add_lines_view(estuary_viewer* viewer, const estuary_lines_view_desc* desc,
                                      estuary_view** view) {
    return guard("estuary_add_lines_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addLinesView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_add_mesh_view(estuary_viewer* viewer, const estuary_mesh_view_desc* desc,
                                     estuary_view** view) {
    return guard("estuary_add_mesh_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addMeshView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_add_glyph_view(estuary_viewer* viewer, const estuary_glyph_view_desc* desc,
                                      estuary_view** view) {
    return guard("estuary_add_glyph_view", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        estuary_view* made = addGlyphView(*viewer, *desc);
        if (view) *view = made;
    });
}

estuary_status estuary_record_start(estuary_viewer* viewer, const estuary_record_desc* desc) {
    return guard("estuary_record_start", [&] {
        require(viewer, "viewer");
        require(desc, "desc");
        if (viewer->frame.active)
            throw usageError("estuary_record_start: between frames only (frame " +
                             std::to_string(viewer->frame.index) + " has begun)");
        startRecording(*viewer, *desc);
    });
}

estuary_status estuary_record_stop(estuary_viewer* viewer, estuary_record_info* info) {
    return guard("estuary_record_stop", [&] {
        require(viewer, "viewer");
        stopRecording(*viewer, info);
    });
}

estuary_status estuary_destroy_view(estuary_viewer* viewer, estuary_view* view) {
    return guard("estuary_destroy_view", [&] {
        if (!view) return;
        require(viewer, "viewer");
        if (view->viewer != viewer) throw usageError("the view belongs to another viewer");
        destroyView(*viewer, view);
    });
}

estuary_status estuary_get_view_params(estuary_view* view, estuary_view_params* params) {
    return guard("estuary_get_view_params", [&] {
        require(view, "view");
        require(params, "params");
        *params = view->params;
    });
}

estuary_status estuary_set_view_params(estuary_view* view, const estuary_view_params* params) {
    return guard("estuary_set_view_params", [&] {
        require(view, "view");
        require(params, "params");
        setViewParams(*view->viewer, *view, *params);
    });
}

estuary_status estuary_get_camera(estuary_viewer* viewer, estuary_camera* camera) {
    return guard("estuary_get_camera", [&] {
        require(viewer, "viewer");
        require(camera, "camera");
        constexpr float kDegrees = 57.29578f;
        const Camera& c = viewer->camera;
        *camera = {c.zoom, c.panX, c.panY, c.yaw * kDegrees, c.pitch * kDegrees};
    });
}

estuary_status estuary_set_camera(estuary_viewer* viewer, const estuary_camera* camera) {
    return guard("estuary_set_camera", [&] {
        require(viewer, "viewer");
        require(camera, "camera");
        const estuary_camera& c = *camera;
        for (float x : {c.zoom, c.pan_x, c.pan_y, c.yaw_degrees, c.pitch_degrees})
            if (!std::isfinite(x)) throw usageError("every camera value must be a finite number");
        if (!(c.zoom > 0.0f)) throw usageError("zoom " + std::to_string(c.zoom) + " must be > 0");
        if (std::fabs(c.pitch_degrees) > 85.0f)
            throw usageError("pitch_degrees " + std::to_string(c.pitch_degrees) +
                             " is outside -85..85");
        constexpr float kRadians = 0.017453292f;
        viewer->camera = {c.zoom, c.pan_x, c.pan_y, c.yaw_degrees * kRadians,
                          c.pitch_degrees * kRadians};
        ++viewer->drawVersion;
    });
}

estuary_status estuary_set_background(estuary_viewer* viewer, float red, float green, float blue) {
    return guard("estuary_set_background", [&] {
        require(viewer, "viewer");
        for (float c : {red, green, blue})
            if (!(c >= 0.0f && c <= 1.0f))
                throw usageError("background components must be in 0..1");
        viewer->background = {red, green, blue};
        ++viewer->drawVersion;
    });
}

estuary_status estuary_begin_frame(estuary_viewer* viewer, const estuary_frame_desc* desc,
                                   estuary_frame** frame) {
    return guard("estuary_begin_frame", [&] {
        require(viewer, "viewer");
        require(frame, "frame (the output)");
        *frame = beginFrame(*viewer, desc);
    });
}

estuary_status estuary_frame_wait(estuary_frame* frame) {
    return guard("estuary_frame_wait", [&] {
        estuary_frame& f = activeFrame(frame);
        if (f.viewer->cuda && f.viewer->protocolStart && f.index >= *f.viewer->protocolStart)
            cudaWaitSlot(*f.viewer, f);
    });
}

estuary_status estuary_end_frame(estuary_frame* frame) {
    return guard("estuary_end_frame", [&] { endFrame(activeFrame(frame)); });
}

uint64_t estuary_frame_index(const estuary_frame* frame) {
    return frame ? frame->index : 0;
}
uint64_t estuary_next_frame_index(estuary_viewer* viewer) {
    return viewer ? viewer->nextFrame : 0;
}
uint32_t estuary_frame_slot(const estuary_frame* frame) {
    return frame ? frame->slot : 0;
}
void* estuary_frame_stream(const estuary_frame* frame) {
    return frame ? frame->stream : nullptr;
}
int estuary_frame_replayed(const estuary_frame* frame) {
    return frame && frame->replayed ? 1 : 0;
}

estuary_status estuary_frame_surface(estuary_frame* frame, estuary_image* image, uint32_t level,
                                     uint64_t* surface) {
    return guard("estuary_frame_surface", [&] {
        estuary_frame& f = activeFrame(frame);
        require(image, "image");
        require(surface, "surface (the output)");
        *surface = cudaSurface(*image, cudaCopy(f, *image, level), level);
    });
}

estuary_status estuary_frame_array(estuary_frame* frame, estuary_image* image, uint32_t level,
                                   void** cuda_array) {
    return guard("estuary_frame_array", [&] {
        estuary_frame& f = activeFrame(frame);
        require(image, "image");
        require(cuda_array, "cuda_array (the output)");
        *cuda_array = cudaArray(*image, cudaCopy(f, *image, level), level);
    });
}

estuary_status estuary_frame_mipmapped_array(estuary_frame* frame, estuary_image* image,
                                             void** cuda_mipmapped_array) {
    return guard("estuary_frame_mipmapped_array", [&] {
        estuary_frame& f = activeFrame(frame);
        require(image, "image");
        require(cuda_mipmapped_array, "cuda_mipmapped_array (the output)");
        *cuda_mipmapped_array = cudaMipmappedArray(*image, cudaCopy(f, *image, 0));
    });
}

estuary_status estuary_frame_device_pointer(estuary_frame* frame, estuary_buffer* buffer,
                                            void** pointer) {
    return guard("estuary_frame_device_pointer", [&] {
        estuary_frame& f = activeFrame(frame);
        require(buffer, "buffer");
        require(pointer, "pointer (the output)");
        sameViewer(f, buffer->viewer, "buffer " + buffer->name);
        if (buffer->writer != ESTUARY_WRITER_CUDA)
            throw usageError(buffer->name +
                             " is written by the host: use estuary_frame_host_pointer");
        if (buffer->copies == 1 && f.viewer->slots > 1 && !f.replayed && !f.allDrawnWaited) {
            cudaWaitAllDrawn(*f.viewer, f);
            f.allDrawnWaited = true;
        }
        *pointer = cudaPointer(*buffer, copyOf(*buffer, f.index));
    });
}

estuary_status estuary_frame_host_level(estuary_frame* frame, estuary_image* image, uint32_t level,
                                        void** data) {
    return guard("estuary_frame_host_level", [&] {
        estuary_frame& f = activeFrame(frame);
        require(image, "image");
        require(data, "data (the output)");
        sameViewer(f, image->viewer, "image " + image->name);
        if (image->writer != ESTUARY_WRITER_HOST)
            throw usageError(image->name + " is written by CUDA: use estuary_frame_surface");
        if (level >= image->levels)
            throw usageError(image->name + ": level " + std::to_string(level) + " of " +
                             std::to_string(image->levels));
        if (image->generateMips && level > 0)
            throw usageError(image->name + " generates its mips (ESTUARY_IMAGE_GENERATE_MIPS): "
                                           "write level 0 only");
        image->writtenFrame = f.index;
        *data = static_cast<uint8_t*>(image->staging[f.entry].mapped) +
                image->regions[level].bufferOffset;
    });
}

estuary_status estuary_frame_host_pointer(estuary_frame* frame, estuary_buffer* buffer,
                                          void** data) {
    return guard("estuary_frame_host_pointer", [&] {
        estuary_frame& f = activeFrame(frame);
        require(buffer, "buffer");
        require(data, "data (the output)");
        sameViewer(f, buffer->viewer, "buffer " + buffer->name);
        if (buffer->writer != ESTUARY_WRITER_HOST)
            throw usageError(buffer->name +
                             " is written by CUDA: use estuary_frame_device_pointer");
        buffer->writtenFrame = f.index;
        *data = buffer->host[buffer->copies + f.entry].mapped;
    });
}

estuary_status estuary_frame_copy_to_image(estuary_frame* frame, estuary_image* image,
                                           uint32_t level, const void* source, uint64_t bytes) {
    return guard("estuary_frame_copy_to_image", [&] {
        estuary_frame& f = activeFrame(frame);
        require(image, "image");
        require(source, "source");
        sameViewer(f, image->viewer, "image " + image->name);
        if (level >= image->levels)
            throw usageError(image->name + ": level " + std::to_string(level) + " of " +
                             std::to_string(image->levels));
        const uint64_t expected = levelBytes(*image, level);
        if (bytes != expected)
            throw usageError(image->name + ": level " + std::to_string(level) + " holds " +
                             std::to_string(expected) + " bytes of tightly packed texels; " +
                             std::to_string(bytes) + " were given");
        if (image->writer == ESTUARY_WRITER_CUDA) {
            cudaCopy(f, *image, level);
            cudaCopyToImage(f, *image, level, source, bytes);
            return;
        }
        if (image->generateMips && level > 0)
            throw usageError(image->name + " generates its mips: copy level 0 only");
        image->writtenFrame = f.index;
        std::memcpy(static_cast<uint8_t*>(image->staging[f.entry].mapped) +
                        image->regions[level].bufferOffset,
                    source, bytes);
    });
}

estuary_status estuary_frame_read_image(estuary_frame* frame, estuary_image* image, uint32_t level,
                                        uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                                        uint32_t flags, void* destination) {
    return guard("estuary_frame_read_image", [&] {
        estuary_frame& f = activeFrame(frame);
        require(image, "image");
        sameViewer(f, image->viewer, "image " + image->name);
        readImage(f, image, level, x, y, width, height, flags, destination);
    });
}

estuary_status estuary_frame_read_buffer(estuary_frame* frame, estuary_buffer* buffer,
                                         uint64_t offset, uint64_t bytes, uint32_t flags,
                                         void* destination) {
    return guard("estuary_frame_read_buffer", [&] {
        estuary_frame& f = activeFrame(frame);
        require(buffer, "buffer");
        sameViewer(f, buffer->viewer, "buffer " + buffer->name);
        readBuffer(f, buffer, offset, bytes, flags, destination);
    });
}

estuary_status estuary_frame_pick(estuary_frame* frame, estuary_view* view, float x, float y,
                                  float radius, estuary_pick* result) {
    return guard("estuary_frame_pick", [&] {
        estuary_frame& f = activeFrame(frame);
        require(view, "view");
        sameViewer(f, view->viewer, "view '" + view->label + "'");
        pickView(f, view, x, y, radius, result);
    });
}

estuary_status estuary_display(estuary_viewer* viewer, estuary_frame_fn callback, void* user,
                               uint64_t frames) {
    return guard("estuary_display", [&] {
        require(viewer, "viewer");
        if (!callback)
            throw usageError("callback is NULL; pass the function called once per frame");
        estuary_viewer& v = *viewer;
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
        for (uint64_t n = 0; (frames == 0 || n < frames) && !v.closeRequested && !windowClosed(v);
             ++n) {
            estuary_frame* frame = beginFrame(v, nullptr);
            int stop = 0;
            try {
                stop = callback(frame, user);
            } catch (...) { // a C callback cannot throw, but a C++ one might
                endFrame(*frame);
                throw;
            }
            endFrame(*frame);
            if (stop) break;
        }
        finish(v);
        if (const char* path = std::getenv("ESTUARY_SCREENSHOT"); path && *path && v.nextFrame > 0)
            writeScreenshot(v, path);
    });
}

estuary_status estuary_wait_frame(estuary_viewer* viewer, uint64_t frame) {
    return guard("estuary_wait_frame", [&] {
        require(viewer, "viewer");
        if (frame >= viewer->nextFrame)
            throw usageError("frame " + std::to_string(frame) + " has not ended yet (next frame: " +
                             std::to_string(viewer->nextFrame) + ")");
        waitFrame(*viewer, frame, "estuary_wait_frame");
    });
}

estuary_status estuary_finish(estuary_viewer* viewer) {
    return guard("estuary_finish", [&] {
        require(viewer, "viewer");
        finish(*viewer);
    });
}

estuary_status estuary_screenshot(estuary_viewer* viewer, const char* path) {
    return guard("estuary_screenshot", [&] {
        require(viewer, "viewer");
        require(path, "path");
        if (!*path) throw usageError("path is empty");
        writeScreenshot(*viewer, path);
    });
}

estuary_status estuary_read_pixels(estuary_viewer* viewer, void* pixels, uint64_t bytes) {
    return guard("estuary_read_pixels", [&] {
        require(viewer, "viewer");
        require(pixels, "pixels");
        VkExtent2D extent{};
        const std::vector<uint8_t> rgba = readPixels(*viewer, extent);
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
        require(viewer, "viewer");
        viewer->uiCallback = callback;
        viewer->uiUser = user;
    });
}

estuary_status estuary_get_input(estuary_viewer* viewer, estuary_input* input) {
    return guard("estuary_get_input", [&] {
        require(viewer, "viewer");
        require(input, "input");
        *input = currentInput(*viewer);
    });
}

estuary_status estuary_poll_events(estuary_viewer* viewer) {
    return guard("estuary_poll_events", [&] {
        require(viewer, "viewer");
        startInputPoll(*viewer);
        deliverInjected(*viewer);
        pollEvents(*viewer);
    });
}

estuary_status estuary_inject_event(estuary_viewer* viewer, const estuary_event* event) {
    return guard("estuary_inject_event", [&] {
        require(viewer, "viewer");
        require(event, "event");
        if (uint32_t(event->kind) > ESTUARY_EVENT_ICONIFY)
            throw usageError("event kind " + std::to_string(int(event->kind)) +
                             " is not an estuary_event_kind");
        if (event->kind == ESTUARY_EVENT_BUTTON && (event->code < 0 || event->code > 2))
            throw usageError("button " + std::to_string(event->code) +
                             " is not 0 (left), 1 (right) or 2 (middle)");
        if (viewer->injected.size() >= 4096)
            throw usageError("4096 injected events are waiting: poll (estuary_begin_frame or "
                             "estuary_poll_events) to deliver them");
        viewer->injected.push_back(*event);
    });
}

estuary_status estuary_set_window_size(estuary_viewer* viewer, uint32_t width, uint32_t height) {
    return guard("estuary_set_window_size", [&] {
        require(viewer, "viewer");
        setWindowSize(*viewer, width, height);
    });
}

int estuary_should_close(estuary_viewer* viewer) {
    return viewer && (viewer->closeRequested || windowClosed(*viewer)) ? 1 : 0;
}

estuary_status estuary_request_close(estuary_viewer* viewer) {
    return guard("estuary_request_close", [&] {
        require(viewer, "viewer");
        viewer->closeRequested = true;
    });
}

estuary_status estuary_notify(estuary_viewer* viewer, const char* text, int is_error) {
    return guard("estuary_notify", [&] {
        require(viewer, "viewer");
        require(text, "text");
        showNotice(*viewer, text, is_error != 0);
    });
}

estuary_status estuary_next_frame_stats(estuary_viewer* viewer, estuary_frame_stats* stats) {
    if (!viewer || !stats) {
        tLastError = "estuary_next_frame_stats: viewer or stats is NULL";
        return ESTUARY_ERROR_INVALID_ARGUMENT;
    }
    if (viewer->timing.ready.empty()) return ESTUARY_NOT_READY;
    *stats = viewer->timing.ready.front();
    viewer->timing.ready.pop_front();
    return ESTUARY_OK;
}

estuary_status estuary_align_frame_stats(estuary_viewer* viewer, estuary_frame_stats* stats,
                                         size_t count) {
    return guard("estuary_align_frame_stats", [&] {
        require(viewer, "viewer");
        if (count > 0) require(stats, "stats");
        for (size_t i = 0; i < count; ++i)
            alignStats(*viewer, stats[i]);
    });
}

estuary_status estuary_get_clock_info(estuary_viewer* viewer, estuary_clock_info* info) {
    return guard("estuary_get_clock_info", [&] {
        require(viewer, "viewer");
        require(info, "info");
        *info = clockInfo(*viewer);
    });
}

estuary_status estuary_get_metrics(estuary_viewer* viewer, estuary_metrics* out) {
    return guard("estuary_get_metrics", [&] {
        require(viewer, "viewer");
        require(out, "metrics");
        *out = metrics(*viewer);
    });
}

estuary_status estuary_inject_fault(estuary_viewer* viewer, estuary_fault fault, uint64_t frame) {
    return guard("estuary_inject_fault", [&] {
        require(viewer, "viewer");
        switch (fault) {
        case ESTUARY_FAULT_DEVICE_LOST:
            viewer->faultDeviceLost = frame;
            break;
        case ESTUARY_FAULT_VULKAN_STALL:
            viewer->faultVulkanStall = frame;
            break;
        case ESTUARY_FAULT_ALLOC_FAIL:
            viewer->faultAllocFail = true;
            break;
        case ESTUARY_FAULT_CUDA_STALL:
            if (!viewer->cuda) throw unsupported("ESTUARY_FAULT_CUDA_STALL needs CUDA");
            viewer->faultCudaStall = frame;
            break;
        default:
            throw usageError("fault " + std::to_string(int(fault)) + " is not an estuary_fault");
        }
    });
}

} // extern "C"
