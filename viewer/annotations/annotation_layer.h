// The annotations drawn over the picture after its views: per panel, its title, its axes (2D
// around a field or buffer views, box axes and a gizmo in 3D), its views' colorbars and its scale
// bar, laid out by layoutPanel (annotation_layout.h) and drawn by the text renderer
// (renderer/text.h) with the font's signed-distance-field glyphs. A panel's layout is made again
// only when what it says changes (camera, views, settings, size); the frame records the cached
// batches.
#pragma once

#include "viewer.h"

namespace estuary::lib {

// Records every panel's annotations over `target` (COLOR_ATTACHMENT_OPTIMAL before and after, the
// picture of `extent`), outside a render pass, for host-ring entry `entry`. Makes the text
// renderer at first use (and again for a new picture format). Records nothing where no panel has
// anything to say.
void recordAnnotationLayer(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry,
                           VkImageView target, VkExtent2D extent);
// Whether some panel has something to say (a title, axes, a colorbar, a scale bar).
bool annotationsWanted(const estuary_viewer& v);
// Frees the text renderer (before the kit).
void closeAnnotationLayer(estuary_viewer& v);

} // namespace estuary::lib
