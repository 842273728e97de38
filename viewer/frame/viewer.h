// The library behind estuary.h: what a viewer, its images, buffers, views and frames are inside.
// The opaque C handles are these structs. Each part of the viewer has a file of its own and a
// block of functions here: allocations.cpp (images and buffers, their acquire, upload, mips and
// release), views.cpp (views, their renderers and the draw), frame.cpp (the frame: begin, end,
// waits), cuda_side.h (everything that calls CUDA), timing.cpp (stats, clocks, metrics),
// window.cpp and input.cpp (the window, its swapchain and input), overlay.cpp and panels.cpp
// (Dear ImGui), pictures.cpp (screenshots), gl_side.cpp (the OpenGL consumer), c_api.cpp (the C
// functions: argument checks and errors).
//
// Rings: every CUDA- or host-written allocation has `copies` images (or buffers): one per slot, or
// one for all frames (ESTUARY_ALLOC_SINGLE). Frame f uses slot f % slots and host-ring entry
// f % hostRing (command buffer, timestamps, staging memory, readbacks); hostRing is a multiple of
// slots, so an entry always meets the same slot.
#pragma once

#include "estuary/estuary.h"
#include "estuary/interop/exported.h"
#include "estuary/interop/vulkan_device.h"

#include "clock_sync.h"
#include "context.h"
#include "errors.h"
#include "kit.h"
#include "layout.h"
#include "offscreen.h"
#include "points.h"
#include "mesh.h"
#include "recorder.h"
#include "serve.h"
#include "renderer.h"
#include "resources.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct GLFWwindow;

namespace estuary::lib {

// The deepest ring estuary_viewer_desc.frames_in_flight may ask for.
inline constexpr uint32_t kMaxFramesInFlight = 32;
struct CudaImageRing;   // cuda_side.cpp: an interop::ImageRing
struct CudaBufferRing;  // cuda_side.cpp: an interop::BufferRing
struct CudaSide;        // cuda_side.cpp: stream, events, timelines, graphs of a viewer
struct WindowSide;      // window.cpp: GLFW window, swapchain, per-entry semaphores
struct OverlaySide;     // overlay.cpp: the Dear ImGui context and its Vulkan backend
struct GlSide;          // gl_side.cpp: the OpenGL consumer
struct AnnotationLayer; // annotations/annotation_layer.cpp: the text renderer and laid-out panels
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
// Frees each of the above, in the file that knows it, so the structs below hold them by pointer
// without seeing their definitions.
struct Deleter {
    void operator()(CudaImageRing* p) const;
    void operator()(CudaBufferRing* p) const;
    void operator()(CudaSide* p) const;
    void operator()(WindowSide* p) const;
    void operator()(OverlaySide* p) const;
    void operator()(GlSide* p) const;
    void operator()(AnnotationLayer* p) const;
};
template <class T> using Owned = std::unique_ptr<T, Deleter>;
} // namespace estuary::lib

struct estuary_slabs; // slabs.h

struct estuary_image {
    estuary_viewer* viewer = nullptr;
    uint64_t handle = 0; // what the C API hands out (handles.h)
    std::string name;
    estuary_format format = ESTUARY_FORMAT_R32_FLOAT;
    estuary_image_kind kind = ESTUARY_IMAGE_2D;
    estuary_writer writer = ESTUARY_WRITER_HOST;
    VkFormat vkFormat = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    estuary::ImageShape shape;
    // Where cell (i, j, k)'s centre is in the user's units: origin + (i, j, k) * spacing.
    std::array<float, 3> origin{0.0f, 0.0f, 0.0f}, spacing{1.0f, 1.0f, 1.0f};
    uint32_t levels = 1;
    uint32_t copies = 1;
    uint32_t texelBytes = 4;
    bool generateMips = false;
    // Per level: bytes (all layers or slices) and where it starts in a staging buffer.
    std::vector<VkBufferImageCopy> regions;
    VkDeviceSize stagingBytes = 0;
    // CUDA writer: the exported ring and its CUDA imports.
    estuary::lib::Owned<estuary::lib::CudaImageRing> cuda;
    // Host writer: the images (exportable for the OpenGL consumer) and one staging buffer per
    // host-ring entry, with the levels written in the entry's current frame.
    std::vector<estuary::GpuImage> images;
    std::vector<estuary::interop::ExportedImage> exported; // instead of `images`, for OpenGL
    std::vector<estuary::GpuBuffer> staging;
    uint64_t writtenFrame = UINT64_MAX; // the frame that last asked for host memory of it
    uint32_t viewUsers = 0;
    ~estuary_image();
};

