#include "annotation_layer.h"

#include "layout.h"
#include "panel_annotations.h"
#include "text.h"
#include "view_type.h"

#include <exception>

namespace estuary::lib {

struct AnnotationLayer {
    TextRenderer renderer;
    VkFormat format = VK_FORMAT_UNDEFINED;
    struct Cached {
        bool valid = false;
        annotations::Rect rect;
        annotations::PanelAnnotations what;
        annotations::PanelLayout layout;
    };
    std::vector<Cached> panels;
    std::vector<AnnotationPanel> recorded; // scratch
};

void Deleter::operator()(AnnotationLayer* p) const {
    delete p;
}

namespace {

// Colorbars follow the window's panels (hidden with them), and are always drawn headless.
bool colorbarsShown(const estuary_viewer& v) {
    return v.headless || v.panels.visible;
}

PanelAnnotationOptions optionsOf(const Panel& panel) {
    PanelAnnotationOptions o;
    o.title = panel.title;
    o.axes = panel.flags & ESTUARY_PANEL_AXES;
    o.grid = panel.flags & ESTUARY_PANEL_GRID;
    o.logX = panel.flags & ESTUARY_PANEL_LOG_X;
    o.logY = panel.flags & ESTUARY_PANEL_LOG_Y;
    o.timeX = panel.flags & ESTUARY_PANEL_TIME_X;
    o.timeOrigin = panel.timeOrigin;
    o.scaleBar = panel.flags & ESTUARY_PANEL_SCALE_BAR;
    o.axisTitles = panel.axisTitles;
    o.scaleBarUnit = panel.scaleBarUnit;
    return o;
}

annotations::Rect rectOf(VkRect2D r) {
    return {float(r.offset.x), float(r.offset.y), float(r.offset.x) + float(r.extent.width),
            float(r.offset.y) + float(r.extent.height)};
}

bool panelSaysSomething(const estuary_viewer& v, uint32_t p, const Panel& panel) {
    if (!panel.title.empty() || (panel.flags & (ESTUARY_PANEL_AXES | ESTUARY_PANEL_SCALE_BAR)))
        return true;
    if (!colorbarsShown(v)) return false;
    for (const auto& view : v.views)
        if (view->params.panel == p && view->params.visible && view->type->wantsColorbar(*view))
            return true;
    return false;
}

} // namespace

bool annotatesByCompute(const estuary_viewer& v, VkImageView target) {
    return v.drawPath == ESTUARY_DRAW_COMPUTE && v.headless && v.offscreen.storage &&
           target == v.offscreen.image.view;
}

bool annotationsWanted(const estuary_viewer& v) {
    for (uint32_t p = 0; p < v.layout.panels.size(); ++p)
        if (panelSaysSomething(v, p, v.layout.panels[p])) return true;
    return false;
}

namespace {

// Lays out what each panel says (again only where it changed) into layer.recorded.
void layOutPanels(estuary_viewer& v, AnnotationLayer& layer) {
    layer.panels.resize(v.layout.panels.size());
    layer.recorded.clear();
    const TextMeasure& measure = *layer.renderer.font.atlas;
    std::vector<const estuary_view*> views;
    const bool bars = colorbarsShown(v);
    for (uint32_t p = 0; p < v.layout.panels.size(); ++p) {
        const Panel& panel = v.layout.panels[p];
        AnnotationLayer::Cached& cached = layer.panels[p];
        if (!panelSaysSomething(v, p, panel)) continue;
        views.clear();
        for (const auto& view : v.views)
            if (view->params.panel == p) views.push_back(view.get());
        const annotations::Rect rect = rectOf(plotRect(v, p));
        annotations::PanelAnnotations what =
            panelAnnotations(v, panelCamera(v, p), rect, optionsOf(panel), &views);
        if (!bars) what.colorbars.clear();
        if (!cached.valid || !(cached.what == what) || !(cached.rect == rect)) {
            try {
                cached.layout = annotations::layoutPanel(what, measure, rect);
            } catch (const std::exception& e) { // a non-finite range: nothing said this frame
                logMessage(v, ESTUARY_LOG_WARNING,
                           "panel " + std::to_string(p) + "'s annotations left out: " + e.what());
                cached.valid = false;
                continue;
            }
            cached.what = std::move(what);
            cached.rect = rect;
            cached.valid = true;
        }
        layer.recorded.push_back({&cached.layout.batch, panelRect(v, p)});
    }
}

} // namespace

void recordAnnotationLayer(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry,
                           VkImage targetImage, VkImageView target, VkExtent2D extent, bool timed) {
    bool annotating = false;
    for (const auto& view : v.views)
        if (view->params.visible && view->type->annotates()) {
            view->type->recordUploads(v, *view, cmd);
            annotating = true;
        }
    // Once the layer exists, layOutPanels asks each panel itself: no second walk of the views.
    const bool panels = v.annotations || annotationsWanted(v);
    if (panels && (!v.annotations || v.annotations->format != v.targetFormat)) {
        closeAnnotationLayer(v);
        auto layer = Owned<AnnotationLayer>(new AnnotationLayer);
        layer->renderer =
            createTextRenderer(v.device, TextDesc{.kit = &v.kit,
                                                  .targetFormat = v.targetFormat,
                                                  .dataDir = v.dataDir,
                                                  .slotCount = v.hostRing,
                                                  .compute = v.drawPath == ESTUARY_DRAW_COMPUTE});
        layer->format = v.targetFormat;
        v.annotations = std::move(layer);
    }
    if (panels) {
        layOutPanels(v, *v.annotations);
        recordFontUpload(v.annotations->renderer.font, cmd);
    }
    const bool said = panels && !v.annotations->recorded.empty();
    if (!annotating && !said) return;
    // The layer's cost (estuary_frame_stats.annotations_ms): every earlier command done first.
    timed = timed && v.timestamps;
    if (timed) {
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, v.timestamps,
                             kTimestampsPerEntry * entry + 2);
        v.entries[entry].annotationsTimed = true;
    }
    const bool compute = annotatesByCompute(v, target);
    if (compute)
        recordStorageBegin(cmd, targetImage);
    else
        beginAnnotationPass(cmd, target, extent);
    bool first = true; // the compute passes after the first wait for the one before
    const auto next = [&] {
        if (compute && !first) recordStorageBetween(cmd);
        first = false;
    };
    if (annotating)
        for (uint32_t p = 0; p < v.layout.panels.size(); ++p) {
            const VkRect2D area = viewArea(v, p, extent);
            if (area.extent.width == 0 || area.extent.height == 0) continue;
            for (const auto& view : v.views)
                if (view->params.visible && view->params.panel == p && view->type->annotates()) {
                    next();
                    view->type->record(v, *view, cmd, entry,
                                       {targetImage, target, extent, area, compute});
                }
        }
    if (said && compute) {
        next();
        recordAnnotationsCompute(v.device, v.annotations->renderer, cmd, entry, target, extent,
                                 v.annotations->recorded);
    } else if (said) {
        recordAnnotationsInPass(v.annotations->renderer, cmd, entry, extent,
                                v.annotations->recorded);
    }
    if (compute)
        recordStorageEnd(cmd, targetImage);
    else
        vkCmdEndRendering(cmd);
    if (timed)
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, v.timestamps,
                             kTimestampsPerEntry * entry + 3);
}

void closeAnnotationLayer(estuary_viewer& v) {
    if (!v.annotations) return;
    destroyTextRenderer(v.device, v.annotations->renderer);
    v.annotations.reset();
}

} // namespace estuary::lib
