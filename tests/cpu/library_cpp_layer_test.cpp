// The C++ layer (estuary.hpp) over the C API, headless on whatever Vulkan device there is
// (lavapipe in CI): every owner (View included) frees its handle when it goes and moves without
// throwing; a Frame from beginFrame ends its frame when its scope is left, by an exception too;
// a destroy the library refuses throws from destroy() and is reported, not dropped, from a
// destructor; the Viewer's validation messages reach the caller from close() and, where close()
// was not called, from its destructor.
#include "library_support.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace estuary {
namespace {

// Moves that cannot throw: a std::vector of owners grows by moving them, and an owner's move
// assignment destroys what it held without throwing.
static_assert(std::is_nothrow_move_constructible_v<Viewer> &&
              std::is_nothrow_move_assignable_v<Viewer>);
static_assert(std::is_nothrow_move_constructible_v<Image> &&
              std::is_nothrow_move_assignable_v<Image>);
static_assert(std::is_nothrow_move_constructible_v<Buffer> &&
              std::is_nothrow_move_assignable_v<Buffer>);
static_assert(std::is_nothrow_move_constructible_v<View> &&
              std::is_nothrow_move_assignable_v<View>);
static_assert(std::is_nothrow_move_constructible_v<Frame> &&
              std::is_nothrow_move_assignable_v<Frame>);
// One owner per handle.
static_assert(!std::is_copy_constructible_v<Viewer> && !std::is_copy_assignable_v<Viewer>);
static_assert(!std::is_copy_constructible_v<Image> && !std::is_copy_assignable_v<Image>);
static_assert(!std::is_copy_constructible_v<Buffer> && !std::is_copy_assignable_v<Buffer>);
static_assert(!std::is_copy_constructible_v<View> && !std::is_copy_assignable_v<View>);
static_assert(!std::is_copy_constructible_v<Frame> && !std::is_copy_assignable_v<Frame>);

// What a viewer logs as errors, which is where the owners' destructors report.
struct ErrorLog {
    std::vector<std::string> errors;

    static void collect(void* user, estuary_log_level level, const char* message) {
        if (level == ESTUARY_LOG_ERROR) static_cast<ErrorLog*>(user)->errors.emplace_back(message);
    }
    // The first error containing every part, taken out of the log; "" when there is none.
    std::string take(std::initializer_list<const char*> parts) {
        const auto found = std::find_if(errors.begin(), errors.end(), [&](const std::string& e) {
            return std::all_of(parts.begin(), parts.end(),
                               [&](const char* part) { return e.find(part) != std::string::npos; });
        });
        if (found == errors.end()) return "";
        std::string error = *found;
        errors.erase(found);
        return error;
    }
};

ViewerDesc logging(ErrorLog& log, ViewerDesc desc = headless(2, 64, 64)) {
    desc.log = &ErrorLog::collect;
    desc.log_user = &log;
    return desc;
}

estuary_image_desc hostField(const char* name = "field") {
    return {.format = ESTUARY_FORMAT_R32_FLOAT,
            .kind = ESTUARY_IMAGE_2D,
            .width = 8,
            .height = 8,
            .levels = 1,
            .writer = ESTUARY_WRITER_HOST,
            .name = name};
}

// A viewer whose log is kept: the test fails on any validation message and on any error
// reported that the test did not take out of the log.
class CppLayerTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (viewer) {
            EXPECT_EQ(viewer->close(), 0u) << "validation messages (printed above)";
        }
        for (const std::string& error : log.errors)
            ADD_FAILURE() << "reported, not expected: " << error;
    }
    Viewer& open() { return viewer.emplace(logging(log)); }
    // The picture's middle pixel, where an 8x8 field view (no colorbar) draws.
    std::array<int, 3> middle() {
        std::vector<uint8_t> rgba(size_t(64) * 64 * 4);
        check(estuary_read_pixels(viewer->get(), rgba.data(), rgba.size()));
        const size_t i = (size_t(32) * 64 + 32) * 4;
        return {rgba[i], rgba[i + 1], rgba[i + 2]};
    }
    // A frame writing `value` into every texel of `image`.
    void drawFrame(const Image& image, float value) {
        const Frame frame = viewer->beginFrame();
        std::fill_n(frame.hostLevel<float>(image), 64, value);
        frame.end();
    }

    ErrorLog log; // declared first: it outlives the viewer
    std::optional<Viewer> viewer;
};