struct estuary_buffer {
    estuary_viewer* viewer = nullptr;
    uint64_t handle = 0;
    std::string name;
    estuary_writer writer = ESTUARY_WRITER_HOST;
    uint64_t size = 0;
    uint32_t copies = 1;
    estuary::lib::Owned<estuary::lib::CudaBufferRing> cuda;
    // Host writer: `copies` device-local buffers, then one host-visible staging buffer per
    // host-ring entry, uploaded by the draw of a frame that wrote it.
    std::vector<estuary::GpuBuffer> host;
    uint64_t writtenFrame = UINT64_MAX;
    uint32_t viewUsers = 0;
    ~estuary_buffer();
};

// What a view reads, by role. A view's only hold on images and buffers: the frame's acquire from
// CUDA and release (drawSet), the count of views drawing an allocation (which refuses its
// destruction) and the renderers' bindings all go through this one list, so no view can draw an
// allocation the frame does not hand over.
namespace estuary::lib {
// Elements: the main buffer; Position, Value, Size, Direction (and Indices, Normals): a channel's
// own buffer (estuary_attribute).
enum class InputRole { Image, Elements, Indices, Normals, Position, Value, Size, Direction };
struct ViewInput {
    InputRole role = InputRole::Image;
    estuary_image* image = nullptr;
    estuary_buffer* buffer = nullptr;
};
class ViewType; // views/view_type.h: what a kind of view is and does
// What a kind of view keeps of each view of it (its renderer, its own settings): defined by the
// kind, in its folder.
struct ViewState {
    virtual ~ViewState() = default;
};
} // namespace estuary::lib

// A view: what every kind has (its inputs, the parameters the user changes between frames, where
// buffer views place their elements), its kind and the kind's own state.
struct estuary_view {
    estuary_viewer* viewer = nullptr;
    uint64_t handle = 0;
    const estuary::lib::ViewType* type = nullptr;
    std::string label;
    uint32_t flags = 0;
    std::vector<estuary::lib::ViewInput> inputs;
    estuary_view_params params{};
    // Buffer views: under the orbit camera (else 2D), the box or rectangle they place their
    // elements in, and the most elements params.point_count may ask for.
    bool threeD = false;
    std::array<float, 6> bounds{};
    uint32_t maxPoints = 0;
    // estuary_set_view_legend: a categorical palette's entry names, for its colorbar.
    std::vector<std::string> legend;
    std::unique_ptr<estuary::lib::ViewState> state;
    uint32_t glIndex = UINT32_MAX; // the OpenGL consumer's renderer of this view
    // The inputs by role (null where the view has none; `use` with null adds nothing).
    void use(estuary::lib::InputRole role, estuary_image* image);
    void use(estuary::lib::InputRole role, estuary_buffer* buffer);
    estuary_image* image() const;
    estuary_buffer* buffer(estuary::lib::InputRole role = estuary::lib::InputRole::Elements) const;
    // The kind's state, as the kind that made it knows it.
    template <class State> State& as() const { return static_cast<State&>(*state); }
    ~estuary_view();
};

// A readback recorded into a frame's draw (estuary_frame_read_*, the probe under the cursor).
struct ReadRequest {
    estuary_image* image = nullptr;
    estuary_buffer* buffer = nullptr;
    uint32_t level = 0;
    VkOffset3D offset{};
    VkExtent3D extent{};
    uint64_t bufferOffset = 0;
    uint64_t bytes = 0; // what the read delivers (images: its texels), fixed when it is made
    bool afterDraw = false;
    void* destination = nullptr; // nullptr: the probe (a pick: the View panel's)
    VkDeviceSize stagingOffset = 0;
    // A pick (estuary_frame_pick, the View panel's under the cursor): the view and where; it
    // delivers an estuary_pick, from the PickState its passes copy (zeros where none ran: none
    // found). The view's destruction leaves nullptr.
    bool pick = false;
    const estuary_view* pickView = nullptr;
    estuary::PickQuery pickQuery;            // in the picture's pixels
    uint32_t pickPanel = ESTUARY_PANEL_NONE; // the panel under the point
};

