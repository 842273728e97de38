// The page's input messages (JSON, see page/index.html) as estuary_events: a pure mapping, so that
// every message a page may send is checked in one place and unit-tested without a server.
#pragma once

#include "estuary/estuary.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace estuary::lib::serve {

// Appends the events `message` stands for to `out`; returns "" or why the message is refused
// (which field, which value, what is allowed). Messages that are not input ("stats", "resize")
// add nothing.
std::string eventsFromMessage(const nlohmann::json& message, std::vector<estuary_event>& out);

} // namespace estuary::lib::serve
