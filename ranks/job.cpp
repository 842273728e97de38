#include "job.h"
#include "errors.h"

#include <charconv>
#include <cstdlib>

namespace estuary::ranks {
namespace {

std::optional<uint64_t> parseNumber(std::string_view text) {
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

uint32_t number(const Environment& env, const char* name, uint64_t max, const char* allowed) {
    const char* text = env(name);
    if (!text) throw usageError(std::string(name) + " is not set; it must be " + allowed);
    const std::optional<uint64_t> value = parseNumber(text);
    if (!value || *value > max)
        throw usageError(std::string(name) + "=" + text + " is not " + allowed);
    return uint32_t(*value);
}

// The launcher's three variables, or nullopt when its size variable is unset.
struct Names {
    const char *launcher, *rank, *size, *localRank;
};
constexpr Names kLaunchers[] = {
    {"estuary", "ESTUARY_RANK", "ESTUARY_RANKS", "ESTUARY_LOCAL_RANK"},
    {"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
    // SLURM_NTASKS is set in a whole allocation, also for a process srun did not start.
    {"srun", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_LOCALID"},
};

std::chrono::milliseconds timeoutFrom(const Environment& env) {
    const char* text = env("ESTUARY_RANK_TIMEOUT");
    if (!text) return kDefaultRankTimeout;
    const std::optional<uint64_t> seconds = parseNumber(text);
    if (!seconds || *seconds < 1 || *seconds > 86400)
        throw usageError(std::string("ESTUARY_RANK_TIMEOUT=") + text +
                         " is not a whole number of seconds in 1..86400");
    return std::chrono::seconds(*seconds);
}

} // namespace

Rendezvous parseRendezvous(std::string_view text, const char* variable) {
    const std::string shown = std::string(variable) + "=" + std::string(text);
    if (text.find('/') != std::string_view::npos) return {.file = std::string(text)};
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
        throw usageError(shown + " is not host:port (e.g. 127.0.0.1:29500) or a file path (with "
                                 "a '/')");
    const std::optional<uint64_t> port = parseNumber(text.substr(colon + 1));
    if (!port || *port < 1 || *port > 65535)
        throw usageError(shown + ": the port must be a number in 1..65535");
    return {.host = std::string(text.substr(0, colon)), .port = uint16_t(*port)};
}

std::string describe(const Rendezvous& r) {
    return r.file.empty() ? r.host + ":" + std::to_string(r.port) : "file " + r.file;
}

std::optional<Job> jobFromEnvironment(const Environment& env) {
    for (const Names& names : kLaunchers) {
        if (!env(names.size)) continue;
        Job job;
        job.launcher = names.launcher;
        const std::string sizes = "a number of ranks in 1.." + std::to_string(kMaxRanks);
        job.size = number(env, names.size, kMaxRanks, sizes.c_str());
        if (job.size == 0)
            throw usageError(std::string(names.size) + "=0: a job has at least 1 rank");
        const std::string ranks = "a rank in 0.." + std::to_string(job.size - 1) + " (" +
                                  names.size + "=" + std::to_string(job.size) + ")";
        job.rank = number(env, names.rank, job.size - 1, ranks.c_str());
        job.localRank = env(names.localRank)
                            ? number(env, names.localRank, kMaxRanks - 1, "a local rank")
                            : job.rank;
        if (job.size == 1) return std::nullopt;
        job.timeout = timeoutFrom(env);
        if (const char* r = env("ESTUARY_RENDEZVOUS")) {
            job.rendezvous = parseRendezvous(r, "ESTUARY_RENDEZVOUS");
        } else if (env("MASTER_ADDR") && env("MASTER_PORT")) {
            const std::string both = std::string(env("MASTER_ADDR")) + ":" + env("MASTER_PORT");
            job.rendezvous = parseRendezvous(both, "MASTER_ADDR:MASTER_PORT");
        } else {
            throw usageError(std::string("a job of ") + std::to_string(job.size) + " ranks (" +
                             names.size + ") needs a rendezvous: set ESTUARY_RENDEZVOUS to " +
                             "host:port of rank 0 or to a file path, or MASTER_ADDR and "
                             "MASTER_PORT");
        }
        return job;
    }
    return std::nullopt;
}

std::optional<Job> jobFromEnvironment() {
    return jobFromEnvironment([](const char* name) { return std::getenv(name); });
}

} // namespace estuary::ranks