struct estuary_frame {
    estuary_viewer* viewer = nullptr;
    uint64_t handle = 0; // a new one per begin_frame, dropped by end_frame
    uint64_t index = 0;
    uint32_t slot = 0, entry = 0;
    void* stream = nullptr;
    uint32_t flags = 0;
    uint64_t replayKey = 0;
    bool active = false, waited = false, replayed = false, capturing = false;
    std::vector<estuary_image*> singlesWaited; // singles whose wait was enqueued this frame
    bool allDrawnWaited = false;
};

namespace estuary::lib {

// A frame's draw, recorded and held for the submission of its batch (handoff_batch).
struct HeldDraw {
    uint64_t frame = 0;
    VkCommandBuffer commands = VK_NULL_HANDLE;
    bool cudaWait = false;
    VkPipelineStageFlags2 waitStage = 0;
};

// What one entry of the host ring holds between its frames.
struct EntryState {
    VkCommandBuffer commands = VK_NULL_HANDLE;
    uint64_t frame = UINT64_MAX; // the frame that last used it
    std::vector<ReadRequest> reads;
    GpuBuffer readback; // host-visible; grows to the largest set of reads
    // What the command buffer holds, for submitting it again unchanged (headless runs without
    // readbacks or UI): 0 = nothing reusable.
    uint64_t recordedKey = 0;
    VkImage recordedTarget = VK_NULL_HANDLE;
    bool swapchainAcquired = false;
    bool annotationsTimed = false; // its command buffer writes the annotation layer's timestamps
};

// Per host-ring entry: the draw's start and end, the annotation layer's start and end.
inline constexpr uint32_t kTimestampsPerEntry = 4;

// Host marks and GPU readings of a frame, as the frame loop takes them (frame_stats built from
// it once the frame is drawn).
struct FrameRecord {
    uint64_t frame = 0;
    int64_t beginNs = 0, waitStartNs = 0, waitEndNs = 0, endNs = 0, recordEndNs = 0;
    int64_t submitStartNs = 0, submitEndNs = 0;
    double intervalMs = kNotMeasured;
    double hostBusyUs = kNotMeasured;
    // CUDA: µs on the CUDA clock (start, wait start, wait end, end), and whether from a graph.
    std::array<double, 4> cudaUs{kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured};
    bool fromGraph = false;
    uint64_t drawTicks[2] = {0, 0};
    double drawMs = kNotMeasured, gpuIntervalMs = kNotMeasured, waitMs = kNotMeasured;
    double annotationsMs = kNotMeasured;
    bool complete = false;
};

struct ClockAlignment {
    std::string method;
    std::vector<ClockBracket> points;
    ClockFit fit;
    bool aligned() const { return fit.points > 0; }
};

struct Timing {
    std::deque<FrameRecord> pending;       // begun, not yet drawn (at most hostRing + 1)
    std::deque<estuary_frame_stats> ready; // drawn, not yet read by the user (bounded)
    uint64_t dropped = 0;
    std::vector<FrameRecord> recent; // the last kRecent drawn frames, a ring
    uint64_t recentCount = 0;
    uint64_t lastDrawEndTicks = 0;
    std::chrono::steady_clock::time_point lastBegin;
    uint64_t slowestFrameNs = 0;
    // Clocks: Vulkan ticks count from the first sample's, so device µs stay exact in a double.
    uint64_t vulkanOriginTicks = 0;
    double vulkanUsPerTick = 0;
    ClockAlignment vulkan, vulkanSubmission, cuda;
    std::string summary;
    // The hand-off timelines as last read at a begin_frame, and the readings (checkHandoffOrder).
    uint64_t lastWritten = 0, lastReleased = 0, handoffChecks = 0, handoffRegressions = 0;
    static constexpr size_t kRecent = 512;
    static constexpr size_t kReadyMax = 4096;
};

// The built-in panels' state and the window's notices.
// How far (pixels) from the cursor the View panel picks the buffer views' elements.
inline constexpr float kPanelPickRadius = 6.0f;

struct PanelState {
    bool visible = true;
    std::string notice;
    bool noticeIsError = false;
    float noticeSeconds = 0;
    std::vector<double> scratch;
    float plotScaleMs = 0;
    float layoutFor[2] = {0, 0};
    // The probe: the texel under the cursor, read by the frame that asked.
    bool probeActive = false;
    uint32_t probePanel = 0; // the panel under the cursor, whose field is probed
    int probeX = 0, probeY = 0;
    std::array<float, 4> probeValue{};
    uint32_t probeChannels = 0;
    bool probeValid = false;
    std::array<uint8_t, 16> probeBytes{};
    // The buffer views' picks under the cursor (framebuffer pixels), one per visible buffer view,
    // each the last a frame delivered.
    bool pickActive = false;
    float pickX = 0, pickY = 0;
    struct ViewPick {
        const estuary_view* view = nullptr;
        estuary_pick pick{};
        bool valid = false;
    };
    std::vector<ViewPick> picks;
    bool screenshotRequested = false; // F12, served by the next estuary_begin_frame
};

// Keys kept between two polls (estuary_input.keys); more in one poll are dropped.
inline constexpr size_t kMaxKeysPerPoll = 256;

struct InputState {
    float cursorX = -1, cursorY = -1; // window coordinates
    uint32_t buttons = 0, pressed = 0, pressedSinceUi = 0, mods = 0;
    bool pressOnUi = false; // the buttons held went down over the UI: it keeps them
    float scroll = 0;
    float uiScroll = 0; // the wheel over a served headless viewer's UI, for its next frame
    std::vector<int32_t> keys;
    enum class Drag { None, Pan, Orbit, User } drag = Drag::None;
    uint32_t dragPanel = 0; // the panel whose camera the drag moves
    float lastPixelX = 0, lastPixelY = 0;
};

} // namespace estuary::lib

