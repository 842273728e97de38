// The simulations estuary offers (--sim, --list-sims, the window's selector), in one list in
// simulations.cpp: adding a simulation is its files in cuda_sim/ plus one line there. Also the one
// mapping from a simulation's outputs to Vulkan formats and image shapes.
#pragma once

#include "resources.h"
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

VkFormat vulkanFormat(sim::TexelFormat format);
// An output's Vulkan image shape: 3D when it has a depth, else 2D.
ImageShape imageShapeOf(const sim::ImageOutput& output);

} // namespace estuary