constexpr std::array<int, 3> kBackground{20, 20, 26}, kViridisLast{253, 231, 37};

TEST(CppLayer, ViewerDescFillsItsSizeAndVersionAndLeavesTheRestZero) {
    const ViewerDesc d;
    EXPECT_EQ(d.struct_size, sizeof(estuary_viewer_desc));
    EXPECT_EQ(d.api_version, uint32_t(ESTUARY_API_VERSION));
    EXPECT_EQ(d.width, 0u);
    EXPECT_EQ(d.flags, 0u);
    EXPECT_EQ(d.log, nullptr);
    const estuary_image_desc image = hostField();
    EXPECT_EQ(image.struct_size, sizeof(estuary_image_desc)) << "a designated initializer";
}

// The layer in one scope (docs/LIBRARY.md quotes it): owners made in order, a frame guarded, a
// refused destroy thrown, the viewer closed with its validation count.
TEST(CppLayer, OwnersFreeWhatTheyHoldAndRefusalsReachTheCaller) {
    ErrorLog log;
    Viewer viewer(logging(log));
    Image field = viewer.image({.format = ESTUARY_FORMAT_R32_FLOAT,
                                .kind = ESTUARY_IMAGE_2D,
                                .width = 8,
                                .height = 8,
                                .levels = 1,
                                .name = "field"});
    View view = viewer.fieldView({.image = field.get()}); // drawn while `view` lives
    {
        const Frame frame = viewer.beginFrame(); // ends the frame when it goes, by an exception too
        std::fill_n(frame.hostLevel<float>(field), 64, 0.5f);
        frame.end(); // ends it here, throwing what goes wrong
    }
    EXPECT_THROW(field.destroy(), Error); // a view draws it: refused, and `field` keeps it
    view.destroy();
    field.destroy();
    EXPECT_EQ(viewer.close(), 0u); // the validation layer's messages over the viewer's life
    EXPECT_TRUE(log.errors.empty()) << log.errors.front();
}