struct estuary_viewer {
    uint32_t apiVersion = 0;
    uint64_t handle = 0;
    // What was asked, resolved.
    bool headless = true;
    uint32_t width = 1024, height = 768;
    std::string title = "estuary";
    uint32_t slots = 2, hostRing = 4;
    uint32_t handoffBatch = 1; // estuary_viewer_desc.handoff_batch, 1..slots
    estuary_present_mode presentMode = ESTUARY_PRESENT_FIFO;
    estuary_draw_path drawPath = ESTUARY_DRAW_RASTER;
    estuary_consumer consumer = ESTUARY_CONSUMER_VULKAN;
    estuary_gl_handoff glHandoff = ESTUARY_GL_HANDOFF_AUTO;
    uint32_t flags = 0;
    bool validationFromEnvironment = false; // ESTUARY_VALIDATION=1
    std::filesystem::path dataDir;
    std::filesystem::path screenshotDir; // F12's; empty: the working folder
    uint64_t framesPresented = 0;        // window frames that reached the screen
    estuary_log_fn log = nullptr;
    void* logUser = nullptr;

    // Vulkan.
    estuary::Instance instance;
    estuary::PhysicalDeviceInfo physical;
    estuary::Device device;
    estuary::interop::Context interop;
    VkCommandPool pool = VK_NULL_HANDLE;
    // What every view's renderer shares: colormap atlas, samplers, descriptor pools, pipeline
    // cache (renderer/kit.h). Made with the device, destroyed after everything drawn with it.
    estuary::Kit kit;
    VkSemaphore frameTimeline = VK_NULL_HANDLE; // signalled f + 1 by frame f's submission
    bool semaphoreFd =
        false; // the device exports semaphores as fds (CUDA's and OpenGL's hand-offs)
    VkQueryPool timestamps = VK_NULL_HANDLE; // kTimestampsPerEntry per host-ring entry
    std::vector<estuary::lib::EntryState> entries;
    VkFormat targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
    estuary::OffscreenTarget offscreen; // headless
    std::string deviceUuid, deviceType, cudaChoice, vulkanVersion, driverVersion, dataDirText;

    // CUDA (null without).
    estuary::lib::Owned<estuary::lib::CudaSide> cuda;
    int cudaDevice = -1;
    std::optional<uint64_t> protocolStart; // the first frame of the CUDA hand-off

