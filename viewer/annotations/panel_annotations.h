// The viewer's side of the annotations: what a panel's views want said (their colorbars, as the
// ImGui ones chose them; the axes of the field, slice, volume or buffer views drawn, in the user's
// units from the images' origin and spacing or the buffer views' bounds), read from a viewer for
// one camera and one panel rectangle, as layoutPanel (annotation_layout.h) takes it. Thin on
// purpose: the frame calls it per panel with that panel's camera and views.
#pragma once

#include "annotation_layout.h"
#include "viewer.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace estuary::lib {

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or values above U+10FFFF):
// names, titles and units are checked with it before they are kept.
bool validUtf8(std::string_view s);

// A panel's settings for its annotations (estuary_panel_desc's, once the panels have them).
struct PanelAnnotationOptions {
    std::string title;
    bool axes = true, grid = false, logX = false, logY = false, scaleBar = false;
    bool timeX = false;      // x is seconds after timeOrigin, ticked on the calendar
    double timeOrigin = 0.0; // seconds since 1970-01-01 00:00 UTC
    // Axis titles with units ("x [mm]"); empty: "x", "y", "z".
    std::array<std::string, 3> axisTitles;
    std::string scaleBarUnit; // the scale bar's unit ("mm")
};

// Where an image's cells lie in the user's units: the box their texels cover (cell i spans
// origin + (i - 0.5 .. i + 0.5) * spacing), per axis x, y, z (2D images: z is [origin - s/2,
// origin + s/2]).
struct UserBox {
    std::array<double, 3> min{}, max{};
};
UserBox userBox(const estuary_image& image);

// What `views` (drawn in a panel of `panel`, picture pixels, under `camera`) want said there;
// `views` null: all of the viewer's, as the single-camera viewer draws them.
annotations::PanelAnnotations
panelAnnotations(const estuary_viewer& v, const Camera& camera, annotations::Rect panel,
                 const PanelAnnotationOptions& options,
                 const std::vector<const estuary_view*>* views = nullptr);

} // namespace estuary::lib
