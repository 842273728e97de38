// The kinds' add functions (viewer/views/<kind>/<kind>_view.cpp), which the library reaches only
// through their C entry points; the internals' tests call them directly.
#pragma once

#include "viewer.h"

namespace estuary::lib {
estuary_view* addFieldView(estuary_viewer& v, const estuary_field_view_desc& desc);
estuary_view* addVolumeView(estuary_viewer& v, const estuary_volume_view_desc& desc);
estuary_view* addPointsView(estuary_viewer& v, const estuary_points_view_desc& desc);
estuary_view* addMarkersView(estuary_viewer& v, const estuary_markers_view_desc& desc);
estuary_view* addLinesView(estuary_viewer& v, const estuary_lines_view_desc& desc);
estuary_view* addGlyphView(estuary_viewer& v, const estuary_glyph_view_desc& desc);
estuary_view* addMeshView(estuary_viewer& v, const estuary_mesh_view_desc& desc);
estuary_view* addTextView(estuary_viewer& v, const estuary_text_view_desc& desc);
estuary_view* addLabelsView(estuary_viewer& v, const estuary_labels_view_desc& desc);
} // namespace estuary::lib