    // What the user made, in creation order.
    std::vector<std::unique_ptr<estuary_image>> images;
    std::vector<std::unique_ptr<estuary_buffer>> buffers;
    std::vector<std::unique_ptr<estuary_view>> views;
    std::vector<std::unique_ptr<estuary_slabs>> slabs; // slabs.h: defined where it is complete
    uint64_t drawVersion = 1; // bumped by every change a recorded command buffer depends on

    estuary::lib::Layout layout; // the panels and their cameras (layout.h)
    std::array<float, 3> background{ESTUARY_BACKGROUND_COLOR};

    // Frames.
    uint64_t nextFrame = 0;
    uint64_t picturesCollected = 0; // frames before it gave the server and recorder their pictures
    estuary_frame frame;
    estuary::lib::Timing timing;
    std::vector<estuary::lib::HeldDraw> heldDraws; // ended, submitted with their batch's last
    bool closeRequested = false;
    bool gpuStuck = false;
    // Set when a wait for the GPU timed out: the viewer untangled what it could, and refuses
    // further frames (destroy it).
    std::string gpuFailure;
    estuary_status gpuFailureStatus = ESTUARY_ERROR_RUNTIME; // TIMEOUT or DEVICE_LOST

    // Window, UI, OpenGL.
    estuary::lib::Owned<estuary::lib::WindowSide> window;
    estuary::lib::Owned<estuary::lib::OverlaySide> overlay;
    estuary::lib::Owned<estuary::lib::GlSide> gl;
    estuary::lib::Owned<estuary::lib::AnnotationLayer> annotations;
    estuary::lib::PanelState panels;
    estuary::lib::InputState input;
    std::vector<estuary_event> injected; // delivered at the next poll
    estuary_ui_fn uiCallback = nullptr;
    void* uiUser = nullptr;
    uint32_t screenshotCount = 0;
    std::unique_ptr<estuary::lib::Recorder> recorder; // while estuary_record_start runs
    std::string lastEncoder;        // estuary_record_info.encoder of the last recording stopped
    estuary::lib::ServerPtr server; // while estuary_serve_start runs

    // Faults armed by estuary_inject_fault.
    std::optional<uint64_t> faultDeviceLost, faultVulkanStall, faultCudaStall;
    bool faultAllocFail = false;
    VkSemaphore stallSemaphore = VK_NULL_HANDLE;

    ~estuary_viewer();
};

