// What is drawn over the picture after its views: the text and labels views, then per panel its
// title, its axes (2D around a field or buffer views, box axes and a gizmo in 3D), its views'
// colorbars and its scale bar, laid out by layoutPanel (annotation_layout.h) and drawn by the text
// renderer (renderer/text.h) with the font's signed-distance-field glyphs. A panel's layout is made
// again only when what it says changes (camera, views, settings, size); the frame records the
// cached batches.
#pragma once

#include "viewer.h"

namespace estuary::lib {

// Records, over `target` (COLOR_ATTACHMENT_OPTIMAL before and after, the picture of `extent`),
// in one render pass (or by compute: annotatesByCompute) after the views: the annotating views
// (text, labels) of every panel, then every panel's annotations; outside a render pass, for
// host-ring entry `entry`. Makes the text renderer at first use (and again for a new picture
// format). Records nothing where nothing is to be said. `timed`: the pass is bracketed by the
// entry's annotation timestamps (kTimestampsPerEntry; the frame's own command buffer only).
void recordAnnotationLayer(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry,
                           VkImage targetImage, VkImageView target, VkExtent2D extent, bool timed);
// Whether the layer draws by compute into `target`: the compute draw path, and the headless
// picture made with storage use (the offscreen target); else by raster in one render pass.
bool annotatesByCompute(const estuary_viewer& v, VkImageView target);
// Whether some panel has something to say (a title, axes, a colorbar, a scale bar).
bool annotationsWanted(const estuary_viewer& v);
// Frees the text renderer (before the kit).
void closeAnnotationLayer(estuary_viewer& v);

} // namespace estuary::lib
