// Attribute descriptors (estuary_attribute) headless on lavapipe under validation, by the raster
// path and by the compute splat: each buffer view kind drawn from its preset layout and from the
// same data described channel by channel (separate arrays of float2 / float3 positions, half
// values, float sizes; interleaved structs of odd strides) must give the same picture, pixel for
// pixel, and picking must name the same element; and every bad description is refused with a
// message naming what is wrong.
#include "library_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace estuary {
namespace {

struct Marker {
    float x, y, z, value;
    float dx, dy, dz, size;
};
struct Vertex {
    float x, y, z, value;
};

// IEEE half of a float that one represents exactly (the tests' values are), or a test failure.
uint16_t half(float f) {
    if (f == 0.0f) return 0;
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    const uint32_t sign = bits >> 31, exponent = (bits >> 23) & 0xFF, mantissa = bits & 0x7FFFFF;
    const int e = int(exponent) - 127 + 15;
    EXPECT_TRUE(e > 0 && e < 31 && (mantissa & 0x1FFF) == 0) << f << " is not a normal half";
    return uint16_t(sign << 15 | uint32_t(e) << 10 | mantissa >> 13);
}

template <class T> std::vector<uint8_t> bytesOf(const std::vector<T>& items) {
    std::vector<uint8_t> bytes(items.size() * sizeof(T));
    std::memcpy(bytes.data(), items.data(), bytes.size());
    return bytes;
}

// Deterministic values in [lo, hi) on a grid of 1/64 (exact in half precision).
struct Grid {
    uint32_t state = 12345;
    float next(float lo, float hi) {
        state = state * 1664525u + 1013904223u;
        const float unit = float((state >> 8) % 64) / 64.0f;
        return lo + (hi - lo) * unit;
    }
};

std::vector<Marker> someMarkers(uint32_t n) {
    Grid g;
    std::vector<Marker> m(n);
    for (Marker& k : m)
        k = {g.next(0.05f, 0.95f), g.next(0.05f, 0.95f), 0.0f, g.next(0.0f, 1.0f),
             g.next(-1.0f, 1.0f),  g.next(-1.0f, 1.0f),  0.0f, g.next(0.5f, 2.0f)};
    return m;
}

class AttributesTest : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    Viewer& v() {
        if (!viewer) {
            ViewerDesc d = headless(2, 128, 128);
            d.draw_path = GetParam();
            LibraryTest::open(d);
        }
        return *viewer;
    }
    Buffer buffer(const std::vector<uint8_t>& bytes, const char* name) {
        Buffer b = v().buffer({.size = bytes.size(), .writer = ESTUARY_WRITER_HOST, .name = name});
        uploads.push_back({b.get(), bytes});
        return b;
    }
    // One frame: the buffers made since the last frame filled, the view drawn, picks at `at`.
    struct Drawn {
        std::vector<uint8_t> rgba;
        std::vector<estuary_pick> picks;
    };
    Drawn draw(View& view, const std::vector<std::array<float, 2>>& at = {}) {
        Drawn d;
        d.picks.resize(at.size(), estuary_pick{});
        const Frame frame = v().beginFrame();
        for (const auto& [b, bytes] : uploads) {
            void* data = nullptr;
            check(estuary_frame_host_pointer(frame.get(), b, &data));
            std::memcpy(data, bytes.data(), bytes.size());
        }
        for (size_t i = 0; i < at.size(); ++i)
            frame.pick(view, at[i][0], at[i][1], 2.0f, &d.picks[i]);
        frame.end();
        v().finish();
        d.rgba = pixels();
        view.destroy();
        uploads.clear();
        return d;
    }
    // Pictures equal byte for byte, and something drawn (not all one colour).
    void expectSame(const Drawn& preset, const Drawn& described) {
        ASSERT_EQ(preset.rgba.size(), described.rgba.size());
        size_t differing = 0, drawn = 0;
        for (size_t i = 0; i < preset.rgba.size(); i += 4) {
            differing += std::memcmp(&preset.rgba[i], &described.rgba[i], 3) != 0;
            drawn += std::memcmp(&preset.rgba[i], &preset.rgba[0], 3) != 0;
        }
        EXPECT_EQ(differing, 0u) << "pixels differ";
        EXPECT_GT(drawn, 200u) << "the preset drew (almost) nothing: the test proves nothing";
        ASSERT_EQ(preset.picks.size(), described.picks.size());
        for (size_t i = 0; i < preset.picks.size(); ++i) {
            EXPECT_EQ(preset.picks[i].hit, described.picks[i].hit) << "pick " << i;
            EXPECT_EQ(preset.picks[i].element, described.picks[i].element) << "pick " << i;
            EXPECT_EQ(preset.picks[i].value, described.picks[i].value) << "pick " << i;
        }
        EXPECT_TRUE(std::any_of(preset.picks.begin(), preset.picks.end(),
                                [](const estuary_pick& p) { return p.hit == 1; }))
            << "no pick hit: the picks prove nothing";
    }
    std::vector<std::pair<estuary_buffer*, std::vector<uint8_t>>> uploads;
};

