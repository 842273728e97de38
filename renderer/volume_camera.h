// The orbit camera of the volume draw: where a volume's rays start and where they point, from the
// view's yaw, pitch and zoom and the target's aspect. Pure (no Vulkan), so tests and the window
// share it; renderer.cpp turns it into VolumePushConstants (shared_layout.h says what the shader
// does with it).
//
// The volume sits centred at the origin in its own frame: x along its width, y along its height
// (rows: row 0 is the top of the picture, so "up" is -y), z along its depth. Yaw 0, pitch 0 looks
// along +z with x to the right and row 0 at the top, the 2D picture of slice z; yaw turns about the
// vertical, positive pitch looks down from above. The camera keeps kOrbitDistance / zoom from the
// centre, far enough at zoom 1 that the whole box is in view at any angle.
#pragma once

#include <array>
#include <cstdint>

namespace estuary {

struct ViewParams;

using Vec3 = std::array<float, 3>;

inline constexpr float kOrbitFovY = 0.6981317f; // 40 degrees
inline constexpr float kOrbitDistance = 2.6f;   // at zoom 1; the unit box's corners fit a 40° view
inline constexpr float kOrbitMaxPitch = 1.5f;   // radians, short of straight down/up

struct OrbitCamera {
    Vec3 eye{}, forward{}; // forward: unit length
    Vec3 right{}, up{};    // lengths tan(fovY/2) * aspect and tan(fovY/2)
};

OrbitCamera orbitCamera(float yaw, float pitch, float zoom, uint32_t targetWidth,
                        uint32_t targetHeight);

} // namespace estuary
