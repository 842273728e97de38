// The job this process is one rank of, read from the environment its launcher set: OpenMPI's
// mpirun (OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK), Slurm's srun (SLURM_PROCID, SLURM_STEP_NUM_TASKS,
// SLURM_LOCALID) or estuary's own (ESTUARY_RANK, ESTUARY_RANKS, ESTUARY_LOCAL_RANK). The ranks meet
// at a rendezvous that rank 0 opens (links.h): ESTUARY_RENDEZVOUS=host:port, or a file path (a
// value with a '/') that rank 0 writes its address into, or else MASTER_ADDR and MASTER_PORT.
// Pure: the environment is passed in, so every rule about bad values is unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace estuary::ranks {

// Larger jobs are refused (the bootstrap's table of addresses has a bounded size).
inline constexpr uint32_t kMaxRanks = 4096;
// How long ranks wait for each other (the bootstrap, and a transfer making no progress) unless
// ESTUARY_RANK_TIMEOUT (seconds) says otherwise.
inline constexpr std::chrono::seconds kDefaultRankTimeout{60};

struct Rendezvous {
    std::string host; // a host name or IPv4 address; empty with a file
    uint16_t port = 0;
    std::string file; // rank 0 writes "host:port" there; the others read it
};

struct Job {
    uint32_t rank = 0, size = 1, localRank = 0;
    std::string launcher; // "estuary", "mpirun" or "srun": who set the variables
    Rendezvous rendezvous;
    std::chrono::milliseconds timeout = kDefaultRankTimeout;
};

// A variable's value, nullptr when unset.
using Environment = std::function<const char*(const char* name)>;

// The job, or nullopt when no launcher variable is set or the job has one rank (a plain run).
// Throws usageError naming the variable, its value and what is allowed: a rank not below the
// size, a size of 0 or above kMaxRanks, a number that is not one, no rendezvous for a job of
// several ranks, an address that is not host:port with a port in 1..65535.
std::optional<Job> jobFromEnvironment(const Environment& env);
std::optional<Job> jobFromEnvironment(); // the process's own environment

// "host:port" or a path (with a '/'); `variable` names where it came from, for the message.
Rendezvous parseRendezvous(std::string_view text, const char* variable);
// "127.0.0.1:5000" or "file /tmp/x"
std::string describe(const Rendezvous& rendezvous);

} // namespace estuary::ranks
