// estuary.hpp: a header-only C++ layer over estuary.h. C++17; nothing here is compiled into the
// library, so it imposes no flags and no ABI.
//
// - Owners: Viewer, Image, Buffer, View, and the Frame that Viewer::beginFrame gives, each own
//   their handle: move-only (moves never throw), destroyed (a frame: ended) when the owner goes.
//   An owner outliving its viewer is left empty: the viewer freed its handle.
// - Errors: every call throws estuary::Error (the status and estuary_last_error's message).
//   Destructors never throw. A destroy the library refuses in a destructor (an image a view still
//   draws) is reported through the viewer's log callback (estuary_viewer_desc.log; standard error
//   without one) and the handle is left to the viewer, which frees it when destroyed; destroy()
//   throws the same refusal instead and keeps the handle. The Viewer's destructor reports a failed
//   destroy and validation messages the same way; close() returns the count and throws.
// - Frames: a Frame from beginFrame ends its frame when it goes, also when the scope is left by an
//   exception (the frame is drawn with what it was given); end() ends it and throws.
// - CUDA's own types where <cuda_runtime_api.h> (or a .cu file) came before this header.
//
//   estuary::Viewer viewer; // a window (headless where there is no display)
//   estuary::Image field = viewer.image({.format = ESTUARY_FORMAT_R32_FLOAT,
//                                        .kind = ESTUARY_IMAGE_2D, .width = 512, .height = 512});
//   estuary::View view = viewer.fieldView({.image = field.get()}); // drawn while `view` lives
//   viewer.display([&](estuary::Frame& frame) {
//       step<<<grid, block, 0, frame.stream()>>>(frame.surface(field), frame.index());
//   });
// (Designated initializers are C++20; in C++17 fill a `{}`-initialized description field by field.)
#ifndef ESTUARY_HPP
#define ESTUARY_HPP

#include "error.hpp"
#include "estuary.h"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__CUDACC__) || defined(CUDART_VERSION)
#include <cuda_runtime_api.h>
#define ESTUARY_HPP_CUDA 1
#endif

