// What field and volume views keep (field_view.cpp, ../volume/volume_view.cpp): the renderer of
// their image (renderer/renderer.h), one descriptor set per host-ring entry pointing at the
// entry's copy. The OpenGL consumer reads a field's shading and shader (opengl/gl_side.cpp).
#pragma once

#include "view_type.h"

#include <string>

namespace estuary::lib {

struct ImageViewState : ViewState {
    Renderer renderer;
    estuary_field_shading shading = ESTUARY_FIELD_SCALAR;
    std::string shader; // empty: the kind's own
};

// The kind of image views: make, release, record and resize of their renderer. Fields and volumes
// differ in their checks, shaders and panels.
class ImageViewType : public ViewType {
  public:
    using ViewType::ViewType;
    bool background() const override { return true; }
    void release(estuary_viewer& v, estuary_view& view) const override;
    void record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, const DrawTarget& target) const override;
    void resize(estuary_viewer& v, estuary_view& view, VkExtent2D extent) const override;
    void panel(const estuary_view& view, estuary_view_params& p) const override;

  protected:
    // The renderer with `fragmentShader`, its descriptors pointed at each entry's copy.
    void makeRenderer(estuary_viewer& v, estuary_view& view, const std::string& fragmentShader,
                      bool volume) const;
};

} // namespace estuary::lib
