// What estuary draws with Dear ImGui itself, in a window: the View panel (the views and their
// parameters, the camera, the value under the cursor), the Performance panel (host, CUDA, draw and
// wait times over the last frames) and the notice line. The user's own panels come after these
// (estuary_set_ui_callback). Colorbars, axes and titles are the annotations'
// (annotations/annotation_layer.h).
#include "view_type.h"
#include "colormap.h"

#include <imgui.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>

namespace estuary::lib {
namespace {

constexpr ImU32 kSeriesColours[] = {IM_COL32(240, 240, 240, 255), IM_COL32(90, 200, 250, 255),
                                    IM_COL32(250, 170, 60, 255), IM_COL32(240, 80, 110, 255)};
constexpr const char* kSeriesNames[] = {"frame interval", "CUDA", "draw (GPU)", "interop wait"};

double seriesValue(const FrameRecord& r, size_t series) {
    switch (series) {
    case 0:
        return r.intervalMs;
    case 1:
        return ((r.cudaUs[1] - r.cudaUs[0]) + (r.cudaUs[3] - r.cudaUs[2])) / 1000.0;
    case 2:
        return r.drawMs;
    default:
        return r.waitMs;
    }
}

// One buffer view's element under the cursor: which, its value (RGBA views: the colour) and
// where.
void showPick(const estuary_viewer& v, const estuary_view& view, const estuary_pick& pick) {
    std::string text = std::string(viewKind(view)) + " '" + view.label + "' " +
                       (severalPanels(v) ? "(panel " + std::to_string(pick.panel) + ") " : "") +
                       view.type->describePick(view, pick);
    char tail[128];
    if (view.type->pickIsColour(view))
        std::snprintf(tail, sizeof(tail), "  colour #%08x", std::bit_cast<uint32_t>(pick.value));
    else
        std::snprintf(tail, sizeof(tail), "  = %.4g", double(pick.value));
    text += tail;
    std::snprintf(tail, sizeof(tail), "  at (%.4g, %.4g, %.4g)", double(pick.position[0]),
                  double(pick.position[1]), double(pick.position[2]));
    text += tail;
    ImGui::TextUnformatted(text.c_str());
}

void drawViewPanel(estuary_viewer& v, ImGuiCond place) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(10, display.y - 10), place, ImVec2(0, 1));
    ImGui::SetNextWindowSize(ImVec2(300, 0), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("View")) {
        ImGui::End();
        return;
    }
    int id = 0;
    for (const auto& view : v.views) {
        ImGui::PushID(id++);
        estuary_view_params p = view->params;
        bool visible = p.visible;
        const std::string where =
            severalPanels(v) ? ", panel " + std::to_string(p.panel) : std::string();
        if (ImGui::Checkbox((view->label + " (" + viewKind(*view) + where + ")").c_str(), &visible))
            p.visible = visible;
        if (visible && view->type->colormapped(*view)) {
            int colormap = int(p.colormap);
            const auto name = [](void* data, int i, const char** text) {
                *text =
                    static_cast<const estuary_viewer*>(data)->kit.colormaps[size_t(i)].name.c_str();
                return true;
            };
            if (ImGui::Combo("colormap", &colormap, name, &v, int(v.kit.colormaps.size())))
                p.colormap = estuary_colormap(colormap);
            ImGui::DragFloatRange2("values", &p.value_min, &p.value_max, 0.005f);
            if (p.value_max <= p.value_min) p.value_max = p.value_min + 1e-6f;
        }
        if (visible) view->type->panel(*view, p);
        if (std::memcmp(&p, &view->params, sizeof(p)) != 0) {
            try {
                setViewParams(v, *view, p);
            } catch (const std::exception& e) {
                showNotice(v, e.what(), true);
            }
        }
        ImGui::Separator();
        ImGui::PopID();
    }
    // The camera of the panel under the cursor (one panel: the picture's).
    const uint32_t panel =
        std::min<uint32_t>(v.panels.probePanel, uint32_t(v.layout.panels.size() - 1));
    if (severalPanels(v)) ImGui::Text("camera of panel %u", panel);
    Camera c = panelCamera(v, panel);
    const Camera before = c;
    ImGui::SliderFloat("zoom", &c.zoom, 0.1f, 64.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    if (backgroundIs3d(v, panel) ||
        std::any_of(v.views.begin(), v.views.end(), [&](const auto& view) {
            return view->params.visible && view->params.panel == panel &&
                   !view->type->background() && view->threeD;
        })) {
        constexpr float kDegrees = 57.29578f;
        float yaw = c.yaw * kDegrees, pitch = c.pitch * kDegrees;
        if (ImGui::SliderFloat("yaw", &yaw, -180.0f, 180.0f, "%.0f deg")) c.yaw = yaw / kDegrees;
        if (ImGui::SliderFloat("pitch", &pitch, -85.0f, 85.0f, "%.0f deg"))
            c.pitch = pitch / kDegrees;
        ImGui::TextDisabled("drag: turn, wheel: zoom, C/Home: reset");
    } else {
        ImGui::Text("pan %.3f, %.3f", double(c.panX), double(c.panY));
        ImGui::TextDisabled("wheel: zoom; middle/ctrl+drag: pan; Home: reset");
    }
    if (std::memcmp(&before, &c, sizeof(c)) != 0) setPanelCamera(v, panel, c);
    const PanelState& p = v.panels;
    if (p.probeActive) {
        const estuary_view* bg = backgroundView(v, p.probePanel);
        char text[128];
        int n = std::snprintf(text, sizeof(text), "cell %d, %d  %s =", p.probeX, p.probeY,
                              bg->label.c_str());
        if (!p.probeValid) {
            std::snprintf(text + n, sizeof(text) - size_t(n), " (pending)");
        } else {
            const auto values = probeValues(*bg->image(), p.probeBytes.data());
            for (size_t i = 0; i < values.size() && n > 0 && size_t(n) < sizeof(text); ++i)
                n += std::snprintf(text + n, sizeof(text) - size_t(n), " %.4f", double(values[i]));
        }
        ImGui::TextUnformatted(text);
    } else if (backgroundView(v, panel) && !backgroundIs3d(v, panel)) {
        ImGui::TextDisabled("cursor outside the field");
    }
    ImGui::End();
}

// Beside the cursor, what each buffer view has under it (a view with nothing there says
// nothing), kept on screen; it takes no input, so the cursor reaches the picture through it.
void drawPickReadout(const estuary_viewer& v) {
    const PanelState& p = v.panels;
    const auto found = [](const PanelState::ViewPick& shown) {
        return shown.valid && shown.pick.hit;
    };
    if (!p.pickActive || std::none_of(p.picks.begin(), p.picks.end(), found)) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    constexpr float kOffset = 16.0f;
    const bool right = p.pickX > 0.6f * display.x, below = p.pickY > 0.6f * display.y;
    ImGui::SetNextWindowPos(
        ImVec2(p.pickX + (right ? -kOffset : kOffset), p.pickY + (below ? -kOffset : kOffset)),
        ImGuiCond_Always, ImVec2(right ? 1.0f : 0.0f, below ? 1.0f : 0.0f));
    ImGui::SetNextWindowBgAlpha(0.8f);
    constexpr ImGuiWindowFlags kFlags =
        ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
        ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoSavedSettings |
        ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav;
    if (ImGui::Begin("##picked", nullptr, kFlags))
        for (const PanelState::ViewPick& shown : p.picks)
            if (found(shown)) showPick(v, *shown.view, shown.pick);
    ImGui::End();
}

void drawTimingPlot(estuary_viewer& v, float topMs) {
    const ImVec2 size(ImGui::GetContentRegionAvail().x, 120.0f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("timing plot", size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 corner(origin.x + size.x, origin.y + size.y);
    draw->AddRectFilled(origin, corner, IM_COL32(20, 20, 26, 220));
    // The plot's top eases towards the slowest p99 so one hitch does not flatten everything.
    PanelState& p = v.panels;
    p.plotScaleMs = p.plotScaleMs > 0.0f ? p.plotScaleMs + 0.05f * (topMs - p.plotScaleMs) : topMs;
    const float scale = std::max(p.plotScaleMs, 0.1f);
    const Timing& t = v.timing;
    const size_t n = t.recent.size();
    if (n < 2) return;
    // Oldest first: the ring's next slot is its oldest entry once it is full.
    const size_t start = t.recentCount > n ? t.recentCount % n : 0;
    const auto at = [&](size_t i) -> const FrameRecord& { return t.recent[(start + i) % n]; };
    const float dx = size.x / float(n - 1);
    for (size_t s = 0; s < 4; ++s)
        for (size_t i = 1; i < n; ++i) {
            const double a = seriesValue(at(i - 1), s), b = seriesValue(at(i), s);
            if (!std::isfinite(a) || !std::isfinite(b)) continue; // not measured (yet)
            const auto y = [&](double ms) {
                return corner.y - std::min(float(ms) / scale, 1.0f) * size.y;
            };
            draw->AddLine(ImVec2(origin.x + float(i - 1) * dx, y(a)),
                          ImVec2(origin.x + float(i) * dx, y(b)), kSeriesColours[s]);
        }
    char label[32];
    std::snprintf(label, sizeof(label), "%.2f ms", double(scale));
    draw->AddText(ImVec2(origin.x + 4, origin.y + 2), IM_COL32(200, 200, 200, 255), label);
}

void drawPerformancePanel(estuary_viewer& v, ImGuiCond place) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x - 10, 10), place, ImVec2(1, 0));
    ImGui::SetNextWindowSize(ImVec2(380, 0), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Performance")) {
        ImGui::End();
        return;
    }
    double now[4], p50[4], p99[4];
    float top = 0.0f;
    std::vector<double>& values = v.panels.scratch;
    for (size_t s = 0; s < 4; ++s) {
        values.clear();
        now[s] = NAN;
        for (size_t i = 0; i < v.timing.recent.size(); ++i)
            values.push_back(seriesValue(v.timing.recent[i], s));
        if (!v.timing.recent.empty())
            now[s] = seriesValue(
                v.timing.recent[(v.timing.recentCount - 1) % v.timing.recent.size()], s);
        p50[s] = percentile(values, 50);
        p99[s] = percentile(values, 99);
        if (std::isfinite(p99[s])) top = std::max(top, float(p99[s]) * 1.25f);
    }
    ImGui::Text("last %zu frames, GPU times %u frames late", v.timing.recent.size(), v.hostRing);
    drawTimingPlot(v, top);
    if (ImGui::BeginTable("timings", 4, ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("ms");
        ImGui::TableSetupColumn("now");
        ImGui::TableSetupColumn("p50");
        ImGui::TableSetupColumn("p99");
        ImGui::TableHeadersRow();
        for (size_t s = 0; s < 4; ++s) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kSeriesColours[s]), "%s",
                               kSeriesNames[s]);
            for (double x : {now[s], p50[s], p99[s]}) {
                ImGui::TableNextColumn();
                if (std::isfinite(x))
                    ImGui::Text("%.3f", x);
                else
                    ImGui::TextDisabled("-");
            }
        }
        ImGui::EndTable();
    }
    ImGui::Text("%.1f frames/s (p50)", std::isfinite(p50[0]) && p50[0] > 0 ? 1000.0 / p50[0] : 0.0);
    ImGui::TextDisabled("F12 screenshot, H hide UI, Esc quit");
    ImGui::End();
}

