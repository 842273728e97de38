// The page's input messages (JSON, see page/index.html) as estuary_events: a pure mapping, so that
// every message a page may send is checked in one place and unit-tested without a server.
#pragma once

#include "estuary/estuary.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace estuary::lib::serve {

// Appends the events `message` stands for to `out`; returns "" or why the message is refused
// (which field, which value, what is allowed). Messages that are not input ("stats", "stamp",
// "resize") add nothing.
std::string eventsFromMessage(const nlohmann::json& message, std::vector<estuary_event>& out);

// The headless picture a steering page's "resize" (checked by eventsFromMessage) asks for: its
// size within kPictureMin..kPictureMax on each side, rounded down to even (H.264's 4:2:0 needs it).
constexpr std::array<uint32_t, 2> kPictureMin{64, 64}, kPictureMax{3840, 2160};
std::array<uint32_t, 2> pictureSizeFor(double width, double height);

} // namespace estuary::lib::serve
