// The window's input, from GLFW's callbacks or estuary_inject_event alike: what the viewer does
// with it itself (the camera: wheel zoom about the cursor, middle- or Ctrl+left-drag pan, a drag
// over a ray-marched volume orbits; hotkeys Esc, F12, H, C, Home, X/Y/Z, PgUp/PgDn), what Dear
// ImGui gets, and what the user reads back with estuary_get_input (cursor, the field cell under
// it, buttons, wheel, keys since the last poll).
#include "viewer.h"
#include "view_mapping.h"

#include <volk.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace estuary::lib {
namespace {

ViewParams cameraParams(const estuary_viewer& v, uint32_t panel) {
    const Camera& c = panelCamera(v, panel);
    ViewParams p;
    p.zoom = c.zoom;
    p.panX = c.panX;
    p.panY = c.panY;
    p.yaw = c.yaw;
    p.pitch = c.pitch;
    return p;
}

// The panel's camera, and with it those of the panels linked to it.
void setCamera(estuary_viewer& v, uint32_t panel, const ViewParams& p) {
    setPanelCamera(v, panel, {p.zoom, p.panX, p.panY, p.yaw, p.pitch});
}

Vec2 pixelOf(const estuary_viewer& v, float x, float y) {
    const auto p = windowToPixels(v, x, y);
    return {p[0], p[1]};
}

// The panel under a pixel, and the pixel in it: the mouse moves that panel's camera, over its
// field. One panel is the whole picture (and holds points outside it, as before panels).
struct PanelPoint {
    uint32_t panel = ESTUARY_PANEL_NONE;
    Vec2 pixel{};
    VkExtent2D extent{};
};
PanelPoint panelPoint(const estuary_viewer& v, uint32_t panel, Vec2 pixel) {
    if (!panelImages(v)) return {0, pixel, windowExtent(v)};
    if (panel == ESTUARY_PANEL_NONE) return {};
    const VkRect2D r = plotRect(v, panel);
    return {panel, {pixel.x - float(r.offset.x), pixel.y - float(r.offset.y)}, r.extent};
}
PanelPoint panelUnder(const estuary_viewer& v, Vec2 pixel) {
    return panelPoint(v, severalPanels(v) ? panelAt(v, pixel.x, pixel.y) : 0, pixel);
}
uint32_t panelUnderCursor(const estuary_viewer& v) {
    if (v.input.cursorX < 0) return 0;
    const uint32_t panel = panelUnder(v, pixelOf(v, v.input.cursorX, v.input.cursorY)).panel;
    return panel == ESTUARY_PANEL_NONE ? 0 : panel;
}

estuary_view* volumeBackground(estuary_viewer& v, uint32_t panel) {
    const estuary_view* bg = backgroundView(v, panel);
    return backgroundIsVolume(v, panel) ? const_cast<estuary_view*>(bg) : nullptr;
}

void hotkey(estuary_viewer& v, int key) {
    const uint32_t panel = panelUnderCursor(v); // the keys act on the panel under the cursor
    estuary_view* volume = volumeBackground(v, panel);
    switch (key) {
    case GLFW_KEY_ESCAPE:
        v.closeRequested = true;
        break;
    case GLFW_KEY_F12:
        v.panels.screenshotRequested = true;
        break;
    case GLFW_KEY_H:
        v.panels.visible = !v.panels.visible;
        break;
    case GLFW_KEY_HOME:
        setCamera(v, panel, resetCamera(cameraParams(v, panel)));
        break;
    case GLFW_KEY_C: // volumes: the camera back where it started
        if (volume) setCamera(v, panel, resetCamera(cameraParams(v, panel)));
        break;
    case GLFW_KEY_X:
    case GLFW_KEY_Y:
    case GLFW_KEY_Z: // volumes: the slice's axis
        if (volume) {
            volume->params.slice_axis = uint32_t(key - GLFW_KEY_X);
            ++v.drawVersion;
        }
        break;
    case GLFW_KEY_PAGE_UP:
    case GLFW_KEY_PAGE_DOWN: // volumes: the slice one cell along its axis
        if (volume) {
            const estuary_image& image = *volume->image();
            const uint32_t axis = volume->params.slice_axis;
            const uint32_t side = axis == 0   ? image.extent.width
                                  : axis == 1 ? image.extent.height
                                              : image.shape.depth;
            float& position = volume->params.slice_position;
            position = std::clamp(position + float(key == GLFW_KEY_PAGE_UP ? 1 : -1) /
                                                 float(std::max(side, 1u)),
                                  0.0f, 1.0f);
            ++v.drawVersion;
        }
        break;
    default:
        break;
    }
}

void onButton(estuary_viewer& v, const estuary_event& e) {
    InputState& in = v.input;
    const uint32_t bit = e.code == 0   ? ESTUARY_MOUSE_LEFT
                         : e.code == 1 ? ESTUARY_MOUSE_RIGHT
                                       : ESTUARY_MOUSE_MIDDLE;
    in.mods = e.mods;
    if (!e.action) {
        in.buttons &= ~bit;
        if (!in.buttons) in.pressOnUi = false;
        in.drag = InputState::Drag::None;
        return;
    }
    if (!in.buttons) in.pressOnUi = uiWantsMouse(v);
    in.buttons |= bit;
    in.pressed |= bit;
    in.pressedSinceUi |= bit;
    if (uiWantsMouse(v) || in.drag != InputState::Drag::None) return;
    const Vec2 pixel = pixelOf(v, in.cursorX, in.cursorY);
    in.lastPixelX = pixel.x;
    in.lastPixelY = pixel.y;
    in.dragPanel = panelUnder(v, pixel).panel;
    if (in.dragPanel == ESTUARY_PANEL_NONE) // a gap between panels: no camera to move
        in.drag = InputState::Drag::User;
    else if (backgroundIs3d(v, in.dragPanel) &&
             (bit == ESTUARY_MOUSE_LEFT || bit == ESTUARY_MOUSE_MIDDLE))
        in.drag = InputState::Drag::Orbit;
    else if (bit == ESTUARY_MOUSE_MIDDLE ||
             (bit == ESTUARY_MOUSE_LEFT && (e.mods & ESTUARY_MOD_CONTROL)))
        in.drag = InputState::Drag::Pan;
    else
        in.drag = InputState::Drag::User;
}

void onCursor(estuary_viewer& v, const estuary_event& e) {
    InputState& in = v.input;
    in.cursorX = float(e.x);
    in.cursorY = float(e.y);
    if (in.drag != InputState::Drag::Pan && in.drag != InputState::Drag::Orbit) return;
    const Vec2 pixel = pixelOf(v, in.cursorX, in.cursorY);
    const Vec2 delta{pixel.x - in.lastPixelX, pixel.y - in.lastPixelY};
    const uint32_t panel = in.dragPanel; // the panel the drag began in, wherever it goes
    const VkExtent2D target = panelPoint(v, panel, pixel).extent;
    if (in.drag == InputState::Drag::Orbit) {
        setCamera(v, panel, orbitBy(cameraParams(v, panel), delta, target));
    } else if (const VkExtent2D field = backgroundExtent(v, panel); field.width > 0) {
        setCamera(v, panel, panBy(cameraParams(v, panel), delta, target, field));
    }
    in.lastPixelX = pixel.x;
    in.lastPixelY = pixel.y;
}

void onScroll(estuary_viewer& v, const estuary_event& e) {
    if (uiWantsMouse(v)) {
        if (GLFWwindow* w = glfwWindowOf(v)) ImGui_ImplGlfw_ScrollCallback(w, e.x, e.y);
        if (servedUi(v)) v.input.uiScroll += float(e.y);
        return;
    }
    v.input.scroll += float(e.y);
    const PanelPoint at = panelUnder(v, pixelOf(v, v.input.cursorX, v.input.cursorY));
    if (at.panel == ESTUARY_PANEL_NONE) return; // a gap between panels
    const ViewParams now = cameraParams(v, at.panel);
    const float zoom = std::clamp(now.zoom * std::pow(1.15f, float(e.y)), 0.1f, 64.0f);
    const VkExtent2D field = backgroundExtent(v, at.panel);
    if (backgroundIs3d(v, at.panel) || field.width == 0) { // the camera moves towards the centre
        ViewParams p = now;
        p.zoom = zoom;
        setCamera(v, at.panel, p);
        return;
    }
    setCamera(v, at.panel, zoomAbout(now, zoom, at.pixel, at.extent, field));
}

void onKey(estuary_viewer& v, const estuary_event& e) {
    GLFWwindow* w = glfwWindowOf(v);
    if (w && overlayReady(v))
        ImGui_ImplGlfw_KeyCallback(w, e.code, 0, e.action ? GLFW_PRESS : GLFW_RELEASE, 0);
    servedUiKey(v, e.code, e.action != 0);
    if (!e.action) return;
    // Hotkeys are letters too: while a text field has focus they belong to it.
    if (uiWantsKeyboard(v)) return;
    if (v.input.keys.size() < kMaxKeysPerPoll) v.input.keys.push_back(e.code);
    if (!(v.flags & ESTUARY_VIEWER_NO_HOTKEYS)) hotkey(v, e.code);
}

} // namespace

