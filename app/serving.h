// --serve: the app's side of estuary_serve_start (estuary.h). The options (--serve [ADDR:]PORT,
// --serve-allow-remote, --serve-token, --serve-stats) and their checks, the server started with
// the viewer (its URL printed once, token included where one is needed), a line of counts a
// second with --serve-stats, and the summary at the end. The server itself stops with the viewer,
// closing every page with 1001 (going away), whatever ended the run (SIGINT included).
#pragma once

#include "options.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

struct estuary_viewer;

namespace estuary {

struct ServeAddress {
    std::string address = "127.0.0.1";
    uint32_t port = 0;
};
// "8080", "0.0.0.0:8080", "[::1]:8080" (0: a free port); nullopt when malformed.
std::optional<ServeAddress> parseServeAddress(const std::string& text);

void addServeOptions(CLI::App& app, Options& o);
// What is wrong with the serve options as given, if anything.
std::optional<std::string> serveProblem(const CLI::App& app, const Options& o);

// Starts the server when --serve was given and prints its URL.
void startAppServer(estuary_viewer* viewer, const Options& o);
// --serve-stats: a line of counts, at most once a second (call every frame).
void reportServeStats(estuary_viewer* viewer, const Options& o);
// The run's summary of what was served (before the viewer closes).
void printServeSummary(estuary_viewer* viewer, const Options& o);

} // namespace estuary
