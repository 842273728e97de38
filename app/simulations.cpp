#include "simulations.h"

#include <algorithm>

// One line per simulation: the function in cuda_sim/ that returns its definition. The order is
// --list-sims' and the window selector's; the first is the default.
#define ESTUARY_SIMULATIONS(X)                                                                     \
    X(grayScottSimulation)                                                                         \
    X(waveSimulation)                                                                              \
    X(fluidSimulation)                                                                             \
    X(grayScott3dSimulation)

namespace estuary {

namespace sim {
#define ESTUARY_DECLARE_SIMULATION(function) SimDefinition function();
ESTUARY_SIMULATIONS(ESTUARY_DECLARE_SIMULATION)
#undef ESTUARY_DECLARE_SIMULATION
} // namespace sim

std::span<const sim::SimDefinition> simulations() {
#define ESTUARY_LIST_SIMULATION(function) sim::function(),
    static const std::vector<sim::SimDefinition> all = {
        ESTUARY_SIMULATIONS(ESTUARY_LIST_SIMULATION)};
#undef ESTUARY_LIST_SIMULATION
    return all;
}

const sim::SimDefinition* findSimulation(std::string_view name) {
    if (name.empty()) return &simulations().front();
    for (const sim::SimDefinition& def : simulations())
        if (def.name == name) return &def;
    return nullptr;
}

std::string simulationNames() {
    std::string names;
    for (const sim::SimDefinition& def : simulations())
        names += (names.empty() ? "" : ", ") + def.name;
    return names;
}

std::string listSimulations() {
    size_t width = 0;
    for (const sim::SimDefinition& def : simulations())
        width = std::max(width, def.name.size());
    std::string out;
    for (const sim::SimDefinition& def : simulations())
        out += def.name + std::string(width + 2 - def.name.size(), ' ') + def.description +
               " (views: " + sim::viewNames(def) + (def.particles.max ? "; particles" : "") +
               (def.dimensions == 3 ? "; 3D grid, --size WxHxD" : "") + ")\n";
    return out;
}

} // namespace estuary
