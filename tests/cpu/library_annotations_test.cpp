// The C API's annotation settings on lavapipe: an image keeps the origin and spacing its desc
// gives (spacing 0: 1) and refuses bad ones saying which; estuary_set_view_legend takes a
// palette's names and refuses bad ones naming the entry.
#include "library_support.h"

#include <cmath>
#include <string>

namespace estuary {
namespace {

class LibraryAnnotations : public LibraryTest {};

TEST_F(LibraryAnnotations, AnImageKeepsItsOriginAndSpacing) {
    open();
    estuary_image_desc d = hostImage(8, 4);
    d.origin[0] = -1.5f;
    d.origin[1] = 2.0f;
    d.spacing[0] = 0.25f; // spacing[1] and [2] left 0: 1
    const Image image = viewer->image(d);
    const estuary_image_info info = image.info();
    EXPECT_EQ(info.origin[0], -1.5f);
    EXPECT_EQ(info.origin[1], 2.0f);
    EXPECT_EQ(info.spacing[0], 0.25f);
    EXPECT_EQ(info.spacing[1], 1.0f);
    EXPECT_EQ(info.spacing[2], 1.0f);
}

TEST_F(LibraryAnnotations, BadSpacingsAndOriginsAreRefusedNamingTheAxis) {
    open();
    estuary_image_desc d = hostImage(8, 4);
    d.spacing[1] = -0.5f;
    EXPECT_REFUSED(viewer->image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "spacing[1] (y)", "> 0");
    d.spacing[1] = NAN;
    EXPECT_REFUSED(viewer->image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "spacing[1]");
    d.spacing[1] = 1.0f;
    d.origin[2] = INFINITY;
    EXPECT_REFUSED(viewer->image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "origin[2] (z)");
}

TEST_F(LibraryAnnotations, AViewsLegendIsTakenOrRefusedSayingWhy) {
    open();
    const Image image = viewer->image(hostImage(4, 4));
    const View view = viewer->fieldView({.image = image.get(), .colormap = ESTUARY_COLORMAP_TAB10});
    const char* names[] = {"water", "sand", "rock"};
    EXPECT_EQ(estuary_set_view_legend(view.get(), names, 3), ESTUARY_OK) << estuary_last_error();
    EXPECT_EQ(estuary_set_view_legend(view.get(), nullptr, 0), ESTUARY_OK); // clears
    const char* withNull[] = {"water", nullptr};
    EXPECT_EQ(estuary_set_view_legend(view.get(), withNull, 2), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("names[1]"), std::string::npos)
        << estuary_last_error();
    const char* badUtf8[] = {"\xff\xfe"};
    EXPECT_EQ(estuary_set_view_legend(view.get(), badUtf8, 1), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("UTF-8"), std::string::npos);
    EXPECT_EQ(estuary_set_view_legend(view.get(), nullptr, 2), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(estuary_set_view_legend(view.get(), names, 257), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("257"), std::string::npos);
    EXPECT_EQ(estuary_set_view_legend(nullptr, names, 1), ESTUARY_ERROR_INVALID_ARGUMENT);
}

} // namespace
} // namespace estuary