// Where the markers' centres land on the 128 x 128 picture (the unit square fills it).
std::vector<std::array<float, 2>> centres(const std::vector<Marker>& m, size_t count = 8) {
    std::vector<std::array<float, 2>> at;
    for (size_t i = 0; i < std::min(count, m.size()); ++i)
        at.push_back({m[i].x * 128.0f, m[i].y * 128.0f});
    return at;
}

TEST_P(AttributesTest, MarkersFromSeparateFloat2HalfAndFloatArraysMatchThePreset) {
    const std::vector<Marker> markers = someMarkers(40);
    estuary_markers_view_desc d{.shape = ESTUARY_MARKER_SHAPE_ARROW, .size = 14.0f};
    Buffer packed = buffer(bytesOf(markers), "markers");
    d.buffer = packed.get();
    View presetView = v().markersView(d);
    const Drawn preset = draw(presetView, centres(markers));

    std::vector<float> xy, size;
    std::vector<uint16_t> value;
    std::vector<float> direction; // float3
    for (const Marker& m : markers) {
        xy.insert(xy.end(), {m.x, m.y});
        value.push_back(half(m.value));
        direction.insert(direction.end(), {m.dx, m.dy, m.dz});
        size.push_back(m.size);
    }
    Buffer xyBuffer = buffer(bytesOf(xy), "xy");
    Buffer valueBuffer = buffer(bytesOf(value), "value");
    Buffer directionBuffer = buffer(bytesOf(direction), "direction");
    Buffer sizeBuffer = buffer(bytesOf(size), "size");
    d.buffer = nullptr;
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(xyBuffer, ESTUARY_ATTRIBUTE_F32X2);
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(valueBuffer, ESTUARY_ATTRIBUTE_F16);
    d.attributes[ESTUARY_CHANNEL_DIRECTION] = attribute(directionBuffer, ESTUARY_ATTRIBUTE_F32X3);
    d.attributes[ESTUARY_CHANNEL_SIZE] = attribute(sizeBuffer, ESTUARY_ATTRIBUTE_F32);
    View soaView = v().markersView(d);
    EXPECT_EQ(soaView.params().point_count, 40u) << "count 0: as many as every channel holds";
    expectSame(preset, draw(soaView, centres(markers)));
}

TEST_P(AttributesTest, MarkersFromAnInterleavedStructOf28BytesMatchThePreset) {
    const std::vector<Marker> markers = someMarkers(30);
    estuary_markers_view_desc d{.shape = ESTUARY_MARKER_SHAPE_TRIANGLE, .size = 12.0f};
    Buffer packed = buffer(bytesOf(markers), "markers");
    d.buffer = packed.get();
    View presetView = v().markersView(d);
    const Drawn preset = draw(presetView, centres(markers));

    // The user's own struct: size, (x, y), half value and a half of padding, (dx, dy), a tag.
    struct Agent {
        float size, x, y;
        uint16_t value, unused;
        float dx, dy, tag;
    };
    static_assert(sizeof(Agent) == 28);
    std::vector<Agent> agents;
    for (const Marker& m : markers)
        agents.push_back({m.size, m.x, m.y, half(m.value), 0, m.dx, m.dy, 7.0f});
    Buffer own = buffer(bytesOf(agents), "agents");
    d.buffer = own.get();
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(nullptr, ESTUARY_ATTRIBUTE_F32X2, 4, 28);
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(nullptr, ESTUARY_ATTRIBUTE_F16, 12, 28);
    d.attributes[ESTUARY_CHANNEL_DIRECTION] = attribute(nullptr, ESTUARY_ATTRIBUTE_F32X2, 16, 28);
    d.attributes[ESTUARY_CHANNEL_SIZE] = attribute(nullptr, ESTUARY_ATTRIBUTE_F32, 0, 28);
    View interleaved = v().markersView(d);
    EXPECT_EQ(interleaved.params().point_count, 30u);
    expectSame(preset, draw(interleaved, centres(markers)));
}

