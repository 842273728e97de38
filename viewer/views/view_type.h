// What a kind of view is (docs/VIEWS.md). Each kind lives in a folder of its own under
// viewer/views/ (its checks and state in <kind>_view.cpp, its C entry point in <kind>_api.cpp) and
// is one line of registry.cpp. The viewer draws, picks, resizes, shows and tears down its views
// only through this interface, so adding a kind touches no other file of the library.
#pragma once

#include "view_attributes.h"
#include "viewer.h"

#include <memory>
#include <span>
#include <string>

namespace estuary::lib {

// The picture a frame draws into (COLOR_ATTACHMENT_OPTIMAL before and after every draw). An
// annotating view draws into the part of it that is its panel, `area`; the others into all of it
// (`area` is then the whole `extent`).
struct DrawTarget {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkExtent2D extent{};
    VkRect2D area{};
    // The annotation layer's compute path (annotation_layer.h): the picture is in GENERAL layout,
    // `view` has storage use and no render pass is open; an annotating view draws by compute.
    bool storage = false;
};

class ViewType {
  public:
    explicit constexpr ViewType(const char* kindName) : name(kindName) {}
    virtual ~ViewType() = default;
    const char* const name; // what messages, panels and pick readouts call it

    // A background view covers the picture (the last visible one is drawn, first); the others are
    // drawn over it in the order they were added, and can be picked.
    virtual bool background() const { return false; }
    // An annotating view (text, labels) is drawn after every other view of every panel, in the one
    // render pass that also draws the panels' axes and colorbars (annotation_layer.h): record() is
    // then called inside that pass, the font uploaded first by recordUploads (outside it).
    virtual bool annotates() const { return false; }
    virtual void recordUploads(const estuary_viewer&, const estuary_view&, VkCommandBuffer) const {}
    // Under the orbit camera (else the 2D camera).
    virtual bool threeD(const estuary_view& view) const { return view.threeD; }

    // The view's renderers made for the viewer's draw path (with nothing in flight); for the
    // OpenGL consumer, the kind's OpenGL side, or a refusal (throws unsupported) where it has none.
    virtual void make(estuary_viewer& v, estuary_view& view) const = 0;
    // Frees what make made (the view is going, or being made again); a view of the OpenGL
    // consumer made nothing here.
    virtual void release(estuary_viewer& v, estuary_view& view) const = 0;
    // Records the view's draw of host-ring entry `entry`'s copies.
    virtual void record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                        uint32_t entry, const DrawTarget& target) const = 0;
    // Records the view's draw as record() does, as the first thing drawn on a picture it clears
    // to the viewer's background itself (no clear pass before it: the points' compute splat writes
    // every pixel in its resolve); false, having recorded nothing, where it does not.
    virtual bool recordOverCleared(const estuary_viewer&, const estuary_view&, VkCommandBuffer,
                                   uint32_t, const DrawTarget&) const {
        return false;
    }
    // The picture changed size (only while nothing is in flight).
    virtual void resize(estuary_viewer&, estuary_view&, VkExtent2D) const {}
    // Parameters the user set that need the renderers made again (a volume's style).
    virtual bool remakes(const estuary_view&, const estuary_view_params&) const { return false; }

    // Picking (buffer views): the pick pipeline made once, and the pick recorded after the draw.
    virtual void preparePick(estuary_viewer&, estuary_view&) const {}
    virtual void recordPick(const estuary_viewer&, const estuary_view&, VkCommandBuffer, uint32_t,
                            VkExtent2D, const PickQuery&, VkBuffer, VkDeviceSize) const {}
    // A picked element as the View panel's readout names it ("#12", "segment 3, vertex 4").
    virtual std::string describePick(const estuary_view&, const estuary_pick& pick) const;
    // The pick's value is an RGBA8 colour's bits, not a number.
    virtual bool pickIsColour(const estuary_view&) const { return false; }

    // The View panel: the kind's own controls (below visibility, colormap and range), editing
    // `params`; and whether the colormap controls and a colorbar apply.
    virtual void panel(const estuary_view&, estuary_view_params&) const {}
    virtual bool colormapped(const estuary_view&) const { return true; }
    virtual bool wantsColorbar(const estuary_view& view) const;
};

// Every kind, in registry.cpp's order (tests walk it, so a new kind cannot go untested).
std::span<const ViewType* const> viewTypes();

// ---- what the kinds share (views.cpp) ----
// Each throws a usage error starting with `what`.
void checkColormap(const estuary_viewer& v, estuary_colormap colormap, const std::string& what);
void checkRange(float& lo, float& hi, const std::string& what); // both 0: 0..1
void checkOwned(const estuary_viewer& v, const void* owner, const std::string& what);
void checkBuffer(const estuary_viewer& v, const estuary_buffer* buffer, // NULL passes
                 const std::string& what);
// "unknown flags N (allowed: <allowedNames>)" where `flags` has bits outside `allowed`.
void checkFlags(uint32_t flags, uint32_t allowed, const std::string& what,
                const char* allowedNames);
// Refuses the OpenGL consumer, which draws only the kinds that say otherwise.
void checkVulkanConsumer(const estuary_viewer& v, const std::string& what);
estuary_view_params defaultParams(uint32_t flags, estuary_colormap colormap, float lo, float hi);

// A view of `type`, its state made: the caller fills in the rest, then adds it.
template <class State>
std::unique_ptr<estuary_view> newView(estuary_viewer& v, const ViewType& type) {
    auto view = std::make_unique<estuary_view>();
    view->viewer = &v;
    view->type = &type;
    view->state = std::make_unique<State>();
    return view;
}
// A buffer view: finite bounds, a colormap and range checked, then the view with its flags,
// placement (3D: the orbit camera), count (0: capacity) and label (none: the buffer's name).
struct BufferViewDesc {
    estuary_buffer* buffer;
    const float* bounds; // 6
    estuary_colormap colormap;
    float valueMin, valueMax;
    const char* label;
    uint32_t flags;
    bool threeD;
    uint32_t capacity, count;
    const ResolvedChannels* channels = nullptr; // their own buffers become the view's inputs
};
void fillBufferView(estuary_viewer& v, estuary_view& view, const std::string& what,
                    const BufferViewDesc& d);
// Makes the view's renderers (after the GPU went idle), counts its users of its images and buffers
// and adds it to the viewer's views.
estuary_view* addView(estuary_viewer& v, std::unique_ptr<estuary_view> view);

} // namespace estuary::lib
