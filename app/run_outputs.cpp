#include "run_outputs.h"
#include "errors.h"

#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <utility>

namespace estuary {
namespace {

std::optional<OutputFile> openFor(const char* option, const std::string& path,
                                  bool renamed = false) {
    if (path.empty()) return std::nullopt;
    try {
        return renamed ? OutputFile::openRenamed(path) : OutputFile::open(path);
    } catch (const Error& e) {
        throw usageError(std::string(option) + ": " + e.what());
    }
}

// The path, and where it is a symbolic link the file it leads to: links are followed, so two
// names reaching one file are one output.
std::string spelled(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(path, ec)) return path.string();
    try {
        return path.string() + " (a link to " + followLinks(path).string() + ")";
    } catch (const Error&) {
        return path.string();
    }
}

} // namespace

RunOutputs openRunOutputs(const Options& options) {
    RunOutputs out;
    if (options.bench) {
        out.report = openFor("--report", options.reportPath);
        out.csv = openFor("--csv", options.csvPath);
    } else {
        const bool headlessDefault = options.headless && options.screenshot.empty();
        out.screenshot = openFor("--screenshot",
                                 headlessDefault ? kDefaultHeadlessScreenshot : options.screenshot);
    }
    out.trace = openFor("--trace", options.tracePath);
    if (!options.bench) out.record = openFor("--record", options.record, /*renamed=*/true);
    const std::pair<const char*, const std::optional<OutputFile>*> named[] = {
        {"--screenshot", &out.screenshot},
        {"--report", &out.report},
        {"--csv", &out.csv},
        {"--trace", &out.trace},
        {"--record", &out.record}};
    for (size_t a = 0; a < std::size(named); ++a)
        for (size_t b = a + 1; b < std::size(named); ++b) {
            const auto& first = *named[a].second;
            const auto& second = *named[b].second;
            if (first && second && first->sameTarget(*second))
                throw usageError(std::string(named[a].first) + " " + spelled(first->path()) +
                                 " and " + named[b].first + " " + spelled(second->path()) +
                                 " name the same file: give each its own");
        }
    bool toStdout = false;
    for (const auto& [option, file] : named)
        toStdout = toStdout || (*file && (*file)->isStandardOutput());
    if (toStdout) {
        // Every printf of estuary and its libraries now reaches stderr; the output keeps its own
        // copy of the original standard output.
        std::fflush(stdout);
        if (::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            throw runtimeError("cannot move estuary's messages to stderr");
    }
    return out;
}

} // namespace estuary