TEST_P(AttributesTest, MarkersWithOnlyTheValueDescribedKeepThePresetsOtherChannels) {
    const std::vector<Marker> markers = someMarkers(20);
    estuary_markers_view_desc d{.shape = ESTUARY_MARKER_SHAPE_DISC, .size = 16.0f};
    Buffer packed = buffer(bytesOf(markers), "markers");
    d.buffer = packed.get();
    View presetView = v().markersView(d);
    const Drawn preset = draw(presetView, centres(markers));
    std::vector<uint16_t> values;
    for (const Marker& m : markers)
        values.push_back(half(m.value));
    Buffer packedAgain = buffer(bytesOf(markers), "markers again");
    Buffer valueBuffer = buffer(bytesOf(values), "values");
    d.buffer = packedAgain.get();
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(valueBuffer, ESTUARY_ATTRIBUTE_F16);
    View mixed = v().markersView(d);
    expectSame(preset, draw(mixed, centres(markers)));
}

TEST_P(AttributesTest, MarkersColouredByUnorm8x4MatchRgbaBits) {
    std::vector<Marker> markers = someMarkers(20);
    std::vector<uint32_t> colours;
    for (size_t i = 0; i < markers.size(); ++i) {
        const uint32_t c = 0xFF000000u | uint32_t(i * 12) | uint32_t(255 - i * 10) << 8 | 0x400000u;
        colours.push_back(c);
        std::memcpy(&markers[i].value, &c, sizeof(c));
    }
    estuary_markers_view_desc d{.shape = ESTUARY_MARKER_SHAPE_SQUARE, .size = 10.0f};
    d.flags = ESTUARY_MARKERS_RGBA;
    Buffer packed = buffer(bytesOf(markers), "markers");
    d.buffer = packed.get();
    View presetView = v().markersView(d);
    const Drawn preset = draw(presetView, centres(markers));
    Buffer packedAgain = buffer(bytesOf(markers), "markers again");
    Buffer colourBuffer = buffer(bytesOf(colours), "colours");
    d.buffer = packedAgain.get();
    d.flags = 0; // UNORM8X4 is a colour without the flag
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(colourBuffer, ESTUARY_ATTRIBUTE_UNORM8X4);
    View coloured = v().markersView(d);
    const Drawn described = draw(coloured, centres(markers));
    ASSERT_EQ(preset.rgba.size(), described.rgba.size());
    EXPECT_EQ(preset.rgba, described.rgba);
}

TEST_P(AttributesTest, Points2dFromFloat2AndHalfVelocityArraysMatchXyVelocity) {
    Grid g;
    std::vector<float> packed, xy;
    std::vector<uint16_t> velocity;
    for (int i = 0; i < 300; ++i) {
        const float x = g.next(0.0f, 1.0f), y = g.next(0.0f, 1.0f);
        const float vx = g.next(-1.0f, 1.0f), vy = g.next(-1.0f, 1.0f);
        packed.insert(packed.end(), {x, y, vx, vy});
        xy.insert(xy.end(), {x, y});
        velocity.insert(velocity.end(), {half(vx), half(vy)});
    }
    estuary_points_view_desc d{.layout = ESTUARY_POINTS_XY_VELOCITY, .size = 3.0f};
    d.intensity = 0.5f;
    Buffer main = buffer(bytesOf(packed), "points");
    d.buffer = main.get();
    View presetView = v().pointsView(d);
    const std::vector<std::array<float, 2>> at = {{packed[0] * 128, packed[1] * 128},
                                                  {packed[4] * 128, packed[5] * 128},
                                                  {packed[8] * 128, packed[9] * 128}};
    const Drawn preset = draw(presetView, at);
    Buffer xyBuffer = buffer(bytesOf(xy), "xy");
    Buffer velocityBuffer = buffer(bytesOf(velocity), "velocity");
    d.buffer = nullptr;
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(xyBuffer, ESTUARY_ATTRIBUTE_F32X2);
    d.attributes[ESTUARY_CHANNEL_DIRECTION] = attribute(velocityBuffer, ESTUARY_ATTRIBUTE_F16X2);
    View soa = v().pointsView(d);
    EXPECT_EQ(soa.params().point_count, 300u);
    expectSame(preset, draw(soa, at));
}

