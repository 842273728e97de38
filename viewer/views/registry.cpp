// The kinds of view, one line each, in the order the panels and tests list them. A kind is a
// folder beside this file whose <kind>_view.cpp defines `const ViewType& <kind>ViewType()`.
#include "view_type.h"

#include <array>

namespace estuary::lib {

#define ESTUARY_VIEW_TYPES(X)                                                                      \
    X(field)                                                                                       \
    X(volume)                                                                                      \
    X(points)                                                                                      \
    X(markers)                                                                                     \
    X(lines)                                                                                       \
    X(glyph)                                                                                       \
    X(mesh)                                                                                        \
    X(text)                                                                                        \
    X(labels)

#define ESTUARY_DECLARE_VIEW_TYPE(kind) const ViewType& kind##ViewType();
ESTUARY_VIEW_TYPES(ESTUARY_DECLARE_VIEW_TYPE)

std::span<const ViewType* const> viewTypes() {
#define ESTUARY_LIST_VIEW_TYPE(kind) &kind##ViewType(),
    static const auto types =
        std::to_array<const ViewType*>({ESTUARY_VIEW_TYPES(ESTUARY_LIST_VIEW_TYPE)});
    return types;
}

} // namespace estuary::lib