void drawNotice(estuary_viewer& v) {
    PanelState& p = v.panels;
    if (p.notice.empty() || p.noticeSeconds <= 0.0f) return;
    p.noticeSeconds -= ImGui::GetIO().DeltaTime;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, display.y - 10), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(display.x - 20, display.y));
    ImGui::SetNextWindowBgAlpha(0.85f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoNav |
                                   ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoSavedSettings;
    if (ImGui::Begin("##notice", nullptr, flags)) {
        ImGui::PushTextWrapPos(display.x - 40);
        if (p.noticeIsError)
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "%s", p.notice.c_str());
        else
            ImGui::TextUnformatted(p.notice.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
}

// IEEE binary16 to float, for the probe's readout of RGBA16F images.
float halfToFloat(uint16_t h) {
    const uint32_t sign = uint32_t(h & 0x8000) << 16, exponent = (h >> 10) & 0x1F,
                   mantissa = h & 0x3FF;
    float magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(float(mantissa), -24); // zero and subnormals
    else if (exponent == 31)
        magnitude = mantissa ? NAN : INFINITY;
    else
        magnitude = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
    return sign ? -magnitude : magnitude;
}

} // namespace

bool wantsColorbar(const estuary_view& view) {
    return view.type->wantsColorbar(view);
}

