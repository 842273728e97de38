// Slabs in host memory (estuary_create_slabs with ESTUARY_WRITER_HOST), headless on lavapipe:
// a heat equation stepped slab by slab, several steps between exchanges (as many as the halo is
// deep), gathered into an image every frame and read back from the draw, is bit for bit the
// whole field stepped at once, for 1, 2 and 3 slabs, open and periodic; exchanges fill exactly
// the halos they should; bad descs and calls are refused naming the value.
#include "heat_slabs.h"
#include "library_support.h"

#include <cstring>
#include <tuple>

namespace estuary {
namespace {

constexpr uint32_t kWidth = 37, kHeight = 29; // rows that split unevenly into 2 and 3 slabs

// `steps` steps of one host slab, in place: rows 1..R-2 from their neighbours, except (open
// boundary) rows outside the field, which keep their value; rows 0 and R-1 are left.
void stepSlab(const estuary_slab& s, uint32_t fieldHeight, bool periodic, int steps) {
    const uint32_t rows = s.height;
    float* data = static_cast<float*>(s.data);
    std::vector<float> next(data, data + size_t(rows) * s.width);
    for (int k = 0; k < steps; ++k) {
        for (uint32_t r = 1; r + 1 < rows; ++r) {
            const int64_t global = int64_t(s.first) - s.halo + r;
            if (!periodic && (global < 0 || global >= int64_t(fieldHeight))) continue;
            for (uint32_t x = 0; x < s.width; ++x)
                next[size_t(r) * s.width + x] = heat::cell(data, s.width, x, r);
        }
        std::memcpy(data, next.data(), next.size() * sizeof(float));
    }
}

// Each slab's own rows as the field's initial values.
void seed(const Slabs& slabs) {
    for (uint32_t i = 0; i < slabs.count(); ++i) {
        const estuary_slab s = slabs.slab(i);
        for (uint32_t r = 0; r < s.count; ++r)
            for (uint32_t x = 0; x < s.width; ++x)
                static_cast<float*>(s.data)[size_t(s.halo + r) * s.width + x] =
                    heat::initial(x, s.first + r);
    }
}

estuary_slabs_desc heatDesc(uint32_t slabs, uint32_t halo, bool periodic) {
    estuary_slabs_desc d{.format = ESTUARY_FORMAT_R32_FLOAT, .width = kWidth, .height = kHeight};
    d.halo = halo;
    d.slabs = slabs;
    d.boundary = periodic ? ESTUARY_SLAB_BOUNDARY_PERIODIC : ESTUARY_SLAB_BOUNDARY_OPEN;
    d.writer = ESTUARY_WRITER_HOST;
    d.name = "heat";
    return d;
}

class SlabsHeat : public LibraryTest,
                  public ::testing::WithParamInterface<std::tuple<uint32_t, bool>> {};

TEST_P(SlabsHeat, GatheredFieldIsBitIdenticalToTheWholeFieldEveryFrame) {
    const auto [count, periodic] = GetParam();
    const uint32_t halo = 3; // steps per exchange
    const int frames = 4;
    Viewer& v = open();
    Image field = v.image(hostImage(kWidth, kHeight, "heat"));
    View view = v.fieldView({.image = field.get()});
    Slabs slabs = v.slabs(heatDesc(count, halo, periodic));
    ASSERT_EQ(slabs.count(), count);
    seed(slabs);
    slabs.exchange();
    std::vector<std::vector<float>> shown(frames, std::vector<float>(size_t(kWidth) * kHeight));
    for (int f = 0; f < frames; ++f) {
        const Frame frame = v.beginFrame();
        for (uint32_t i = 0; i < count; ++i)
            stepSlab(slabs.slab(i), kHeight, periodic, int(halo));
        slabs.exchange();
        slabs.gather(frame, field);
        frame.readImage(field, 0, 0, 0, kWidth, kHeight, shown[f].data());
        frame.end();
    }
    v.finish();
    for (int f = 0; f < frames; ++f) {
        const std::vector<float> expected =
            heat::reference(kWidth, kHeight, periodic, (f + 1) * int(halo));
        ASSERT_EQ(std::memcmp(shown[f].data(), expected.data(), expected.size() * sizeof(float)), 0)
            << count << " slabs, frame " << f << ": the gathered field differs from the whole "
            << "field stepped " << (f + 1) * halo << " times";
    }
    // The field moved: a test whose field stood still would prove nothing.
    EXPECT_NE(std::memcmp(shown[0].data(), shown[frames - 1].data(), shown[0].size() * 4), 0);
}

INSTANTIATE_TEST_SUITE_P(Slabs, SlabsHeat,
                         ::testing::Combine(::testing::Values(1u, 2u, 3u), ::testing::Bool()),
                         [](const auto& test) {
                             return std::to_string(std::get<0>(test.param)) + "Slabs" +
                                    (std::get<1>(test.param) ? "Periodic" : "Open");
                         });

using SlabsTest = LibraryTest;

// Every own row holds its global row number, every halo -1; after one exchange each halo holds
// the rows above and below its slab (wrapped where periodic); open edges keep their -1.
void checkExchange(uint32_t depth, bool periodic) {
    Viewer v(headless());
    estuary_slabs_desc d = heatDesc(3, 2, periodic);
    d.depth = depth;
    d.height = depth > 1 ? 4 : 11;
    Slabs slabs = v.slabs(d);
    const uint32_t planes = depth > 1 ? depth : d.height;
    for (uint32_t i = 0; i < 3; ++i) {
        const estuary_slab s = slabs.slab(i);
        const size_t cells = s.plane_pitch / sizeof(float);
        for (uint32_t p = 0; p < s.count + 2 * s.halo; ++p) {
            const bool own = p >= s.halo && p < s.halo + s.count;
            std::fill_n(static_cast<float*>(s.data) + p * cells, cells,
                        own ? float(s.first + p - s.halo) : -1.0f);
        }
    }
    slabs.exchange();
    for (uint32_t i = 0; i < 3; ++i) {
        const estuary_slab s = slabs.slab(i);
        const size_t cells = s.plane_pitch / sizeof(float);
        for (uint32_t p = 0; p < s.count + 2 * s.halo; ++p) {
            const int64_t global = int64_t(s.first) - s.halo + p;
            const bool outside = global < 0 || global >= int64_t(planes);
            const float expected = outside && !periodic ? -1.0f : float((global + planes) % planes);
            for (size_t c = 0; c < cells; ++c)
                ASSERT_EQ(static_cast<float*>(s.data)[p * cells + c], expected)
                    << "slab " << i << " plane " << p << " cell " << c;
        }
    }
    EXPECT_EQ(v.close(), 0u);
}

TEST_F(SlabsTest, ExchangeFillsEachHaloFromItsNeighbourIn2d) {
    checkExchange(1, false);
    checkExchange(1, true);
}

TEST_F(SlabsTest, ExchangeFillsEachHaloFromItsNeighbourIn3d) {
    checkExchange(7, false);
    checkExchange(7, true);
}

TEST_F(SlabsTest, SlabDescribesItsMemoryAndPlace) {
    Viewer& v = open();
    estuary_slabs_desc d = heatDesc(3, 2, false);
    d.depth = 8;
    d.height = 5;
    Slabs slabs = v.slabs(d);
    const estuary_slabs_info info = slabs.info();
    EXPECT_EQ(info.slabs, 3u);
    EXPECT_EQ(info.devices, 1u);
    EXPECT_EQ(info.halo, 2u);
    EXPECT_EQ(info.writer, ESTUARY_WRITER_HOST);
    EXPECT_EQ(info.texel_bytes, 4u);
    const estuary_slab s = slabs.slab(1); // slices 3..5 of 8 (3, 3, 2)
    EXPECT_EQ(s.cuda_device, -1);
    EXPECT_EQ(s.stream, nullptr);
    EXPECT_EQ(s.first, 3u);
    EXPECT_EQ(s.count, 3u);
    EXPECT_EQ(s.width, kWidth);
    EXPECT_EQ(s.height, 5u);
    EXPECT_EQ(s.depth, 3u + 4u);
    EXPECT_EQ(s.pitch, kWidth * 4u);
    EXPECT_EQ(s.plane_pitch, kWidth * 5u * 4u);
}

TEST_F(SlabsTest, BadDescsAreRefusedNamingTheValue) {
    Viewer& v = open();
    const auto make = [&](estuary_slabs_desc d) { return v.slabs(d); };
    estuary_slabs_desc d = heatDesc(2, 0, false);
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "desc.halo is 0", "allowed: 1..14");
    d = heatDesc(2, 15, false);
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "desc.halo 15",
                   "thinnest slab (14 rows", "allowed: 1..14");
    d = heatDesc(30, 1, false);
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "too small to split", "29 rows",
                   "desc.height", "at most 29 slabs");
    d = heatDesc(2, 1, false);
    d.depth = 3;
    d.slabs = 4;
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "3 slices", "desc.depth");
    d = heatDesc(2, 1, false);
    d.devices = 2;
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "desc.devices 2", "host memory",
                   "allowed: 0 or 1");
    d = heatDesc(2, 1, false);
    d.writer = ESTUARY_WRITER_CUDA;
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_UNSUPPORTED, "ESTUARY_WRITER_CUDA", "no CUDA");
    d = heatDesc(2, 1, false);
    d.width = 0;
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "desc.width 0");
    d = heatDesc(2, 1, false);
    d.format = outOfRange<estuary_format>(9);
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "desc.format 9");
    d = heatDesc(2, 1, false);
    d.boundary = outOfRange<estuary_slab_boundary>(2);
    EXPECT_REFUSED(make(d), ESTUARY_ERROR_INVALID_ARGUMENT, "desc.boundary 2");
    d.struct_size = 0;
    estuary_slabs* raw = nullptr;
    EXPECT_EQ(estuary_create_slabs(v.get(), &d, &raw), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("struct_size is 0"), std::string::npos);
}