namespace estuary::lib {

// ---- viewer.cpp ----
estuary_viewer* createViewer(const estuary_viewer_desc& desc);
// Returns the validation layer's message count over the viewer's life.
uint32_t destroyViewer(estuary_viewer* v);
bool gpuWorkAbandoned();
void logMessage(const estuary_viewer& v, estuary_log_level level, const std::string& message);
// The picture frames draw: the offscreen target's size and format, or the window's swapchain's
// (window.cpp); readable where a copy can be taken of it (a window's, once it has a swapchain).
VkExtent2D pictureExtent(const estuary_viewer& v);
VkFormat pictureFormat(const estuary_viewer& v);
bool pictureReadable(const estuary_viewer& v);
// Waits for every frame submitted so far (bounded); a hang names what each side has done.
void waitIdle(estuary_viewer& v, const char* why);
// Between frames: a headless viewer's picture at a new size (a served page's; waits for the
// frames in flight).
void resizeOffscreen(estuary_viewer& v, VkExtent2D extent);
// The end of the viewer's GPU work, whatever happened: true when nothing remains in flight.
bool settleGpuWork(estuary_viewer& v);
// How long a host wait for a frame may last: ESTUARY_WAIT_TIMEOUT_S, else 20 s or 50 times the
// slowest frame so far, whichever is longer.
uint64_t frameWaitTimeoutNs(const estuary_viewer& v);
// What a hang report says of both APIs.
std::string waitState(const estuary_viewer& v);

// ---- allocations.cpp ----
estuary_image* createImage(estuary_viewer& v, const estuary_image_desc& desc);
// The desc's origin and spacing as the image keeps them (spacing 0: 1), or a usage error naming
// the image (`name`), the axis and the value for a non-finite origin or a negative or non-finite
// spacing.
std::pair<std::array<float, 3>, std::array<float, 3>> imagePlacement(const estuary_image_desc& desc,
                                                                     const std::string& name);
estuary_buffer* createBuffer(estuary_viewer& v, const estuary_buffer_desc& desc);
void destroyImage(estuary_viewer& v, estuary_image* image);
void destroyBuffer(estuary_viewer& v, estuary_buffer* buffer);
const GpuImage& vulkanImage(const estuary_image& image, uint32_t copy);
VkBuffer vulkanBuffer(const estuary_buffer& buffer, uint32_t copy);
uint32_t copyOf(const estuary_image& image, uint64_t frame);
uint32_t copyOf(const estuary_buffer& buffer, uint64_t frame);
// The frame's draw: CUDA images and buffers it reads taken from CUDA (after the submission's wait
// at `waitStage`), host images uploaded, mips generated, all left readable by shaders; after the
// draw, handed back.
struct DrawSet {
    std::vector<estuary_image*> images;
    std::vector<estuary_buffer*> buffers;
};
DrawSet drawSet(const estuary_viewer& v, const estuary_frame& frame);
bool usesCuda(const DrawSet& set);
VkPipelineStageFlags2 cudaWaitStage(const DrawSet& set);
void recordBeforeDraw(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, const DrawSet& set,
                      VkPipelineStageFlags2 waitStage);
void recordAfterDraw(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, const DrawSet& set);
// Bytes of `level` (all layers or slices), tightly packed.
VkDeviceSize levelBytes(const estuary_image& image, uint32_t level);
// The texel (x, y) of level 0 of a host-written image's staging memory for `entry`.
const void* hostTexel(const estuary_image& image, uint32_t entry, uint32_t x, uint32_t y);

// ---- colormaps.cpp ----
// The kit for the device (after the command ring), and its end (after every view).
void openKit(estuary_viewer& v, bool keepPipelineCache);
void closeKit(estuary_viewer& v);
// estuary_create_colormap: a new row of the atlas, uploaded by the next frame's draw.
estuary_colormap createColormap(estuary_viewer& v, const estuary_colormap_desc& desc);
// The colormap's name (built-in or the user's); "" where `colormap` names none.
std::string colormapName(const estuary_viewer& v, uint32_t colormap);

// ---- views/ (views.cpp and a folder per kind, listed in views/registry.cpp) ----
void destroyView(estuary_viewer& v, estuary_view* view);
// What the view draws, for messages and the panels: its kind's name ("field", "markers", ...).
const char* viewKind(const estuary_view& view);
void setViewParams(estuary_viewer& v, estuary_view& view, const estuary_view_params& params);
// The field or volume a panel draws (its last visible one), or null.
const estuary_view* backgroundView(const estuary_viewer& v, uint32_t panel);
// Its extent in cells as the 2D camera maps it (a slice's for slices); {0, 0} without one.
VkExtent2D backgroundExtent(const estuary_viewer& v, uint32_t panel);
bool backgroundIs3d(const estuary_viewer& v, uint32_t panel);
bool backgroundIsVolume(const estuary_viewer& v, uint32_t panel);
// The renderer's ViewParams of `view` under its panel's camera.
ViewParams viewParams(const estuary_viewer& v, const estuary_view& view);
// Records the views into `target` (COLOR_ATTACHMENT_OPTIMAL before and after): with one panel
// straight into it, with several through the panels' images (layout.h); then the annotation
// layer, `timed` in the frame's own command buffer (annotation_layer.h).
void recordViews(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, VkImage targetImage,
                 VkImageView targetView, VkExtent2D extent, bool timed = false);
// What the views keep of the picture's size (the compute draw's, a mesh's depth image) follows
// it; only while no frame is in flight.
void resizeViews(estuary_viewer& v, VkExtent2D extent);
// Picking a buffer view: its pick pipeline made (once), and the pick recorded after the draw, as
// the frame's draw of it (in a picture of `extent`), its PickState copied into `destination`.
bool isBufferView(const estuary_view& view);
void preparePick(estuary_viewer& v, estuary_view& view);
void recordPick(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, VkExtent2D extent, const estuary::PickQuery& query,
                VkBuffer destination, VkDeviceSize offset);

// ---- frame.cpp ----
estuary_frame* beginFrame(estuary_viewer& v, const estuary_frame_desc* desc);
void endFrame(estuary_frame& frame);
void waitFrame(estuary_viewer& v, uint64_t frame, const char* why);
// Hand-off batches (held_draws.cpp). holdDraw: whether the frame's recorded draw is held for its
// batch (submitted with the batch's last frame); when not, what was held is submitted and the
// caller submits this one. submitHeldDraws: what is held, submitted now in one vkQueueSubmit2.
bool holdDraw(estuary_viewer& v, uint64_t frame, VkCommandBuffer commands, bool cudaWait,
              VkPipelineStageFlags2 waitStage);
void submitHeldDraws(estuary_viewer& v);
// The frame timeline's signal that frame `frame` is drawn (value frame + 1), for its submission.
VkSemaphoreSubmitInfo drawnSignal(const estuary_viewer& v, uint64_t frame);
// After a failed submission: one that lost the device fails the viewer, no later frame can run.
void noteDeviceLost(estuary_viewer& v, const Error& e);
void finish(estuary_viewer& v);
void readImage(estuary_frame& frame, estuary_image* image, uint32_t level, uint32_t x, uint32_t y,
               uint32_t width, uint32_t height, uint32_t flags, void* destination);
void readBuffer(estuary_frame& frame, estuary_buffer* buffer, uint64_t offset, uint64_t bytes,
                uint32_t flags, void* destination);
void pickView(estuary_frame& frame, estuary_view* view, float x, float y, float radius,
              estuary_pick* result);
// Records the frame's reads (before or after the draw; picks after it, in a picture of `extent`)
// into the entry's readback buffer.
void recordReads(estuary_viewer& v, VkCommandBuffer cmd, EntryState& entry, uint64_t frame,
                 bool afterDraw, VkExtent2D extent);
// The estuary_pick a pick's PickState (48 bytes of the readback) makes.
estuary_pick pickResult(const uint8_t* state);

// ---- timing.cpp ----
void beginRecord(estuary_viewer& v, uint64_t frame);
FrameRecord* findRecord(estuary_viewer& v, uint64_t frame);
// Frame `frame` is drawn: its GPU times, its stats queued, its reads delivered.
void completeFrame(estuary_viewer& v, uint64_t frame);
// Frame `frame` is drawn: its reads and picks copied to their destinations, once (Vulkan only:
// OpenGL's are delivered by completeFrame).
void deliverReads(estuary_viewer& v, uint64_t frame);
void calibrateClocks(estuary_viewer& v);
void fitClocks(estuary_viewer& v);
estuary_frame_stats statsOf(const estuary_viewer& v, const FrameRecord& record);
void alignStats(const estuary_viewer& v, estuary_frame_stats& stats);
estuary_metrics metrics(estuary_viewer& v);
estuary_clock_info clockInfo(estuary_viewer& v);
// Nearest-rank percentile of the finite values; NaN for none.
double percentile(std::vector<double>& values, double p);
// Memory of the device's heaps (VK_EXT_memory_budget where offered) and the host.
struct MemoryBudget {
    std::optional<uint64_t> deviceLocalFree, hostVisibleFree;
    uint64_t deviceLocalBudget = 0, deviceLocalUsage = 0, hostVisibleBudget = 0,
             hostVisibleUsage = 0;
    std::string source;
    bool sameHeap = false;
};
MemoryBudget queryMemoryBudget(const Device& device);
// Throws unsupported() naming `what` when `deviceBytes`/`hostBytes` do not fit what is free.
void checkFits(const estuary_viewer& v, uint64_t deviceBytes, uint64_t hostBytes,
               const std::string& what);

// ---- window.cpp / input.cpp ----
// Before the device: the GLFW window (a Vulkan surface, or an OpenGL context for that consumer).
void openWindowSystem(estuary_viewer& v); // GLFW up, before the instance
void openWindow(estuary_viewer& v);
VkSurfaceKHR windowSurface(const estuary_viewer& v);
GLFWwindow* glfwWindowOf(const estuary_viewer& v);
// After the device: the swapchain, its semaphores and the UI overlay for its format.
void createSwapchainFor(estuary_viewer& v);
std::array<float, 2> windowToPixels(const estuary_viewer& v, float x, float y);
bool windowClosed(const estuary_viewer& v);
// The swapchain's images can be copied into (several panels need it); true headless.
bool windowTakesCopies(const estuary_viewer& v);
void setWindowSize(estuary_viewer& v, uint32_t width, uint32_t height);
// An iconify event from estuary_inject_event, as GLFW's callback reports one.
void setIconified(estuary_viewer& v, bool iconified);
uint32_t swapchainRecreations(const estuary_viewer& v);
void swapGlBuffers(estuary_viewer& v);
void closeWindow(estuary_viewer& v);
// Polls events; false while there is nothing to draw into (minimized), after a short sleep.
bool prepareWindow(estuary_viewer& v);
// The swapchain image for `entry`'s frame: acquired (its semaphore waited by the submission).
struct WindowTarget {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkExtent2D extent{};
    VkSemaphore acquired = VK_NULL_HANDLE, renderFinished = VK_NULL_HANDLE;
    uint32_t imageIndex = 0;
    bool valid = false;
};
WindowTarget acquireWindowImage(estuary_viewer& v, uint32_t entry);
void presentWindowImage(estuary_viewer& v, const WindowTarget& target);
VkExtent2D windowExtent(const estuary_viewer& v);
void pollEvents(estuary_viewer& v);
void handleEvent(estuary_viewer& v, const estuary_event& event);
estuary_input currentInput(estuary_viewer& v);
// Keys, presses and the wheel count from the last poll on.
void startInputPoll(estuary_viewer& v);
// Delivers the events estuary_inject_event queued since the last poll, in order.
void deliverInjected(estuary_viewer& v);
// The texel under the cursor the next frame reads for the View panel.
void updateProbe(estuary_viewer& v);

// ---- overlay.cpp / panels.cpp ----
// The ImGui overlay for a target of `format`; in a window, with GLFW's platform backend.
void openOverlay(estuary_viewer& v, VkFormat format);
void closeOverlay(estuary_viewer& v);
bool overlayReady(const estuary_viewer& v);
// The overlay's framebuffers name target views: forget them before those views go.
void overlayForgetTargets(estuary_viewer& v);
bool overlayWanted(const estuary_viewer& v);
// Builds this frame's UI (panels, colorbars, the user's callback) for a target of `extent`.
void buildUi(estuary_viewer& v, VkExtent2D extent);
// Records the last built UI over `view` (COLOR_ATTACHMENT_OPTIMAL before and after).
void recordOverlay(estuary_viewer& v, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent);
bool uiWantsMouse(const estuary_viewer& v);
bool uiWantsKeyboard(const estuary_viewer& v);
// A served headless viewer draws the window's panels and UI; the page's keys and characters reach
// them here (a window's go through the GLFW backend).
bool servedUi(const estuary_viewer& v);
void servedUiKey(estuary_viewer& v, int code, bool down);
void servedUiChar(estuary_viewer& v, uint32_t code);
void showNotice(estuary_viewer& v, const std::string& text, bool isError);
void drawPanels(estuary_viewer& v);
bool wantsColorbar(const estuary_view& view);
// A texel of `image`'s format as floats (halves and bytes converted).
std::vector<float> probeValues(const estuary_image& image, const uint8_t* texel);

// ---- pictures.cpp ----
std::vector<uint8_t> readPixels(estuary_viewer& v, VkExtent2D& extent);
void writeScreenshot(estuary_viewer& v, const std::filesystem::path& path);
void writeNumberedScreenshot(estuary_viewer& v);

// ---- gl_side.cpp ----
// After the device (and before CUDA: the binary hand-off's semaphores depend on it): the context,
// checked against the Vulkan device, and the hand-off resolved (estuary_viewer::glHandoff).
void openGl(estuary_viewer& v, bool gpuProducer);
void closeGl(estuary_viewer& v);
void glAddView(estuary_viewer& v, estuary_view& view);
void glRemoveView(estuary_viewer& v, estuary_view& view);
void glImportImage(estuary_viewer& v, estuary_image& image);
void glForgetImage(estuary_viewer& v, estuary_image& image);
void glEndFrame(estuary_viewer& v, estuary_frame& frame);
void glWaitEntry(estuary_viewer& v, uint32_t entry, uint64_t frame, const char* why);
bool glFramesDrawn(estuary_viewer& v, uint64_t timeoutNs);
void glCollect(estuary_viewer& v, uint64_t frame, FrameRecord& record);
std::vector<uint8_t> readGlPixels(estuary_viewer& v, VkExtent2D& extent);
uint32_t glMessages(const estuary_viewer& v);
std::string describeGl(const estuary_viewer& v);

} // namespace estuary::lib