TEST_P(AttributesTest, Points3dFromAPackedFloat3AndAValueIn20ByteStructsMatchXyzScalar) {
    Grid g;
    std::vector<float> packed;
    struct Particle { // 20 bytes: value, position, a tag
        float value, x, y, z, tag;
    };
    std::vector<Particle> particles;
    std::vector<float> xyz;
    for (int i = 0; i < 200; ++i) {
        const float x = g.next(-0.5f, 0.5f), y = g.next(-0.5f, 0.5f), z = g.next(-0.5f, 0.5f);
        const float s = g.next(0.0f, 1.0f);
        packed.insert(packed.end(), {x, y, z, s});
        particles.push_back({s, x, y, z, 1.0f});
        xyz.insert(xyz.end(), {x, y, z});
    }
    estuary_points_view_desc d{.layout = ESTUARY_POINTS_XYZ_SCALAR, .size = 3.0f};
    d.intensity = 0.5f;
    Buffer main = buffer(bytesOf(packed), "points");
    d.buffer = main.get();
    View presetView = v().pointsView(d);
    const Drawn preset = draw(presetView);
    Buffer structs = buffer(bytesOf(particles), "particles");
    d.buffer = structs.get();
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(nullptr, ESTUARY_ATTRIBUTE_F32X3, 4, 20);
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(nullptr, ESTUARY_ATTRIBUTE_F32, 0, 20);
    View interleaved = v().pointsView(d);
    const Drawn described = draw(interleaved);
    EXPECT_EQ(preset.rgba, described.rgba);
    Buffer xyzBuffer = buffer(bytesOf(xyz), "xyz");
    Buffer structsAgain = buffer(bytesOf(particles), "particles again");
    d.buffer = structsAgain.get();
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(xyzBuffer, ESTUARY_ATTRIBUTE_F32X3);
    View separate = v().pointsView(d);
    EXPECT_EQ(preset.rgba, draw(separate).rgba);
}

TEST_P(AttributesTest, LinesFromFloat2HalfAndStridedIndicesMatchThePreset) {
    Grid g;
    std::vector<Vertex> vertices;
    std::vector<float> xy;
    std::vector<uint16_t> values;
    for (int i = 0; i < 24; ++i) {
        const Vertex vx{g.next(0.05f, 0.95f), g.next(0.05f, 0.95f), 0.0f, g.next(0.0f, 1.0f)};
        vertices.push_back(vx);
        xy.insert(xy.end(), {vx.x, vx.y});
        values.push_back(half(vx.value));
    }
    std::vector<uint32_t> indices, pairs; // pairs: (index, something) 8 bytes apart
    for (uint32_t i = 0; i < 20; ++i) {
        indices.push_back((i * 7) % 24);
        pairs.insert(pairs.end(), {(i * 7) % 24, 0xDEADu});
    }
    estuary_lines_view_desc d{.topology = ESTUARY_LINES_STRIP, .width = 3.0f};
    Buffer vertexBuffer = buffer(bytesOf(vertices), "vertices");
    Buffer indexBuffer = buffer(bytesOf(indices), "indices");
    d.vertices = vertexBuffer.get();
    d.indices = indexBuffer.get();
    View presetView = v().linesView(d);
    const std::vector<std::array<float, 2>> at = {
        {(vertices[0].x + vertices[7].x) * 64, (vertices[0].y + vertices[7].y) * 64},
        {(vertices[7].x + vertices[14].x) * 64, (vertices[7].y + vertices[14].y) * 64}};
    const Drawn preset = draw(presetView, at);
    Buffer xyBuffer = buffer(bytesOf(xy), "xy");
    Buffer valueBuffer = buffer(bytesOf(values), "values");
    Buffer pairBuffer = buffer(bytesOf(pairs), "index pairs");
    d.vertices = nullptr;
    d.indices = nullptr;
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(xyBuffer, ESTUARY_ATTRIBUTE_F32X2);
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(valueBuffer, ESTUARY_ATTRIBUTE_F16);
    d.attributes[ESTUARY_CHANNEL_INDEX] = attribute(pairBuffer, ESTUARY_ATTRIBUTE_U32, 0, 8);
    View soa = v().linesView(d);
    EXPECT_EQ(soa.params().point_count, 20u) << "count 0: the indices the index channel holds";
    expectSame(preset, draw(soa, at));
}

