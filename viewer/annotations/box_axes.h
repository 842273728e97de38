// 3D box axes and the orientation gizmo, laid out into an AnnotationBatch: the box projected by
// the camera, for each of x, y and z the edge on the box's outline that faces the viewer and lies
// lowest (or, for an axis that runs up the screen, leftmost), as plotting tools put them, with
// ticks, labels and the axis's title along it; the gizmo (x red, y green, z blue, with letters)
// in the bottom-left corner turns with the camera. Pure, called by layoutPanel
// (annotation_layout.h).
#pragma once

#include "annotation_layout.h"

#include <array>
#include <functional>

namespace estuary {
struct OrbitCamera;
}

namespace estuary::annotations {

// A point of user space on the screen: pixels in `viewport`, false at or behind the eye.
struct ScreenPoint {
    float x = 0, y = 0;
    bool visible = false;
};
ScreenPoint project(const glm::mat4& viewProjection, const std::array<double, 3>& p, Rect viewport);

// The renderer's orbit camera (renderer/volume_camera.h) as a matrix from user units: the box
// [min, max] drawn as the renderer's box of half-sides `renderedHalf` about the origin (a volume:
// its cells over the largest count, halved; 3D points: their bounds over the largest side, halved).
glm::mat4 orbitViewProjection(const OrbitCamera& camera, const std::array<double, 3>& min,
                              const std::array<double, 3>& max,
                              const std::array<float, 3>& renderedHalf);

// Which of the four edges parallel to each axis carries its ticks: bit 0 says the edge lies at
// the maximum of the next axis ((a + 1) % 3), bit 1 at the maximum of the one after. -1 where the
// box is not in front of the eye.
std::array<int, 3> chooseBoxEdges(const BoxAxesDesc& box, Rect viewport);

// Lines into `batch`, texts through `place` (which may refuse one that would overlap another).
void layoutBoxAxes(const BoxAxesDesc& box, const TextMeasure& measure, const AnnotationStyle& style,
                   Rect viewport, AnnotationBatch& batch,
                   const std::function<bool(const AnnotationText&)>& place);

} // namespace estuary::annotations
