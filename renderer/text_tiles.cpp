// The binning of annotation quads into screen tiles (text_tiles.h).
#include "text_tiles.h"
#include "shared_layout.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace estuary {

namespace {

constexpr uint32_t kTile = ESTUARY_TEXT_TILE;

struct Vec2 {
    float x, y;
};

// The interval [lo, hi] of the parallelogram's corners projected on `axis`.
void project(const TextQuad& q, Vec2 axis, float& lo, float& hi) {
    const float o = q.origin[0] * axis.x + q.origin[1] * axis.y;
    const float u = q.axisU[0] * axis.x + q.axisU[1] * axis.y;
    const float v = q.axisV[0] * axis.x + q.axisV[1] * axis.y;
    lo = o + std::min(0.0f, u) + std::min(0.0f, v);
    hi = o + std::max(0.0f, u) + std::max(0.0f, v);
}

// Separating axes: the tile's (its bounds, already met by the caller's box) and the quad's edge
// normals. `grow` widens the quad for pixel centres on its edges.
bool overlapsTile(const TextQuad& q, float x0, float y0, float x1, float y1) {
    const Vec2 normals[2] = {{-q.axisU[1], q.axisU[0]}, {-q.axisV[1], q.axisV[0]}};
    for (const Vec2& n : normals) {
        const float length = std::hypot(n.x, n.y);
        if (!(length > 0.0f)) return false;
        float lo, hi;
        project(q, n, lo, hi);
        const float grow = length; // one pixel along the unit normal, ample for the half pixel
        const float a = x0 * n.x + y0 * n.y, b = x1 * n.x + y0 * n.y;
        const float c = x0 * n.x + y1 * n.y, d = x1 * n.x + y1 * n.y;
        if (std::max({a, b, c, d}) < lo - grow || std::min({a, b, c, d}) > hi + grow) return false;
    }
    return true;
}

bool finiteQuad(const TextQuad& q) {
    for (float f : {q.origin[0], q.origin[1], q.axisU[0], q.axisU[1], q.axisV[0], q.axisV[1]})
        if (!std::isfinite(f)) return false;
    return true;
}

} // namespace

void binTextQuads(std::span<const TextQuad> quads, std::span<const VkRect2D> clips,
                  VkExtent2D extent, TextTiles& out) {
    const uint32_t tilesX = (extent.width + kTile - 1) / kTile;
    const uint32_t tilesY = (extent.height + kTile - 1) / kTile;
    out.pairs.clear();
    out.counts.assign(size_t(tilesX) * tilesY, 0u);
    for (uint32_t i = 0; i < quads.size(); ++i) {
        const TextQuad& q = quads[i];
        const uint32_t clipIndex = std::bit_cast<uint32_t>(q.extra[1]);
        if (clipIndex >= clips.size() || !finiteQuad(q)) continue;
        const VkRect2D& clip = clips[clipIndex];
        float lo[2], hi[2];
        project(q, {1, 0}, lo[0], hi[0]);
        project(q, {0, 1}, lo[1], hi[1]);
        // The pixels whose centres may be inside, within the clip and the picture.
        const auto first = [](float from, int64_t bound) {
            return std::max<int64_t>(bound, int64_t(std::floor(from - 0.5f)));
        };
        const auto last = [](float to, int64_t bound) {
            return std::min<int64_t>(bound, int64_t(std::ceil(to - 0.5f)));
        };
        const int64_t px0 = first(lo[0], std::max<int64_t>(clip.offset.x, 0));
        const int64_t py0 = first(lo[1], std::max<int64_t>(clip.offset.y, 0));
        const int64_t px1 = last(
            hi[0], std::min<int64_t>(int64_t(clip.offset.x) + clip.extent.width, extent.width) - 1);
        const int64_t py1 =
            last(hi[1],
                 std::min<int64_t>(int64_t(clip.offset.y) + clip.extent.height, extent.height) - 1);
        if (px1 < px0 || py1 < py0) continue;
        const bool axisAligned = (q.axisU[0] == 0.0f || q.axisU[1] == 0.0f) &&
                                 (q.axisV[0] == 0.0f || q.axisV[1] == 0.0f);
        for (int64_t ty = py0 / kTile; ty <= py1 / kTile; ++ty)
            for (int64_t tx = px0 / kTile; tx <= px1 / kTile; ++tx) {
                const float x0 = float(tx * kTile), y0 = float(ty * kTile);
                if (!axisAligned && !overlapsTile(q, x0, y0, x0 + kTile, y0 + kTile)) continue;
                const uint32_t tile = uint32_t(ty) * tilesX + uint32_t(tx);
                out.pairs.emplace_back(tile, i);
                ++out.counts[tile];
            }
    }
    // Tiles in row order, each list in drawing order (a stable counting sort of the pairs).
    out.tileCount = 0;
    for (uint32_t c : out.counts)
        out.tileCount += c > 0;
    out.clipBase = 4 * out.tileCount;
    out.indexBase = out.clipBase + 4 * uint32_t(clips.size());
    out.words.assign(size_t(out.indexBase) + out.pairs.size(), 0u);
    uint32_t slot = 0, next = 0;
    for (uint32_t tile = 0; tile < out.counts.size(); ++tile) {
        const uint32_t count = out.counts[tile];
        if (count == 0) continue;
        uint32_t* entry = &out.words[4 * size_t(slot)];
        entry[0] = (tile % tilesX) | ((tile / tilesX) << 16);
        entry[1] = next, entry[2] = count;
        out.counts[tile] = next; // from here on: where the tile's next index goes
        next += count;
        ++slot;
    }
    for (size_t k = 0; k < clips.size(); ++k) {
        const VkRect2D& c = clips[k];
        uint32_t* entry = &out.words[out.clipBase + 4 * k];
        entry[0] = uint32_t(std::max(c.offset.x, 0));
        entry[1] = uint32_t(std::max(c.offset.y, 0));
        entry[2] = uint32_t(std::max<int64_t>(int64_t(c.offset.x) + c.extent.width, 0));
        entry[3] = uint32_t(std::max<int64_t>(int64_t(c.offset.y) + c.extent.height, 0));
    }
    for (const auto& [tile, quad] : out.pairs)
        out.words[out.indexBase + out.counts[tile]++] = quad;
}

bool quadCoversPixel(const TextQuad& q, uint32_t x, uint32_t y) {
    const float cx = float(x) + 0.5f - q.origin[0], cy = float(y) + 0.5f - q.origin[1];
    const float det = q.axisU[0] * q.axisV[1] - q.axisU[1] * q.axisV[0];
    if (det == 0.0f || !std::isfinite(det)) return false;
    const float s = (cx * q.axisV[1] - cy * q.axisV[0]) / det;
    const float t = (q.axisU[0] * cy - q.axisU[1] * cx) / det;
    const auto inside = [](float p, const float* axis) {
        const bool forward = axis[0] != 0.0f ? axis[0] > 0.0f : axis[1] > 0.0f;
        return forward ? (p >= 0.0f && p < 1.0f) : (p > 0.0f && p <= 1.0f);
    };
    return inside(s, q.axisU) && inside(t, q.axisV);
}

} // namespace estuary
