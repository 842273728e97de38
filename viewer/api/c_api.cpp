// estuary.h's functions for the viewer, its images, buffers and views, the camera and recording:
// each resolves its handles (a stale, foreign or made-up one is ESTUARY_ERROR_INVALID_HANDLE),
// reads its structs by the size the caller gave, runs on the viewer's CUDA device and gives the
// caller's back, calls into the library, and turns what it throws into a status with the message
// kept for estuary_last_error (thread-local). Nothing escapes as an exception into C. The frame's
// functions are in c_api_frame.cpp.
#include "c_api_internal.h"
#include "vk_check.h"

#include <cmath>

using namespace estuary;
using namespace estuary::lib;
using namespace estuary::lib::capi;

namespace estuary::lib::capi {
namespace {
thread_local std::string tLastError;
} // namespace

void setLastError(std::string message) {
    tLastError = std::move(message);
}
void clearLastError() {
    if (!tLastError.empty()) tLastError.clear();
}

} // namespace estuary::lib::capi

namespace {

// An image, buffer or view of the viewer destroyed and its handle retired; NULL: nothing. A
// refused destroy (a view still draws the image) throws before anything changed, the handle kept.
template <class T>
estuary_status destroyChild(const char* call, estuary_viewer* viewer, T* handle, const char* name,
                            void (*destroy)(estuary_viewer&, T*)) {
    return guard(call, [&] {
        if (!handle) return;
        estuary_viewer& v = resolve(viewer, "viewer");
        T& object = resolveOf(v, handle, name);
        const CudaDeviceScope device(&v);
        const uint64_t bits = object.handle;
        destroy(v, &object);
        handles().remove(bits);
    });
}

void retireChildren(estuary_viewer& v) {
    for (auto& view : v.views)
        retire(view->handle);
    for (auto& image : v.images)
        retire(image->handle);
    for (auto& buffer : v.buffers)
        retire(buffer->handle);
    if (v.frame.handle) retire(v.frame.handle);
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
    case ESTUARY_ERROR_OUT_OF_MEMORY:
        return "ESTUARY_ERROR_OUT_OF_MEMORY";
    case ESTUARY_ERROR_DEVICE_LOST:
        return "ESTUARY_ERROR_DEVICE_LOST";
    case ESTUARY_ERROR_TIMEOUT:
        return "ESTUARY_ERROR_TIMEOUT";
    case ESTUARY_ERROR_INVALID_HANDLE:
        return "ESTUARY_ERROR_INVALID_HANDLE";
    default:
        break;
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
        const CudaDeviceScope callersDevice(nullptr); // given back once the viewer is made
        const estuary_viewer_desc d = readStruct(desc, "desc", "estuary_viewer_desc");
        require(viewer, "viewer (the output)");
        *viewer = publish(createViewer(d));
    });
}

estuary_status estuary_destroy_viewer(estuary_viewer* viewer, uint32_t* validation_messages) {
    return guard("estuary_destroy_viewer", [&] {
        if (!viewer) return;
        estuary_viewer& v = resolve(viewer, "viewer");
        const CudaDeviceScope device(&v);
        const uint32_t gl = glMessages(v);
        const bool fromEnvironment = v.validationFromEnvironment;
        retireChildren(v);
        retire(v.handle);
        const uint32_t messages = destroyViewer(&v) + gl;
        if (validation_messages) *validation_messages = messages;
        // A program run with ESTUARY_VALIDATION=1 learns of the messages through its exit code.
        if (fromEnvironment && messages > 0)
            throw runtimeError("the validation layer (ESTUARY_VALIDATION=1) reported " +
                               std::to_string(messages) + " message(s); they were logged above");
    });
}

estuary_status estuary_get_viewer_info(estuary_viewer* viewer, estuary_viewer_info* info) {
    return guard("estuary_get_viewer_info", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(info, "info", "estuary_viewer_info");
        estuary_viewer_info out{};
        out.has_cuda = v.cuda ? 1 : 0;
        out.cuda_device = v.cuda ? v.cudaDevice : -1;
        out.headless = v.headless ? 1 : 0;
        out.frames_in_flight = v.slots;
        const VkExtent2D e = windowExtent(v);
        out.width = v.headless ? v.width : e.width;
        out.height = v.headless ? v.height : e.height;
        out.draw_path = v.drawPath;
        out.consumer = v.consumer;
        out.gl_handoff = v.glHandoff;
        out.device_name = v.physical.properties.deviceName;
        out.device_uuid = v.deviceUuid.c_str();
        out.device_type = v.deviceType.c_str();
        out.cuda_choice = v.cudaChoice.c_str();
        out.vulkan_version = v.vulkanVersion.c_str();
        out.driver_version = v.driverVersion.c_str();
        out.data_dir = v.dataDirText.c_str();
        out.gl_debug_messages = glMessages(v);
        writeStruct(info, out);
    });
}