// A sheet of triangles under the orbit camera, smooth-shaded by the user's normals and by summed
// ones, flat, and with a wireframe (its corners pulled whole): float3 positions, half values,
// float3 normals and strided indices against the 16-byte vertices, 16-byte normals and packed
// indices.
TEST_P(AttributesTest, MeshesFromFloat3HalfAndStridedIndicesMatchThePreset) {
    constexpr uint32_t kSide = 9;
    std::vector<Vertex> vertices;
    std::vector<float> xyz, normals4, normals3;
    std::vector<uint16_t> values;
    for (uint32_t j = 0; j < kSide; ++j)
        for (uint32_t i = 0; i < kSide; ++i) {
            const float x = -0.4f + 0.1f * float(i), y = -0.4f + 0.1f * float(j);
            const float z = 0.125f * float((i * j) % 3), value = float((i + 2 * j) % 16) / 16.0f;
            vertices.push_back({x, y, z, value});
            xyz.insert(xyz.end(), {x, y, z});
            values.push_back(half(value));
            const float nx = 0.25f * float(i % 3), ny = 0.5f, nz = 1.0f;
            normals4.insert(normals4.end(), {nx, ny, nz, 0.0f});
            normals3.insert(normals3.end(), {nx, ny, nz});
        }
    std::vector<uint32_t> indices, strided;
    for (uint32_t j = 0; j + 1 < kSide; ++j)
        for (uint32_t i = 0; i + 1 < kSide; ++i) {
            const uint32_t p = j * kSide + i, q = p + kSide;
            for (uint32_t k : {p, q, p + 1, p + 1, q, q + 1}) {
                indices.push_back(k);
                strided.insert(strided.end(), {k, 7u, 7u});
            }
        }
    v().setCamera({.zoom = 1.0f, .yaw_degrees = 20.0f, .pitch_degrees = 30.0f});
    struct Case {
        estuary_mesh_shading shading;
        bool normals;
        uint32_t flags;
    };
    for (const Case c : {Case{ESTUARY_MESH_SMOOTH, true, 0}, Case{ESTUARY_MESH_SMOOTH, false, 0},
                         Case{ESTUARY_MESH_FLAT, false, ESTUARY_MESH_WIREFRAME}}) {
        SCOPED_TRACE(testing::Message() << "shading " << c.shading << ", normals " << c.normals);
        estuary_mesh_view_desc d{.shading = c.shading};
        d.flags = c.flags;
        d.label = "sheet"; // its colorbar's, the same in both pictures
        Buffer vertexBuffer = buffer(bytesOf(vertices), "vertices");
        Buffer indexBuffer = buffer(bytesOf(indices), "indices");
        std::optional<Buffer> normalBuffer;
        if (c.normals) normalBuffer = buffer(bytesOf(normals4), "normals");
        d.vertices = vertexBuffer.get();
        d.indices = indexBuffer.get();
        d.normals = c.normals ? normalBuffer->get() : nullptr;
        View presetView = v().meshView(d);
        const std::vector<std::array<float, 2>> at = {{64, 64}, {50, 70}};
        const Drawn preset = draw(presetView, at);
        Buffer xyzBuffer = buffer(bytesOf(xyz), "xyz");
        Buffer valueBuffer = buffer(bytesOf(values), "values");
        Buffer stridedBuffer = buffer(bytesOf(strided), "strided indices");
        std::optional<Buffer> normal3;
        d = estuary_mesh_view_desc{.shading = c.shading};
        d.flags = c.flags;
        d.label = "sheet";
        d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(xyzBuffer, ESTUARY_ATTRIBUTE_F32X3);
        d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(valueBuffer, ESTUARY_ATTRIBUTE_F16);
        d.attributes[ESTUARY_CHANNEL_INDEX] =
            attribute(stridedBuffer, ESTUARY_ATTRIBUTE_U32, 0, 12);
        if (c.normals) {
            normal3 = buffer(bytesOf(normals3), "normals3");
            d.attributes[ESTUARY_CHANNEL_NORMAL] = attribute(*normal3, ESTUARY_ATTRIBUTE_F32X3);
        }
        View soa = v().meshView(d);
        EXPECT_EQ(soa.params().point_count, uint32_t(indices.size()));
        expectSame(preset, draw(soa, at));
    }
}

TEST_P(AttributesTest, AChannelsBufferIsDrawnAndSoCannotBeDestroyedUnderTheView) {
    Buffer xy = v().buffer({.size = 64, .writer = ESTUARY_WRITER_HOST, .name = "xy"});
    Buffer value = v().buffer({.size = 16, .writer = ESTUARY_WRITER_HOST, .name = "value"});
    estuary_markers_view_desc d{};
    d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(xy, ESTUARY_ATTRIBUTE_F32X2);
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(value, ESTUARY_ATTRIBUTE_F32);
    View view = v().markersView(d);
    EXPECT_EQ(view.params().point_count, 4u) << "the least any channel holds: value's 16 bytes";
    EXPECT_REFUSED(value.destroy(), ESTUARY_ERROR_INVALID_ARGUMENT, "value is drawn by 1 view(s)");
    EXPECT_REFUSED(xy.destroy(), ESTUARY_ERROR_INVALID_ARGUMENT, "xy is drawn by 1 view(s)");
    view.destroy();
    value.destroy();
    xy.destroy();
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, AttributesTest,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
