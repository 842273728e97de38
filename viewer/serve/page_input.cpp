// The page's input messages as estuary_events (page_input.h).
#include "page_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace estuary::lib::serve {
namespace {

constexpr double kCoordinateMax = 65536;       // picture pixels
constexpr int32_t kKeyMin = 32, kKeyMax = 348; // GLFW's printable and function keys
constexpr int32_t kEscape = 256;               // GLFW_KEY_ESCAPE

estuary_event event(estuary_event_kind kind) {
    estuary_event e{};
    e.struct_size = sizeof(estuary_event);
    e.kind = kind;
    return e;
}

// A number field in [lo, hi], or why not.
std::string number(const nlohmann::json& m, const char* name, double lo, double hi, double& out) {
    const auto it = m.find(name);
    if (it == m.end() || !it->is_number())
        return std::string("\"") + name + "\" is missing or not a number";
    out = it->get<double>();
    if (!std::isfinite(out) || out < lo || out > hi)
        return std::string("\"") + name + "\" " + it->dump() + " is not in " +
               std::to_string(int64_t(lo)) + ".." + std::to_string(int64_t(hi));
    return "";
}

uint32_t modsOf(const nlohmann::json& m) {
    const auto it = m.find("mods");
    if (it == m.end() || !it->is_number_unsigned()) return 0;
    return it->get<uint32_t>() & (ESTUARY_MOD_SHIFT | ESTUARY_MOD_CONTROL | ESTUARY_MOD_ALT);
}

std::string pointer(const nlohmann::json& m, std::vector<estuary_event>& out) {
    double x = 0, y = 0;
    if (std::string e = number(m, "x", -1, kCoordinateMax, x); !e.empty()) return e;
    if (std::string e = number(m, "y", -1, kCoordinateMax, y); !e.empty()) return e;
    const std::string action = m.value("action", "");
    if (action != "move" && action != "down" && action != "up")
        return "pointer \"action\" must be \"move\", \"down\" or \"up\"";
    estuary_event cursor = event(ESTUARY_EVENT_CURSOR);
    cursor.x = x;
    cursor.y = y;
    cursor.mods = modsOf(m);
    out.push_back(cursor);
    if (action == "move") return "";
    double button = 0;
    if (std::string e = number(m, "button", 0, 2, button); !e.empty()) return e;
    estuary_event press = event(ESTUARY_EVENT_BUTTON);
    press.code = int32_t(button);
    press.action = action == "down" ? 1 : 0;
    press.mods = cursor.mods;
    out.push_back(press);
    return "";
}

} // namespace

std::string eventsFromMessage(const nlohmann::json& m, std::vector<estuary_event>& out) {
    if (!m.is_object() || !m.contains("type") || !m["type"].is_string())
        return "a message is a JSON object with a string \"type\"";
    const std::string type = m["type"];
    if (type == "pointer") return pointer(m, out);
    if (type == "wheel") {
        double x = 0, y = 0, dy = 0;
        if (std::string e = number(m, "x", -1, kCoordinateMax, x); !e.empty()) return e;
        if (std::string e = number(m, "y", -1, kCoordinateMax, y); !e.empty()) return e;
        if (std::string e = number(m, "dy", -10, 10, dy); !e.empty()) return e;
        estuary_event cursor = event(ESTUARY_EVENT_CURSOR);
        cursor.x = x;
        cursor.y = y;
        out.push_back(cursor);
        estuary_event scroll = event(ESTUARY_EVENT_SCROLL);
        scroll.y = dy;
        out.push_back(scroll);
        return "";
    }
    if (type == "key") {
        double code = 0, action = 0;
        if (std::string e = number(m, "code", kKeyMin, kKeyMax, code); !e.empty()) return e;
        if (std::string e = number(m, "action", 0, 1, action); !e.empty()) return e;
        if (code == kEscape) return ""; // a page never ends the program (Esc does in a window)
        estuary_event key = event(ESTUARY_EVENT_KEY);
        key.code = int32_t(code);
        key.action = int32_t(action);
        key.mods = modsOf(m);
        out.push_back(key);
        return "";
    }
    if (type == "char") {
        double code = 0;
        if (std::string e = number(m, "code", 32, 0x10FFFF, code); !e.empty()) return e;
        estuary_event c = event(ESTUARY_EVENT_CHAR);
        c.code = int32_t(code);
        out.push_back(c);
        return "";
    }
    if (type == "resize") { // the page's size: a headless picture follows it (pictureSizeFor)
        double w = 0, h = 0;
        if (std::string e = number(m, "width", 1, kCoordinateMax, w); !e.empty()) return e;
        return number(m, "height", 1, kCoordinateMax, h);
    }
    if (type == "stats") {
        double frame = 0;
        return number(m, "frame", 0, 9.0e15, frame);
    }
    if (type == "stamp") { // the stamp read from a decoded frame (stamp.h); id -1: unreadable
        double frame = 0, id = 0;
        if (std::string e = number(m, "frame", 0, 9.0e15, frame); !e.empty()) return e;
        return number(m, "id", -1, 65535, id);
    }
    return "unknown message type \"" + type +
           "\" (pointer, wheel, key, char, resize, stats, "
           "stamp, hello, control)";
}

std::array<uint32_t, 2> pictureSizeFor(double width, double height) {
    std::array<uint32_t, 2> out{};
    const double asked[2] = {width, height};
    for (int i = 0; i < 2; ++i) {
        const double side = std::clamp(std::floor(asked[i]), double(kPictureMin[size_t(i)]),
                                       double(kPictureMax[size_t(i)]));
        out[size_t(i)] = uint32_t(side) & ~1u;
    }
    return out;
}

} // namespace estuary::lib::serve
