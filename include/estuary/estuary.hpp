// estuary.hpp: a header-only C++ layer over estuary.h. Owners that free what they hold (Viewer,
// Image, Buffer; views belong to their viewer), exceptions instead of status codes
// (estuary::Error carries the status and estuary_last_error's message), lambdas for the frame and
// UI callbacks, and CUDA's own types where <cuda_runtime_api.h> was included before this header.
// C++17; nothing here is compiled into the library, so it imposes no flags and no ABI.
//
//   estuary::Viewer viewer;                                   // a window (headless without
//   display) estuary::Image field = viewer.image({ESTUARY_FORMAT_R32_FLOAT, ESTUARY_IMAGE_2D, 512,
//   512}); viewer.fieldView({field.get()}); viewer.display([&](estuary::Frame& frame) {
//       step<<<grid, block, 0, frame.stream()>>>(frame.surface(field), frame.index());
//   });
#ifndef ESTUARY_HPP
#define ESTUARY_HPP

#include "error.hpp"
#include "estuary.h"

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__) || defined(CUDART_VERSION)
#include <cuda_runtime_api.h>
#define ESTUARY_HPP_CUDA 1
#endif

namespace estuary {

// Descriptions with the version filled in; every other field is 0, its default.
struct ViewerDesc : estuary_viewer_desc {
    ViewerDesc() : estuary_viewer_desc{} { api_version = ESTUARY_API_VERSION; }
};

class Viewer;

// Which viewer an owner's handle belongs to, shared by the Viewer and every Image and Buffer made
// from it; null once the viewer is destroyed (which freed them all).
using ViewerLink = std::shared_ptr<estuary_viewer*>;

// An image or buffer, freed (after the frames using it) when the owner goes. Pass get() to the
// descriptions of views. An owner that outlives its viewer (closed, or declared first) is left
// empty: the viewer freed its handle.
template <class Handle, estuary_status (*Destroy)(estuary_viewer*, Handle*)> class Allocation {
  public:
    Allocation() = default;
    Allocation(ViewerLink viewer, Handle* handle) : viewer_(std::move(viewer)), handle_(handle) {}
    Allocation(Allocation&& other) noexcept
        : viewer_(std::move(other.viewer_)), handle_(std::exchange(other.handle_, nullptr)) {}
    Allocation& operator=(Allocation&& other) noexcept {
        if (this != &other) {
            reset();
            viewer_ = std::move(other.viewer_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    Allocation(const Allocation&) = delete;
    Allocation& operator=(const Allocation&) = delete;
    ~Allocation() { reset(); }

    // The handle; null once reset or once its viewer is gone.
    Handle* get() const { return alive() ? handle_ : nullptr; }
    explicit operator bool() const { return get() != nullptr; }
    // Frees now (waiting for the frames that use it); errors are ignored, as in the destructor.
    void reset() {
        Handle* handle = std::exchange(handle_, nullptr);
        if (handle && alive()) (void)Destroy(*viewer_, handle);
        viewer_.reset();
    }

  private:
    bool alive() const { return viewer_ && *viewer_; }

    ViewerLink viewer_;
    Handle* handle_ = nullptr;
};
class Image : public Allocation<estuary_image, estuary_destroy_image> {
  public:
    using Allocation::Allocation;
    estuary_image_info info() const {
        estuary_image_info i{};
        check(estuary_get_image_info(get(), &i));
        return i;
    }
};
class Buffer : public Allocation<estuary_buffer, estuary_destroy_buffer> {
  public:
    using Allocation::Allocation;
    estuary_buffer_info info() const {
        estuary_buffer_info i{};
        check(estuary_get_buffer_info(get(), &i));
        return i;
    }
    uint64_t size() const { return info().size; }
};

// A view: a handle owned by its viewer (destroyed with it, or by Viewer::destroyView).
class View {
  public:
    View() = default;
    explicit View(estuary_view* handle) : handle_(handle) {}
    estuary_view* get() const { return handle_; }
    estuary_view_params params() const {
        estuary_view_params p{};
        check(estuary_get_view_params(handle_, &p));
        return p;
    }
    void setParams(const estuary_view_params& p) const {
        check(estuary_set_view_params(handle_, &p));
    }
    // Changes some parameters: View::update([](auto& p) { p.visible = 0; }).
    template <class Change> void update(Change&& change) const {
        estuary_view_params p = params();
        change(p);
        setParams(p);
    }
    void setVisible(bool visible) const {
        update([&](estuary_view_params& p) { p.visible = visible ? 1 : 0; });
    }

  private:
    estuary_view* handle_ = nullptr;
};

// One frame, between Viewer::beginFrame and Frame::end (or inside Viewer::display's callback).
class Frame {
  public:
    explicit Frame(estuary_frame* frame) : frame_(frame) {}
    estuary_frame* get() const { return frame_; }
    uint64_t index() const { return estuary_frame_index(frame_); }
    uint32_t slot() const { return estuary_frame_slot(frame_); }
    bool replayed() const { return estuary_frame_replayed(frame_) != 0; }
    void wait() const { check(estuary_frame_wait(frame_)); }
    void end() const { check(estuary_end_frame(frame_)); }

    uint64_t surfaceHandle(const Image& image, uint32_t level = 0) const {
        uint64_t surface = 0;
        check(estuary_frame_surface(frame_, image.get(), level, &surface));
        return surface;
    }
    void* devicePointer(const Buffer& buffer) const {
        void* pointer = nullptr;
        check(estuary_frame_device_pointer(frame_, buffer.get(), &pointer));
        return pointer;
    }
    template <class T> T* devicePointer(const Buffer& buffer) const {
        return static_cast<T*>(devicePointer(buffer));
    }
    void* hostLevel(const Image& image, uint32_t level = 0) const {
        void* data = nullptr;
        check(estuary_frame_host_level(frame_, image.get(), level, &data));
        return data;
    }
    template <class T> T* hostLevel(const Image& image, uint32_t level = 0) const {
        return static_cast<T*>(hostLevel(image, level));
    }
    template <class T = void> T* hostPointer(const Buffer& buffer) const {
        void* data = nullptr;
        check(estuary_frame_host_pointer(frame_, buffer.get(), &data));
        return static_cast<T*>(data);
    }
    void copyToImage(const Image& image, const void* source, uint64_t bytes,
                     uint32_t level = 0) const {
        check(estuary_frame_copy_to_image(frame_, image.get(), level, source, bytes));
    }
    void readImage(const Image& image, uint32_t level, uint32_t x, uint32_t y, uint32_t width,
                   uint32_t height, void* destination, uint32_t flags = 0) const {
        check(estuary_frame_read_image(frame_, image.get(), level, x, y, width, height, flags,
                                       destination));
    }
    void readBuffer(const Buffer& buffer, uint64_t offset, uint64_t bytes, void* destination,
                    uint32_t flags = 0) const {
        check(estuary_frame_read_buffer(frame_, buffer.get(), offset, bytes, flags, destination));
    }
    // What `view` draws at (x, y) of the picture, or nearest within `radius` pixels; `result` is
    // filled once the frame is drawn (estuary_frame_pick).
    void pick(const View& view, float x, float y, float radius, estuary_pick* result) const {
        check(estuary_frame_pick(frame_, view.get(), x, y, radius, result));
    }
#ifdef ESTUARY_HPP_CUDA
    cudaStream_t stream() const {
        return static_cast<cudaStream_t>(estuary_frame_stream(frame_));
    }
    cudaSurfaceObject_t surface(const Image& image, uint32_t level = 0) const {
        return cudaSurfaceObject_t(surfaceHandle(image, level));
    }
    cudaArray_t array(const Image& image, uint32_t level = 0) const {
        void* array = nullptr;
        check(estuary_frame_array(frame_, image.get(), level, &array));
        return static_cast<cudaArray_t>(array);
    }
    cudaMipmappedArray_t mipmappedArray(const Image& image) const {
        void* array = nullptr;
        check(estuary_frame_mipmapped_array(frame_, image.get(), &array));
        return static_cast<cudaMipmappedArray_t>(array);
    }
#else
    void* stream() const {
        return estuary_frame_stream(frame_);
    }
#endif

  private:
    estuary_frame* frame_;
};

class Viewer {
  public:
    Viewer() : Viewer(ViewerDesc{}) {}
    explicit Viewer(const estuary_viewer_desc& desc) {
        check(estuary_create_viewer(&desc, &viewer_));
        link_ = std::make_shared<estuary_viewer*>(viewer_);
    }
    Viewer(Viewer&& other) noexcept
        : viewer_(std::exchange(other.viewer_, nullptr)), link_(std::move(other.link_)),
          ui_(std::move(other.ui_)) {
        if (ui_) rebindUi();
    }
    Viewer& operator=(Viewer&&) = delete;
    Viewer(const Viewer&) = delete;
    Viewer& operator=(const Viewer&) = delete;
    // The viewer and everything made from it (Image and Buffer owners still around become empty).
    ~Viewer() {
        unlink();
        (void)estuary_destroy_viewer(viewer_, nullptr);
    }
    // Destroys now, returning the validation layer's message count.
    uint32_t close() {
        uint32_t messages = 0;
        unlink();
        estuary_viewer* viewer = std::exchange(viewer_, nullptr);
        check(estuary_destroy_viewer(viewer, &messages));
        return messages;
    }
    estuary_viewer* get() const { return viewer_; }

    estuary_viewer_info info() const {
        estuary_viewer_info i{};
        check(estuary_get_viewer_info(viewer_, &i));
        return i;
    }
    bool hasCuda() const { return info().has_cuda != 0; }

    Image image(const estuary_image_desc& desc) const {
        estuary_image* handle = nullptr;
        check(estuary_create_image(viewer_, &desc, &handle));
        return Image(link_, handle);
    }
    Buffer buffer(const estuary_buffer_desc& desc) const {
        estuary_buffer* handle = nullptr;
        check(estuary_create_buffer(viewer_, &desc, &handle));
        return Buffer(link_, handle);
    }
    View fieldView(const estuary_field_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_field_view(viewer_, &desc, &view));
        return View(view);
    }
    View volumeView(const estuary_volume_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_volume_view(viewer_, &desc, &view));
        return View(view);
    }
    View pointsView(const estuary_points_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_points_view(viewer_, &desc, &view));
        return View(view);
    }
    View markersView(const estuary_markers_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_markers_view(viewer_, &desc, &view));
        return View(view);
    }
    View linesView(const estuary_lines_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_lines_view(viewer_, &desc, &view));
        return View(view);
    }
    View glyphView(const estuary_glyph_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_glyph_view(viewer_, &desc, &view));
        return View(view);
    }
    View meshView(const estuary_mesh_view_desc& desc) const {
        estuary_view* view = nullptr;
        check(estuary_add_mesh_view(viewer_, &desc, &view));
        return View(view);
    }
    void destroyView(View view) const { check(estuary_destroy_view(viewer_, view.get())); }

    estuary_camera camera() const {
        estuary_camera c{};
        check(estuary_get_camera(viewer_, &c));
        return c;
    }
    void setCamera(const estuary_camera& c) const { check(estuary_set_camera(viewer_, &c)); }
    void setBackground(float r, float g, float b) const {
        check(estuary_set_background(viewer_, r, g, b));
    }

    // The explicit loop: beginFrame, your work on frame.stream(), frame.end().
    Frame beginFrame(const estuary_frame_desc* desc = nullptr) const {
        estuary_frame* frame = nullptr;
        check(estuary_begin_frame(viewer_, desc, &frame));
        return Frame(frame);
    }
    // `work(frame)` once per frame until the window closes, `frames` frames ran (0: no limit),
    // or work returns false (work may also return nothing). Waits for the last frame.
    template <class Work> void display(Work&& work, uint64_t frames = 0) const {
        struct Call {
            Work* work;
            std::exception_ptr error;
        } call{&work, nullptr};
        const estuary_status status = estuary_display(
            viewer_,
            [](estuary_frame* f, void* user) -> int {
                Call& c = *static_cast<Call*>(user);
                try {
                    Frame frame(f);
                    if constexpr (std::is_same_v<decltype((*c.work)(frame)), bool>)
                        return (*c.work)(frame) ? 0 : 1;
                    else
                        (*c.work)(frame);
                    return 0;
                } catch (...) {
                    c.error = std::current_exception();
                    return 1;
                }
            },
            &call, frames);
        if (call.error) std::rethrow_exception(call.error);
        check(status);
    }
    uint64_t nextFrameIndex() const { return estuary_next_frame_index(viewer_); }
    void waitFrame(uint64_t frame) const { check(estuary_wait_frame(viewer_, frame)); }
    void finish() const { check(estuary_finish(viewer_)); }

    void screenshot(const std::string& path) const {
        check(estuary_screenshot(viewer_, path.c_str()));
    }

    // `ui()` once per frame with the ImGui context current: build your panels with ImGui calls.
    // Include <imgui.h> before this header and the context is made current in your copy of
    // Dear ImGui for you; otherwise call ImGui::SetCurrentContext(context) yourself.
    void setUi(std::function<void(void* imguiContext)> ui) {
        ui_ = std::move(ui);
        rebindUi();
    }
    estuary_input input() const {
        estuary_input in{};
        check(estuary_get_input(viewer_, &in));
        return in;
    }
    void pollEvents() const { check(estuary_poll_events(viewer_)); }
    void inject(const estuary_event& event) const { check(estuary_inject_event(viewer_, &event)); }
    void setWindowSize(uint32_t width, uint32_t height) const {
        check(estuary_set_window_size(viewer_, width, height));
    }
    bool shouldClose() const { return estuary_should_close(viewer_) != 0; }
    void requestClose() const { check(estuary_request_close(viewer_)); }
    void notify(const std::string& text, bool isError = false) const {
        check(estuary_notify(viewer_, text.c_str(), isError ? 1 : 0));
    }

    // The next drawn frame's stats, if any.
    bool nextFrameStats(estuary_frame_stats& stats) const {
        return check(estuary_next_frame_stats(viewer_, &stats), true) == ESTUARY_OK;
    }
    estuary_clock_info clockInfo() const {
        estuary_clock_info c{};
        check(estuary_get_clock_info(viewer_, &c));
        return c;
    }
    estuary_metrics metrics() const {
        estuary_metrics m{};
        check(estuary_get_metrics(viewer_, &m));
        return m;
    }
    uint32_t validationMessages() const { return estuary_validation_messages(viewer_); }

  private:
    void rebindUi() {
        check(estuary_set_ui_callback(
            viewer_,
            ui_ ? +[](void* user, void* context) {
                auto& ui = *static_cast<std::function<void(void*)>*>(user);
#ifdef IMGUI_VERSION
                ImGui::SetCurrentContext(static_cast<ImGuiContext*>(context));
#endif
                ui(context);
            }
                : nullptr,
            ui_ ? &ui_ : nullptr));
    }

    void unlink() {
        if (link_) *link_ = nullptr;
    }

    estuary_viewer* viewer_ = nullptr;
    ViewerLink link_;
    std::function<void(void*)> ui_;
};

} // namespace estuary

#endif // ESTUARY_HPP