TEST_F(CppLayerTest, AViewIsDrawnWhileItsOwnerLivesAndDestroyedWhenItGoes) {
    Viewer& v = open();
    Image field = v.image(hostField());
    estuary_view* handle = nullptr;
    {
        View view = v.fieldView({.image = field.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
        handle = view.get();
        ASSERT_NE(handle, nullptr);
        drawFrame(field, 1.0f);
        EXPECT_TRUE(near(middle(), kViridisLast)) << "the view draws the field";
    }
    estuary_view_params params{};
    EXPECT_EQ(estuary_get_view_params(handle, &params), ESTUARY_ERROR_INVALID_HANDLE)
        << "the view outlived its View";
    drawFrame(field, 1.0f);
    EXPECT_TRUE(near(middle(), kBackground)) << "a view destroyed still draws";
    field.destroy(); // no view draws it any more
    EXPECT_FALSE(field);
}

TEST_F(CppLayerTest, ADiscardedViewGoesAtOnceAndAReleasedOneStaysWithTheViewer) {
    Viewer& v = open();
    Image field = v.image(hostField());
    (void)v.fieldView({.image = field.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    drawFrame(field, 1.0f);
    EXPECT_TRUE(near(middle(), kBackground)) << "a discarded View's view still draws";

    View view = v.fieldView({.image = field.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    estuary_view* kept = view.release();
    EXPECT_FALSE(view);
    EXPECT_EQ(view.get(), nullptr);
    drawFrame(field, 1.0f);
    EXPECT_TRUE(near(middle(), kViridisLast)) << "a released view is the viewer's to draw";
    EXPECT_REFUSED(field.destroy(), ESTUARY_ERROR_INVALID_ARGUMENT, "drawn by 1 view(s)");
    check(estuary_destroy_view(v.get(), kept)); // a released view is destroyed through the C API
}

TEST_F(CppLayerTest, DestroyOfAnImageOrBufferAViewDrawsThrowsAndKeepsIt) {
    Viewer& v = open();
    Image field = v.image(hostField("pressure"));
    View view = v.fieldView({.image = field.get()});
    const auto [status, refusal] = failure([&] { field.destroy(); });
    EXPECT_EQ(status, ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(refusal.find("estuary_destroy_image: pressure is drawn by 1 view(s): destroy them "
                           "first"),
              std::string::npos)
        << refusal;
    EXPECT_TRUE(field) << "a refused destroy() keeps the handle";

    Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST, .name = "particles"});
    View points = v.pointsView({.buffer = buffer.get()});
    EXPECT_REFUSED(buffer.destroy(), ESTUARY_ERROR_INVALID_ARGUMENT, "estuary_destroy_buffer",
                   "particles is drawn by 1 view(s)");
    EXPECT_TRUE(buffer);

    points.destroy();
    view.destroy();
    EXPECT_FALSE(points || view);
    EXPECT_NO_THROW(field.destroy());
    EXPECT_NO_THROW(buffer.destroy());
    EXPECT_FALSE(field || buffer);
    EXPECT_NO_THROW(field.destroy()) << "an empty owner has nothing to destroy";
}

TEST_F(CppLayerTest, ARefusedDestroyInADestructorIsReportedThroughTheViewersLog) {
    Viewer& v = open();
    View view; // declared before the image: it outlives it, and the image cannot go
    {
        Image field = v.image(hostField());
        view = v.fieldView({.image = field.get()});
    }
    const std::string reported = log.take({"estuary::Image could not destroy its image"});
    EXPECT_NE(reported.find("field is drawn by 1 view(s): destroy them first"), std::string::npos)
        << (reported.empty() ? "nothing reported" : reported);
    EXPECT_NE(reported.find("left to the viewer"), std::string::npos) << reported;
    view.destroy(); // the image stays with the viewer, which frees it when closed
}

TEST(CppLayer, WithoutALogCallbackARefusedDestroyIsReportedOnStandardError) {
    Viewer v(headless(2, 64, 64));
    View view;
    testing::internal::CaptureStderr();
    {
        Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST, .name = "particles"});
        view = v.pointsView({.buffer = buffer.get()});
    }
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("estuary: error: estuary::Buffer could not destroy its buffer"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("particles is drawn by 1 view(s)"), std::string::npos) << err;
    view.destroy();
    EXPECT_EQ(v.close(), 0u);
}

TEST_F(CppLayerTest, AFrameLeftByAnExceptionIsEndedAndTheNextBeginWorks) {
    Viewer& v = open();
    Image field = v.image(hostField());
    View view = v.fieldView({.image = field.get()});
    uint64_t thrown = 0;
    float seen = -1;
    EXPECT_THROW(
        {
            const Frame frame = v.beginFrame();
            thrown = frame.index();
            std::fill_n(frame.hostLevel<float>(field), 64, 0.75f);
            frame.readImage(field, 0, 0, 0, 1, 1, &seen);
            throw std::runtime_error("the program's own failure, mid-frame");
        },
        std::runtime_error);
    // estuary_begin_frame refuses to begin while a frame is open: the guard ended it.
    const Frame next = v.beginFrame();
    EXPECT_EQ(next.index(), thrown + 1);
    next.end();
    v.waitFrame(thrown);
    EXPECT_EQ(seen, 0.75f) << "the frame left by the exception is drawn with what it was given";

    // The same for an estuary::Error thrown mid-frame.
    const auto refusedMidFrame = [&] {
        const Frame frame = v.beginFrame();
        (void)frame.hostLevel(field, 3);
    };
    EXPECT_REFUSED(refusedMidFrame(), ESTUARY_ERROR_INVALID_ARGUMENT, "level 3 of 1");
    EXPECT_NO_THROW(v.beginFrame().end());
}

TEST_F(CppLayerTest, AFrameEndedExplicitlyIsEndedOnceAndASecondEndThrows) {
    Viewer& v = open();
    uint64_t index = 0;
    {
        const Frame frame = v.beginFrame();
        index = frame.index();
        frame.end();
        EXPECT_REFUSED(frame.end(), ESTUARY_ERROR_INVALID_HANDLE, "the frame has ended");
    } // its guard does not end it again: nothing is reported
    EXPECT_EQ(v.nextFrameIndex(), index + 1);

    // A moved frame is ended once, by its last owner; assigning over an open frame ends it.
    Frame first = v.beginFrame();
    Frame second = std::move(first);
    EXPECT_EQ(first.get(), nullptr); // NOLINT(bugprone-use-after-move): what a move leaves
    second = Frame(nullptr);
    EXPECT_NO_THROW(v.beginFrame().end());
    EXPECT_EQ(v.nextFrameIndex(), index + 3);
}

TEST(CppLayer, AFrameOutlivingItsViewerIsLeftAlone) {
    ErrorLog log;
    std::optional<Frame> frame;
    {
        Viewer v(logging(log));
        frame.emplace(v.beginFrame());
        EXPECT_EQ(v.close(), 0u); // inside the frame: the viewer ends everything it made
    }
    frame.reset(); // no end of a frame of a viewer that is gone, nothing reported
    EXPECT_TRUE(log.errors.empty()) << log.errors.front();
}

TEST_F(CppLayerTest, OwnersStayWithTheirViewerWhenTheViewerMoves) {
    Viewer& v = open();
    Image field = v.image(hostField());
    Viewer moved = std::move(v);
    EXPECT_EQ(v.get(), nullptr); // NOLINT(bugprone-use-after-move): what a move leaves
    View view = moved.fieldView({.image = field.get()});
    EXPECT_TRUE(field && view);
    view.destroy();
    EXPECT_EQ(moved.close(), 0u);
    EXPECT_FALSE(field) << "the viewer it was made from is closed";
    viewer.reset();
}

// Validation messages on purpose: the validation layer's best-practices checks warn about what a
// correct program does (on lavapipe, among others, that the device is a CPU). ESTUARY_VALIDATION
// as the test says (unset: from the viewer's flag only; "1": estuary_destroy_viewer fails).
test::ScopedEnv::Settings bestPractices(std::optional<std::string> estuaryValidation) {
    return {{"VK_LAYER_ENABLES", "VK_VALIDATION_FEATURE_ENABLE_BEST_PRACTICES_EXT"},
            {"ESTUARY_VALIDATION", std::move(estuaryValidation)}};
}

TEST(CppLayer, CloseReturnsTheValidationMessagesAndTheDestructorReportsThem) {
    const test::ScopedEnv warnings(bestPractices(std::nullopt));
    {
        Viewer v(headless(2, 64, 64));
        const uint32_t counted = v.validationMessages();
        if (counted == 0) GTEST_SKIP() << "the best-practices checks report nothing here";
        EXPECT_GE(v.close(), counted) << "close() returns every message of the viewer's life";
    }
    ErrorLog log;
    {
        const Viewer v(logging(log));
        ASSERT_GT(v.validationMessages(), 0u);
    } // not closed: the destructor says so
    const std::string reported = log.take({"estuary::Viewer destroyed without close()"});
    EXPECT_NE(reported.find("the validation layer reported"), std::string::npos)
        << (reported.empty() ? "nothing reported" : reported);
}

TEST(CppLayer, WithEstuaryValidationSetCloseThrowsAndTheDestructorReportsTheFailure) {
    const test::ScopedEnv warnings(bestPractices("1"));
    ErrorLog log;
    ViewerDesc desc = logging(log);
    desc.flags = 0; // validation on by ESTUARY_VALIDATION=1 alone, which makes the destroy fail
    {
        Viewer v(desc);
        if (v.validationMessages() == 0)
            GTEST_SKIP() << "the best-practices checks report nothing here";
        EXPECT_REFUSED((void)v.close(), ESTUARY_ERROR_RUNTIME, "ESTUARY_VALIDATION=1",
                       "message(s)");
        EXPECT_EQ(v.get(), nullptr) << "closed all the same";
    }
    { const Viewer v(desc); }
    const std::string reported = log.take({"estuary::Viewer's destructor"});
    EXPECT_NE(reported.find("ESTUARY_VALIDATION=1"), std::string::npos)
        << (reported.empty() ? "nothing reported" : reported);
}

} // namespace
} // namespace estuary