uint32_t estuary_validation_messages(estuary_viewer* viewer) {
    const estuary_viewer* v = lookup(viewer);
    return v ? validationMessageCount(v->instance) + glMessages(*v) : 0;
}

estuary_status estuary_create_image(estuary_viewer* viewer, const estuary_image_desc* desc,
                                    estuary_image** image) {
    return guard("estuary_create_image", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_image_desc d = readStruct(desc, "desc", "estuary_image_desc");
        require(image, "image (the output)");
        const CudaDeviceScope device(&v);
        *image = publish(createImage(v, d));
    });
}

estuary_status estuary_create_buffer(estuary_viewer* viewer, const estuary_buffer_desc* desc,
                                     estuary_buffer** buffer) {
    return guard("estuary_create_buffer", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_buffer_desc d = readStruct(desc, "desc", "estuary_buffer_desc");
        require(buffer, "buffer (the output)");
        const CudaDeviceScope device(&v);
        *buffer = publish(createBuffer(v, d));
    });
}

estuary_status estuary_destroy_image(estuary_viewer* viewer, estuary_image* image) {
    return destroyChild("estuary_destroy_image", viewer, image, "image", destroyImage);
}

estuary_status estuary_destroy_buffer(estuary_viewer* viewer, estuary_buffer* buffer) {
    return destroyChild("estuary_destroy_buffer", viewer, buffer, "buffer", destroyBuffer);
}

estuary_status estuary_get_image_info(estuary_image* image, estuary_image_info* info) {
    return guard("estuary_get_image_info", [&] {
        const estuary_image& i = resolve(image, "image");
        checkOutput(info, "info", "estuary_image_info");
        estuary_image_info out{};
        out.format = i.format;
        out.kind = i.kind;
        out.width = i.extent.width;
        out.height = i.extent.height;
        out.depth = i.shape.depth;
        out.layers = i.shape.layers;
        out.levels = i.levels;
        out.copies = i.copies;
        out.writer = i.writer;
        out.texel_bytes = i.texelBytes;
        for (size_t a = 0; a < 3; ++a) {
            out.origin[a] = i.origin[a];
            out.spacing[a] = i.spacing[a];
        }
        writeStruct(info, out);
    });
}

estuary_status estuary_get_image_level_bytes(estuary_image* image, uint32_t level,
                                             uint64_t* bytes) {
    return guard("estuary_get_image_level_bytes", [&] {
        const estuary_image& i = resolve(image, "image");
        require(bytes, "bytes (the output)");
        checkLevel(i, level);
        *bytes = levelBytes(i, level);
    });
}

estuary_status estuary_get_buffer_info(estuary_buffer* buffer, estuary_buffer_info* info) {
    return guard("estuary_get_buffer_info", [&] {
        const estuary_buffer& b = resolve(buffer, "buffer");
        checkOutput(info, "info", "estuary_buffer_info");
        estuary_buffer_info out{};
        out.size = b.size;
        out.copies = b.copies;
        out.writer = b.writer;
        writeStruct(info, out);
    });
}

estuary_status estuary_destroy_view(estuary_viewer* viewer, estuary_view* view) {
    return destroyChild("estuary_destroy_view", viewer, view, "view", destroyView);
}

estuary_status estuary_get_view_params(estuary_view* view, estuary_view_params* params) {
    return guard("estuary_get_view_params", [&] {
        const estuary_view& w = resolve(view, "view");
        checkOutput(params, "params", "estuary_view_params");
        writeStruct(params, w.params);
    });
}

estuary_status estuary_set_view_params(estuary_view* view, const estuary_view_params* params) {
    return guard("estuary_set_view_params", [&] {
        estuary_view& w = resolve(view, "view");
        estuary_view_params p = readStruct(params, "params", "estuary_view_params");
        // A caller built before panels keeps the view in its panel.
        if (params->struct_size < offsetof(estuary_view_params, panel) + sizeof(p.panel))
            p.panel = w.params.panel;
        const CudaDeviceScope device(w.viewer);
        setViewParams(*w.viewer, w, p);
    });
}

