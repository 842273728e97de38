#include "volume_camera.h"

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include <algorithm>
#include <cmath>

namespace estuary {

namespace {

Vec3 toArray(const glm::vec3& v) {
    return {v.x, v.y, v.z};
}

} // namespace

OrbitCamera orbitCamera(float yaw, float pitch, float zoom, uint32_t targetWidth,
                        uint32_t targetHeight) {
    pitch = std::clamp(pitch, -kOrbitMaxPitch, kOrbitMaxPitch);
    const float distance = kOrbitDistance / std::max(zoom, 1e-3f);
    const glm::vec3 forward{std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                            std::cos(pitch) * std::cos(yaw)};
    const glm::vec3 worldUp{0.0f, -1.0f, 0.0f}; // rows grow downwards
    const glm::vec3 right = glm::normalize(glm::cross(forward, worldUp));
    const glm::vec3 up = glm::cross(right, forward);
    const float tanHalf = std::tan(0.5f * kOrbitFovY);
    const float aspect = float(std::max(targetWidth, 1u)) / float(std::max(targetHeight, 1u));
    OrbitCamera camera;
    camera.eye = toArray(-distance * forward);
    camera.forward = toArray(forward);
    camera.right = toArray(right * (tanHalf * aspect));
    camera.up = toArray(up * tanHalf);
    return camera;
}

} // namespace estuary