void handleEvent(estuary_viewer& v, const estuary_event& e) {
    switch (e.kind) {
    case ESTUARY_EVENT_CURSOR:
        onCursor(v, e);
        break;
    case ESTUARY_EVENT_BUTTON:
        onButton(v, e);
        break;
    case ESTUARY_EVENT_SCROLL:
        onScroll(v, e);
        break;
    case ESTUARY_EVENT_KEY:
        onKey(v, e);
        break;
    case ESTUARY_EVENT_CHAR:
        if (GLFWwindow* w = glfwWindowOf(v); w && overlayReady(v))
            ImGui_ImplGlfw_CharCallback(w, unsigned(e.code));
        servedUiChar(v, uint32_t(e.code));
        break;
    case ESTUARY_EVENT_ICONIFY:
        setIconified(v, e.action != 0);
        break;
    case ESTUARY_EVENT_KIND_MAX_ENUM: // not a kind: estuary_inject_event refuses it
        break;
    }
}

estuary_input currentInput(estuary_viewer& v) {
    estuary_input out{};
    const InputState& in = v.input;
    out.cursor_x = in.cursorX;
    out.cursor_y = in.cursorY;
    const VkExtent2D target = windowExtent(v);
    out.width = target.width;
    out.height = target.height;
    if (in.cursorX >= 0) {
        const Vec2 pixel = pixelOf(v, in.cursorX, in.cursorY);
        out.cursor_x = pixel.x;
        out.cursor_y = pixel.y;
        // The field of the panel under the cursor, in that panel's pixels.
        const PanelPoint at = panelUnder(v, pixel);
        const VkExtent2D field =
            at.panel == ESTUARY_PANEL_NONE ? VkExtent2D{} : backgroundExtent(v, at.panel);
        if (field.width > 0 && !backgroundIs3d(v, at.panel)) {
            const ViewParams camera = cameraParams(v, at.panel);
            const Vec2 cell = targetToCell(at.pixel, at.extent, field, camera);
            out.field_x = cell.x;
            out.field_y = cell.y;
            int cx = 0, cy = 0;
            out.over_field = cellUnder(at.pixel, at.extent, field, camera, cx, cy) ? 1 : 0;
        }
    }
    out.buttons = in.buttons;
    out.pressed = in.pressed;
    out.mods = in.mods;
    out.scroll = in.scroll;
    out.ui_wants_mouse = uiWantsMouse(v) ? 1 : 0;
    out.ui_wants_keyboard = uiWantsKeyboard(v) ? 1 : 0;
    out.key_count = uint32_t(in.keys.size());
    out.keys = in.keys.data();
    return out;
}

