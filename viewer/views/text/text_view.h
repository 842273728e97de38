// What the text and labels views share (text_view.cpp, ../labels): the checks of their
// descriptions' text settings, and the font and colour as the renderers take them.
#pragma once

#include "annotation.h"
#include "view_type.h"

#include <string>

namespace estuary::lib {

// `color` (all 0: opaque white) checked finite in 0..1; a usage error starting with `what`.
Rgba textColour(const float (&color)[4], const std::string& what);
// The alignments, checked.
AlignX textAlignX(estuary_text_align align, const std::string& what);
AlignY textAlignY(estuary_text_valign valign, const std::string& what);
// `size` (0: 14 pixels) checked finite and > 0.
float textSize(float size, const std::string& what);

// The text view's text from the next frame on (estuary_set_text); a usage error for a view of
// another kind.
void setText(estuary_viewer& v, estuary_view& view, const char* utf8);

} // namespace estuary::lib