estuary_status estuary_get_camera(estuary_viewer* viewer, estuary_camera* camera) {
    return estuary_get_panel_camera(viewer, 0, camera);
}

estuary_status estuary_set_camera(estuary_viewer* viewer, const estuary_camera* camera) {
    return estuary_set_panel_camera(viewer, 0, camera);
}

estuary_status estuary_get_panel_camera(estuary_viewer* viewer, uint32_t panel,
                                        estuary_camera* camera) {
    return guard("estuary_get_panel_camera", [&] {
        const estuary_viewer& v = resolve(viewer, "viewer");
        checkOutput(camera, "camera", "estuary_camera");
        checkPanel(v, panel, "estuary_get_panel_camera");
        writeStruct(camera, cameraOut(panelCamera(v, panel)));
    });
}

estuary_status estuary_set_panel_camera(estuary_viewer* viewer, uint32_t panel,
                                        const estuary_camera* camera) {
    return guard("estuary_set_panel_camera", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_camera c = readStruct(camera, "camera", "estuary_camera");
        checkPanel(v, panel, "estuary_set_panel_camera");
        setPanelCamera(v, panel, cameraFrom(c, "estuary_set_panel_camera"));
    });
}

estuary_status estuary_set_layout(estuary_viewer* viewer, const estuary_layout_desc* desc) {
    return guard("estuary_set_layout", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_layout_desc d = readStruct(desc, "desc", "estuary_layout_desc");
        if (v.frame.active)
            throw usageError("estuary_set_layout: between frames only (frame " +
                             std::to_string(v.frame.index) + " has begun)");
        const CudaDeviceScope device(&v);
        setLayout(v, d);
    });
}

estuary_status estuary_set_panel(estuary_viewer* viewer, uint32_t panel,
                                 const estuary_panel_desc* desc) {
    return guard("estuary_set_panel", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_panel_desc d = readStruct(desc, "desc", "estuary_panel_desc");
        setPanel(v, panel, d);
    });
}

estuary_status estuary_panel_at(estuary_viewer* viewer, float x, float y, uint32_t* panel) {
    return guard("estuary_panel_at", [&] {
        const estuary_viewer& v = resolve(viewer, "viewer");
        require(panel, "panel");
        if (!std::isfinite(x) || !std::isfinite(y))
            throw usageError("estuary_panel_at: the point (" + std::to_string(x) + ", " +
                             std::to_string(y) + ") must be finite (framebuffer pixels)");
        *panel = panelAt(v, x, y);
    });
}

estuary_status estuary_set_background(estuary_viewer* viewer, float red, float green, float blue) {
    return guard("estuary_set_background", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        for (float c : {red, green, blue})
            if (!(c >= 0.0f && c <= 1.0f))
                throw usageError("background components must be in 0..1");
        v.background = {red, green, blue};
        ++v.drawVersion;
    });
}

estuary_status estuary_create_colormap(estuary_viewer* viewer, const estuary_colormap_desc* desc,
                                       estuary_colormap* colormap) {
    return guard("estuary_create_colormap", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        require(colormap, "colormap");
        const estuary_colormap_desc d = readStruct(desc, "desc", "estuary_colormap_desc");
        *colormap = createColormap(v, d);
    });
}

estuary_status estuary_record_start(estuary_viewer* viewer, const estuary_record_desc* desc) {
    return guard("estuary_record_start", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        const estuary_record_desc d = readStruct(desc, "desc", "estuary_record_desc");
        if (v.frame.active)
            throw usageError("estuary_record_start: between frames only (frame " +
                             std::to_string(v.frame.index) + " has begun)");
        const CudaDeviceScope device(&v);
        startRecording(v, d);
    });
}

estuary_status estuary_record_stop(estuary_viewer* viewer, estuary_record_info* info) {
    return guard("estuary_record_stop", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        if (info) checkOutput(info, "info", "estuary_record_info");
        const CudaDeviceScope device(&v);
        estuary_record_info out{};
        stopRecording(v, info ? &out : nullptr);
        if (info) writeStruct(info, out);
    });
}

} // extern "C"