namespace estuary {

// The viewer's description with the version filled in; every other field is 0, its default
// (struct_size is set by estuary.h's default member initializer).
struct ViewerDesc : estuary_viewer_desc {
    ViewerDesc() : estuary_viewer_desc{} { api_version = ESTUARY_API_VERSION; }
};
static_assert(sizeof(ViewerDesc) == sizeof(estuary_viewer_desc),
              "ViewerDesc adds no field: it is passed as an estuary_viewer_desc");

namespace detail {

// What every owner made from a viewer shares with it: the viewer's handle (null once the viewer
// is destroyed, which freed everything made from it) and where its messages go.
struct ViewerState {
    estuary_viewer* viewer = nullptr;
    estuary_log_fn log = nullptr;
    void* logUser = nullptr;
};

// "<what>: <why>" where the viewer's messages go, as an error: its log callback, else standard
// error as the library writes there. For destructors: never throws.
inline void report(const ViewerState& state, const char* what, const char* why) noexcept {
    try {
        const std::string message = std::string(what) + ": " + why;
        if (state.log) return state.log(state.logUser, ESTUARY_LOG_ERROR, message.c_str());
        std::fprintf(stderr, "estuary: error: %s\n", message.c_str());
    } catch (...) { // no memory for the message, or a log callback that threw
        std::fprintf(stderr, "estuary: error: %s: %s\n", what, why);
    }
}

inline const char* leftToViewer(estuary_image*) {
    return "estuary::Image could not destroy its image (left to the viewer, which frees it when "
           "destroyed; destroy() throws this)";
}
inline const char* leftToViewer(estuary_buffer*) {
    return "estuary::Buffer could not destroy its buffer (left to the viewer, which frees it when "
           "destroyed; destroy() throws this)";
}
inline const char* leftToViewer(estuary_slabs*) {
    return "estuary::Slabs could not destroy its slabs (left to the viewer, which frees them when "
           "destroyed; destroy() throws this)";
}
inline const char* leftToViewer(estuary_view*) {
    return "estuary::View could not destroy its view (left to the viewer, which frees it when "
           "destroyed; destroy() throws this)";
}

} // namespace detail

// Which viewer an owner's handle belongs to, shared by the Viewer and everything made from it.
using ViewerLink = std::shared_ptr<detail::ViewerState>;

// One handle made from a viewer, destroyed when the owner goes (an image or buffer after the
// frames using it). Move-only; moves never throw.
template <class Handle, estuary_status (*Destroy)(estuary_viewer*, Handle*)> class Owner {
  public:
    Owner() = default;
    Owner(ViewerLink viewer, Handle* handle) noexcept
        : viewer_(std::move(viewer)), handle_(handle) {}
    Owner(Owner&& other) noexcept
        : viewer_(std::move(other.viewer_)), handle_(std::exchange(other.handle_, nullptr)) {}
    Owner& operator=(Owner&& other) noexcept {
        if (this != &other) {
            reset();
            viewer_ = std::move(other.viewer_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;
    ~Owner() { reset(); }

    // The handle; null once destroyed, released, or once its viewer is gone.
    Handle* get() const noexcept { return alive() ? handle_ : nullptr; }
    explicit operator bool() const noexcept { return get() != nullptr; }

    // Destroys it now. A refusal throws estuary::Error, and the owner keeps the handle (an image
    // or buffer a view still draws: ESTUARY_ERROR_INVALID_ARGUMENT, "destroy them first").
    void destroy() {
        if (handle_ && alive()) check(Destroy(viewer_->viewer, handle_));
        handle_ = nullptr;
        viewer_.reset();
    }
    // What the destructor does: destroys it now; a refusal is reported where the viewer's
    // messages go, and the handle is left to the viewer (freed when the viewer is destroyed).
    void reset() noexcept {
        Handle* handle = std::exchange(handle_, nullptr);
        if (handle && alive() && Destroy(viewer_->viewer, handle) != ESTUARY_OK)
            detail::report(*viewer_, detail::leftToViewer(handle), estuary_last_error());
        viewer_.reset();
    }
    // Gives the handle up without destroying it: the viewer keeps it until it is destroyed.
    Handle* release() noexcept {
        Handle* handle = get();
        handle_ = nullptr;
        viewer_.reset();
        return handle;
    }

  private:
    bool alive() const noexcept { return viewer_ && viewer_->viewer; }

    ViewerLink viewer_;
    Handle* handle_ = nullptr;
};

// An image or buffer. Pass get() to the descriptions of views; destroy the views that draw it
// before it (declare them after it).
class Image : public Owner<estuary_image, estuary_destroy_image> {
  public:
    using Owner::Owner;
    estuary_image_info info() const {
        estuary_image_info i{};
        check(estuary_get_image_info(get(), &i));
        return i;
    }
    uint64_t levelBytes(uint32_t level) const {
        uint64_t bytes = 0;
        check(estuary_get_image_level_bytes(get(), level, &bytes));
        return bytes;
    }
};
class Buffer : public Owner<estuary_buffer, estuary_destroy_buffer> {
  public:
    using Owner::Owner;
    estuary_buffer_info info() const {
        estuary_buffer_info i{};
        check(estuary_get_buffer_info(get(), &i));
        return i;
    }
    uint64_t size() const { return info().size; }
};

// One channel of a buffer view, for a desc's attributes[ESTUARY_CHANNEL_*]: `buffer` (nullptr: the
// view's main one) read as `format` from byte `offset`, `stride` bytes apart (0: tightly packed).
//   d.attributes[ESTUARY_CHANNEL_POSITION] = estuary::attribute(xy, ESTUARY_ATTRIBUTE_F32X2);
inline estuary_attribute attribute(estuary_buffer* buffer, estuary_attribute_format format,
                                   uint64_t offset = 0, uint32_t stride = 0) {
    return estuary_attribute{buffer, offset, stride, format};
}
inline estuary_attribute attribute(const Buffer& buffer, estuary_attribute_format format,
                                   uint64_t offset = 0, uint32_t stride = 0) {
    return attribute(buffer.get(), format, offset, stride);
}

// A view, drawn while the owner lives: keep the View the factory returned (a discarded one
// removes its view at once; release() leaves a view to the viewer for its whole life).
class View : public Owner<estuary_view, estuary_destroy_view> {
  public:
    using Owner::Owner;
    estuary_view_params params() const {
        estuary_view_params p{};
        check(estuary_get_view_params(get(), &p));
        return p;
    }
    void setParams(const estuary_view_params& p) const {
        check(estuary_set_view_params(get(), &p));
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
    // Draws it in `panel` of the viewer's layout (Viewer::setLayout).
    void setPanel(uint32_t panel) const {
        update([&](estuary_view_params& p) { p.panel = panel; });
    }
    // A text view's text from the next frame on (estuary_set_text).
    void setText(const std::string& utf8) const { check(estuary_set_text(get(), utf8.c_str())); }
    // Names of a categorical palette's entries, shown in its colorbar; empty: cleared.
    void setLegend(std::initializer_list<const char*> names) const {
        check(estuary_set_view_legend(get(), names.begin(), uint32_t(names.size())));
    }
};

// One frame. From Viewer::beginFrame it is the frame's guard: end() ends it (and throws what
// estuary_end_frame reports); a Frame going out of scope unended ends it itself, an exception
// leaving the scope included (the C API's only way out of a frame: it is drawn with what it
// was given), reporting a failure where the viewer's messages go instead of throwing. Inside
// Viewer::display's callback (or made from a handle) it only refers to a frame ended elsewhere.
class Frame {
  public:
    // A frame someone else ends (estuary_display's loop, your own C code).
    explicit Frame(estuary_frame* frame) noexcept : frame_(frame) {}
    Frame(Frame&& other) noexcept
        : frame_(std::exchange(other.frame_, nullptr)), viewer_(std::move(other.viewer_)),
          open_(std::exchange(other.open_, false)) {}
    Frame& operator=(Frame&& other) noexcept {
        if (this != &other) {
            endUnlessEnded();
            frame_ = std::exchange(other.frame_, nullptr);
            viewer_ = std::move(other.viewer_);
            open_ = std::exchange(other.open_, false);
        }
        return *this;
    }
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;
    ~Frame() { endUnlessEnded(); }

    estuary_frame* get() const { return frame_; }
    uint64_t index() const { return estuary_frame_index(frame_); }
    uint32_t slot() const { return estuary_frame_slot(frame_); }
    bool replayed() const { return estuary_frame_replayed(frame_) != 0; }
    void wait() const { check(estuary_frame_wait(frame_)); }
    // Ends the frame; its handle goes whatever the status (a second end() throws
    // ESTUARY_ERROR_INVALID_HANDLE). Const, as the handle does not change: `const Frame f = ...`.
    void end() const {
        open_ = false;
        check(estuary_end_frame(frame_));
    }

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
    friend class Viewer;
    Frame(ViewerLink viewer, estuary_frame* frame) noexcept
        : frame_(frame), viewer_(std::move(viewer)), open_(true) {}

    // The guard's part: a frame of a viewer still alive, not ended yet, is ended now.
    void endUnlessEnded() noexcept {
        if (!std::exchange(open_, false) || !viewer_ || !viewer_->viewer) return;
        if (estuary_end_frame(frame_) != ESTUARY_OK)
            detail::report(*viewer_, "estuary::Frame ended its frame when it went, and that failed",
                           estuary_last_error());
    }

    estuary_frame* frame_;
    ViewerLink viewer_;         // frames from Viewer::beginFrame only
    mutable bool open_ = false; // begun here and not ended yet
};

// A field split into slabs, each stepped by your kernel on its own device and stream
// (estuary_create_slabs): slab(i) says where, exchange() fills the halos, gather() the image.
//   for (uint32_t i = 0; i < slabs.count(); ++i) { const estuary_slab s = slabs.slab(i); ... }
//   slabs.exchange();
//   slabs.gather(frame, field);
class Slabs : public Owner<estuary_slabs, estuary_destroy_slabs> {
  public:
    using Owner::Owner;
    estuary_slabs_info info() const {
        estuary_slabs_info i{};
        check(estuary_get_slabs_info(get(), &i));
        return i;
    }
    uint32_t count() const { return info().slabs; }
    estuary_slab slab(uint32_t index) const {
        estuary_slab s{};
        check(estuary_get_slab(get(), index, &s));
        return s;
    }
    void exchange() const { check(estuary_slabs_exchange(get())); }
    void gather(const Frame& frame, const Image& image) const {
        check(estuary_frame_gather_slabs(frame.get(), get(), image.get()));
    }
};

class Viewer {
  public:
    Viewer() : Viewer(ViewerDesc{}) {}
    explicit Viewer(const estuary_viewer_desc& desc)
        : link_(std::make_shared<detail::ViewerState>()) {
        check(estuary_create_viewer(&desc, &viewer_));
        *link_ = {viewer_, desc.log, desc.log_user};
    }
    Viewer(Viewer&& other) noexcept
        : viewer_(std::exchange(other.viewer_, nullptr)), link_(std::move(other.link_)),
          ui_(std::move(other.ui_)) {}
    // Destroys the viewer this one held first, as the destructor does.
    Viewer& operator=(Viewer&& other) noexcept {
        if (this != &other) {
            destroyReporting();
            viewer_ = std::exchange(other.viewer_, nullptr);
            link_ = std::move(other.link_);
            ui_ = std::move(other.ui_);
        }
        return *this;
    }
    Viewer(const Viewer&) = delete;
    Viewer& operator=(const Viewer&) = delete;
    // The viewer and everything made from it (owners still around become empty). A failure, and
    // validation messages where close() was not called, are reported where the viewer's messages
    // go (its log callback, else standard error), never thrown.
    ~Viewer() { destroyReporting(); }
    // Destroys now, returning how many messages the validation layer reported over the viewer's
    // life; throws estuary::Error where estuary_destroy_viewer fails (with ESTUARY_VALIDATION=1,
    // when there were messages). The viewer is gone either way.
    [[nodiscard]] uint32_t close() {
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

    [[nodiscard]] Image image(const estuary_image_desc& desc) const {
        estuary_image* handle = nullptr;
        check(estuary_create_image(viewer_, &desc, &handle));
        return Image(link_, handle);
    }
    [[nodiscard]] Buffer buffer(const estuary_buffer_desc& desc) const {
        estuary_buffer* handle = nullptr;
        check(estuary_create_buffer(viewer_, &desc, &handle));
        return Buffer(link_, handle);
    }
    // Views, drawn until the View returned goes.
    [[nodiscard]] View fieldView(const estuary_field_view_desc& desc) const {
        return addView(estuary_add_field_view, desc);
    }
    [[nodiscard]] View volumeView(const estuary_volume_view_desc& desc) const {
        return addView(estuary_add_volume_view, desc);
    }
    [[nodiscard]] View pointsView(const estuary_points_view_desc& desc) const {
        return addView(estuary_add_points_view, desc);
    }
    [[nodiscard]] View markersView(const estuary_markers_view_desc& desc) const {
        return addView(estuary_add_markers_view, desc);
    }
    [[nodiscard]] View linesView(const estuary_lines_view_desc& desc) const {
        return addView(estuary_add_lines_view, desc);
    }
    [[nodiscard]] View glyphView(const estuary_glyph_view_desc& desc) const {
        return addView(estuary_add_glyph_view, desc);
    }
    [[nodiscard]] View meshView(const estuary_mesh_view_desc& desc) const {
        return addView(estuary_add_mesh_view, desc);
    }
    [[nodiscard]] View textView(const estuary_text_view_desc& desc) const {
        return addView(estuary_add_text_view, desc);
    }
    [[nodiscard]] View labelsView(const estuary_labels_view_desc& desc) const {
        return addView(estuary_add_labels_view, desc);
    }
    // The labels view with `strings` as its table (copied by the library).
    [[nodiscard]] View labelsView(estuary_labels_view_desc desc,
                                  const std::vector<std::string>& strings) const {
        std::vector<const char*> table;
        for (const std::string& s : strings)
            table.push_back(s.c_str());
        desc.strings = table.data();
        desc.string_count = uint32_t(table.size());
        return addView(estuary_add_labels_view, desc);
    }
    // view.destroy(), refusing a view of another viewer (ESTUARY_ERROR_INVALID_HANDLE).
    void destroyView(View& view) const {
        check(estuary_destroy_view(viewer_, view.get()));
        (void)view.release();
    }

    estuary_camera camera() const {
        estuary_camera c{};
        check(estuary_get_camera(viewer_, &c));
        return c;
    }
    // A colormap of yours (estuary_create_colormap), usable in view descs and params from the
    // next frame on: from stops, e.g. colormap({{0, {0, 0, 1, 1}}, {1, {1, 1, 0, 1}}},
    // "blue-yellow"), or from samples (the desc).
    estuary_colormap createColormap(const estuary_colormap_desc& desc) const {
        estuary_colormap made = ESTUARY_COLORMAP_VIRIDIS;
        check(estuary_create_colormap(viewer_, &desc, &made));
        return made;
    }
    estuary_colormap colormap(std::initializer_list<estuary_colormap_stop> stops,
                              const char* name = nullptr, uint32_t flags = 0) const {
        estuary_colormap_desc desc{};
        desc.name = name;
        desc.flags = flags;
        desc.stops = stops.begin();
        desc.stop_count = uint32_t(stops.size());
        return createColormap(desc);
    }
    void setCamera(const estuary_camera& c) const { check(estuary_set_camera(viewer_, &c)); }

    // Panels: rows by columns (relative sizes: empty for equal ones), `gap` pixels apart.
    void setLayout(uint32_t rows, uint32_t columns, std::initializer_list<float> rowHeights = {},
                   std::initializer_list<float> columnWidths = {}, float gap = 0.0f) const {
        estuary_layout_desc d{};
        d.struct_size = sizeof(d);
        d.rows = rows;
        d.columns = columns;
        d.row_heights = rowHeights.size() ? rowHeights.begin() : nullptr;
        d.column_widths = columnWidths.size() ? columnWidths.begin() : nullptr;
        d.gap_pixels = gap;
        check(estuary_set_layout(viewer_, &d));
    }
    void setPanel(uint32_t panel, const estuary_panel_desc& desc) const {
        estuary_panel_desc d = desc;
        if (!d.struct_size) d.struct_size = sizeof(d);
        check(estuary_set_panel(viewer_, panel, &d));
    }
    // Panels with the same non-zero link share one camera.
    void linkCamera(uint32_t panel, uint32_t link) const {
        estuary_panel_desc d{};
        d.struct_size = sizeof(d);
        d.camera_link = link;
        check(estuary_set_panel(viewer_, panel, &d));
    }
    estuary_camera panelCamera(uint32_t panel) const {
        estuary_camera c{};
        c.struct_size = sizeof(c);
        check(estuary_get_panel_camera(viewer_, panel, &c));
        return c;
    }
    void setPanelCamera(uint32_t panel, const estuary_camera& c) const {
        check(estuary_set_panel_camera(viewer_, panel, &c));
    }
    // The panel at framebuffer pixel (x, y); ESTUARY_PANEL_NONE in a gap.
    uint32_t panelAt(float x, float y) const {
        uint32_t panel = ESTUARY_PANEL_NONE;
        check(estuary_panel_at(viewer_, x, y, &panel));
        return panel;
    }
    void setBackground(float r, float g, float b) const {
        check(estuary_set_background(viewer_, r, g, b));
    }

    [[nodiscard]] Slabs slabs(const estuary_slabs_desc& desc) const {
        estuary_slabs* handle = nullptr;
        check(estuary_create_slabs(viewer_, &desc, &handle));
        return Slabs(link_, handle);
    }

    // The explicit loop: `const estuary::Frame frame = viewer.beginFrame();`, your work on
    // frame.stream(), frame.end(). The Frame ends the frame if the scope is left before.
    [[nodiscard]] Frame beginFrame(const estuary_frame_desc* desc = nullptr) const {
        estuary_frame* frame = nullptr;
        check(estuary_begin_frame(viewer_, desc, &frame));
        return Frame(link_, frame);
    }
    // `work(frame)` once per frame until the window closes, `frames` frames ran (0: no limit),
    // or work returns false (work may also return nothing). Waits for the last frame. What work
    // throws ends the loop after its frame and is thrown again here.
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
    // Dear ImGui for you; otherwise call ImGui::SetCurrentContext(context) yourself. An empty
    // function removes it.
    void setUi(std::function<void(void* imguiContext)> ui) {
        if (!ui) {
            check(estuary_set_ui_callback(viewer_, nullptr, nullptr));
            ui_.reset();
            return;
        }
        // On the heap, so the address the library holds stays put when the Viewer moves.
        auto held = std::make_unique<std::function<void(void*)>>(std::move(ui));
        check(estuary_set_ui_callback(viewer_, &callUi, held.get()));
        ui_ = std::move(held);
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
    template <class Desc>
    View addView(estuary_status (*add)(estuary_viewer*, const Desc*, estuary_view**),
                 const Desc& desc) const {
        estuary_view* view = nullptr;
        check(add(viewer_, &desc, &view));
        return View(link_, view);
    }

    static void callUi(void* user, void* context) {
        auto& ui = *static_cast<std::function<void(void*)>*>(user);
#ifdef IMGUI_VERSION
        ImGui::SetCurrentContext(static_cast<ImGuiContext*>(context));
#endif
        ui(context);
    }

    void unlink() noexcept {
        if (link_) link_->viewer = nullptr;
    }

    // The destructor's part: destroys the viewer, reporting what close() would return or throw.
    void destroyReporting() noexcept {
        if (!viewer_) return;
        unlink();
        uint32_t messages = 0;
        const estuary_status status =
            estuary_destroy_viewer(std::exchange(viewer_, nullptr), &messages);
        if (status != ESTUARY_OK) {
            detail::report(*link_, "estuary::Viewer's destructor", estuary_last_error());
        } else if (messages > 0) {
            char count[96];
            std::snprintf(count, sizeof count,
                          "the validation layer reported %u message(s) over its life (logged "
                          "above)",
                          unsigned(messages));
            detail::report(*link_, "estuary::Viewer destroyed without close()", count);
        }
    }

    estuary_viewer* viewer_ = nullptr;
    ViewerLink link_;
    std::unique_ptr<std::function<void(void*)>> ui_;
};

} // namespace estuary

#endif // ESTUARY_HPP
