// The simulations estuary offers (--sim, --list-sims, the window's selector), in one list in
// simulations.cpp: adding a simulation is its files in cuda_sim/ plus one line there.
#pragma once

#include "simulation.h"

#include <span>
#include <string>
#include <string_view>

namespace estuary {

// The first is the default (--sim not given).
std::span<const sim::SimDefinition> simulations();
// nullptr when no simulation has that name; the default one for an empty name.
const sim::SimDefinition* findSimulation(std::string_view name);
// The names, comma-separated, for messages.
std::string simulationNames();
// One "NAME  description" line per simulation, for --list-sims.
std::string listSimulations();

} // namespace estuary