std::vector<float> probeValues(const estuary_image& image, const uint8_t* texel) {
    std::vector<float> out;
    const uint32_t channels = image.format == ESTUARY_FORMAT_R32_FLOAT    ? 1
                              : image.format == ESTUARY_FORMAT_RG32_FLOAT ? 2
                                                                          : 4;
    for (uint32_t c = 0; c < channels; ++c) {
        if (image.format == ESTUARY_FORMAT_RGBA8_UNORM) {
            out.push_back(float(texel[c]) / 255.0f);
        } else if (image.format == ESTUARY_FORMAT_RGBA16_FLOAT) {
            uint16_t h = 0;
            std::memcpy(&h, texel + 2 * c, 2);
            out.push_back(halfToFloat(h));
        } else {
            float f = 0;
            std::memcpy(&f, texel + 4 * c, 4);
            out.push_back(f);
        }
    }
    return out;
}

void showNotice(estuary_viewer& v, const std::string& text, bool isError) {
    v.panels.notice = text;
    v.panels.noticeIsError = isError;
    v.panels.noticeSeconds = 6.0f;
}

void drawPanels(estuary_viewer& v) {
    // Panels keep where the user dragged them, until the window changes size: then they go back
    // to their corners, so none is left off-screen or on top of another.
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    PanelState& p = v.panels;
    const bool resized = display.x != p.layoutFor[0] || display.y != p.layoutFor[1];
    p.layoutFor[0] = display.x;
    p.layoutFor[1] = display.y;
    const ImGuiCond place = resized ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    const bool shown = !v.headless || v.server; // headless, where a page watches
    const bool panels = shown && p.visible && !(v.flags & ESTUARY_VIEWER_NO_PANELS);
    if (panels) {
        drawViewPanel(v, place);
        drawPerformancePanel(v, place);
        drawPickReadout(v);
    }
    if (shown) drawNotice(v);
}

} // namespace estuary::lib