void startInputPoll(estuary_viewer& v) {
    v.input.pressed = 0;
    v.input.scroll = 0;
    v.input.keys.clear();
}

void deliverInjected(estuary_viewer& v) {
    takeServedInput(v); // a served page's input, in order after what was injected before
    const std::vector<estuary_event> events = std::exchange(v.injected, {});
    for (const estuary_event& e : events)
        handleEvent(v, e);
}

void updateProbe(estuary_viewer& v) {
    PanelState& p = v.panels;
    const estuary_input in = currentInput(v);
    const bool over = in.over_field && !in.ui_wants_mouse;
    const int x = int(std::floor(in.field_x + 0.5f)), y = int(std::floor(in.field_y + 0.5f));
    if (!over || x != p.probeX || y != p.probeY) p.probeValid = false;
    if (!in.ui_wants_mouse) p.probePanel = panelUnderCursor(v); // kept while over the UI
    p.probeActive = over && backgroundView(v, p.probePanel) && !backgroundIsVolume(v, p.probePanel);
    p.probeX = x;
    p.probeY = y;
    // The buffer views' elements under the cursor anywhere in the picture; each view's last pick
    // stays shown until the next arrives.
    const bool panelsShown = p.visible && !(v.flags & ESTUARY_VIEWER_NO_PANELS);
    p.pickActive = panelsShown && in.cursor_x >= 0.0f && in.cursor_y >= 0.0f && !in.ui_wants_mouse;
    p.pickX = in.cursor_x;
    p.pickY = in.cursor_y;
    std::vector<PanelState::ViewPick> picks;
    for (const auto& view : v.views) {
        if (!view->params.visible || !isBufferView(*view)) continue;
        const auto kept = std::find_if(p.picks.begin(), p.picks.end(),
                                       [&](const auto& shown) { return shown.view == view.get(); });
        picks.push_back(kept != p.picks.end() && p.pickActive ? *kept
                                                              : PanelState::ViewPick{view.get()});
    }
    p.picks = std::move(picks);
}

} // namespace estuary::lib