TEST_F(SlabsTest, BadCallsAreRefusedNamingTheValue) {
    Viewer& v = open();
    Slabs slabs = v.slabs(heatDesc(2, 1, false));
    EXPECT_REFUSED(slabs.slab(2), ESTUARY_ERROR_INVALID_ARGUMENT, "index 2 of the 2 slabs",
                   "allowed: 0..1");
    Image small = v.image(hostImage(kWidth, kHeight - 1, "small"));
    estuary_image_desc rgba = hostImage(kWidth, kHeight, "rgba");
    rgba.format = ESTUARY_FORMAT_RGBA8_UNORM;
    Image wrongFormat = v.image(rgba);
    Image field = v.image(hostImage(kWidth, kHeight, "field"));
    {
        const Frame frame = v.beginFrame();
        EXPECT_REFUSED(slabs.gather(frame, small), ESTUARY_ERROR_INVALID_ARGUMENT,
                       "small is 37 x 28", "37 x 29");
        EXPECT_REFUSED(slabs.gather(frame, wrongFormat), ESTUARY_ERROR_INVALID_ARGUMENT,
                       "rgba: its format 4");
        slabs.gather(frame, field);
        frame.end();
        EXPECT_REFUSED(slabs.gather(frame, field), ESTUARY_ERROR_INVALID_HANDLE, "frame has ended");
    }
    estuary_slabs* stale = slabs.get();
    slabs.destroy();
    EXPECT_EQ(estuary_slabs_exchange(stale), ESTUARY_ERROR_INVALID_HANDLE);
    EXPECT_EQ(estuary_destroy_slabs(v.get(), stale), ESTUARY_ERROR_INVALID_HANDLE);
    EXPECT_EQ(estuary_slabs_exchange(reinterpret_cast<estuary_slabs*>(field.get())),
              ESTUARY_ERROR_INVALID_HANDLE);
    EXPECT_NE(std::string(estuary_last_error()).find("a handle of an image, not of a slabs"),
              std::string::npos)
        << estuary_last_error();
    EXPECT_EQ(estuary_destroy_slabs(v.get(), nullptr), ESTUARY_OK);
}

} // namespace
} // namespace estuary
