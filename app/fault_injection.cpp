#include "fault_injection.h"
#include "errors.h"

#include <charconv>
#include <cstdlib>
#include <string>

namespace estuary {
namespace {

constexpr const char* kFaults =
    "cuda-fault@N, cuda-stall@N, alloc-fail, device-lost@N, vulkan-stall@N";

// "name@N" → N, when `item` is that fault.
std::optional<uint64_t> frameOf(std::string_view item, std::string_view name) {
    if (item.substr(0, name.size()) != name || item.size() <= name.size() + 1 ||
        item[name.size()] != '@')
        return std::nullopt;
    const std::string_view digits = item.substr(name.size() + 1);
    uint64_t frame = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), frame);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return frame;
}

} // namespace

FaultPlan parseFaultPlan(std::string_view spec) {
    FaultPlan plan;
    while (!spec.empty()) {
        const size_t comma = spec.find(',');
        const std::string_view item = spec.substr(0, comma);
        spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
        if (item == "alloc-fail")
            plan.allocFail = true;
        else if (const auto fault = frameOf(item, "cuda-fault"))
            plan.cudaFault = fault;
        else if (const auto cudaStall = frameOf(item, "cuda-stall"))
            plan.cudaStall = cudaStall;
        else if (const auto lost = frameOf(item, "device-lost"))
            plan.deviceLost = lost;
        else if (const auto vulkanStall = frameOf(item, "vulkan-stall"))
            plan.vulkanStall = vulkanStall;
        else
            throw usageError("ESTUARY_FAULT: '" + std::string(item) +
                             "' is not a fault (known: " + kFaults + ", comma-separated)");
    }
    return plan;
}

const FaultPlan& faultPlan() {
    static const FaultPlan plan = [] {
        const char* spec = std::getenv("ESTUARY_FAULT");
        return spec ? parseFaultPlan(spec) : FaultPlan{};
    }();
    return plan;
}

} // namespace estuary
