// The TCP links of one job's ranks (job.h): every rank has a link to rank 0 (commands, gathers)
// and to its neighbours k - 1 and k + 1 (halos; the last rank's upper neighbour is rank 0, whose
// link it already has). connectRanks sets them up through a bootstrap at the rendezvous that rank
// 0 listens on: the others say hello there (their rank, the job's size, a fingerprint of their
// command line, the address they listen on), rank 0 answers with everyone's address, each rank
// connects to the one below it, and all report ready to rank 0. Every message of the bootstrap has
// a fixed, bounded size; every wait ends by the job's timeout with an error naming the rank that
// did not arrive. After it, a transfer moves bytes whose sizes both sides know already.
#pragma once

#include "job.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace estuary::ranks {

// One send or receive of a transfer: `bytes` bytes to or from rank `peer`.
struct Transfer {
    uint32_t peer = 0;
    bool send = false;
    void* data = nullptr; // read for a send, written for a receive
    size_t bytes = 0;
};

class Links {
  public:
    Links() = default;
    ~Links();
    Links(Links&& other) noexcept;
    Links& operator=(Links&& other) noexcept;
    Links(const Links&) = delete;
    Links& operator=(const Links&) = delete;

    uint32_t rank() const { return rank_; }
    uint32_t size() const { return size_; }
    const Job& job() const { return job_; }
    bool linked(uint32_t peer) const { return peer < fds_.size() && fds_[peer] >= 0; }

    // Runs every transfer to completion. Those with the same peer and direction go in list order
    // (a link is one byte stream each way); the rest progress together, so two ranks sending each
    // other large halos never wait on each other. Throws runtimeError naming the peer when its
    // link closes (it exited or was killed), breaks, or moves nothing for the job's timeout
    // (nullopt: no limit but a closed link, for waiting on rank 0's next command).
    void transfer(std::span<const Transfer> transfers,
                  std::optional<std::chrono::milliseconds> idleLimit);
    void transfer(std::span<const Transfer> transfers) { transfer(transfers, job_.timeout); }
    void send(uint32_t peer, const void* data, size_t bytes);
    void receive(uint32_t peer, void* data, size_t bytes);

  private:
    friend Links connectRanks(const Job&, uint64_t);
    Job job_;
    uint32_t rank_ = 0, size_ = 1;
    std::vector<int> fds_; // per rank; -1: no link (itself, or not a neighbour)
};

// The bootstrap. `fingerprint` stands for what must be equal on every rank (the command line):
// rank 0 refuses a rank whose differs. Throws usageError (an address that does not resolve) or
// runtimeError (a rank missing when the timeout ends, naming it; a link that breaks; a stranger at
// the rendezvous).
Links connectRanks(const Job& job, uint64_t fingerprint);

// FNV-1a, for fingerprints.
uint64_t fingerprintOf(std::string_view text, uint64_t seed = 14695981039346656037ull);

} // namespace estuary::ranks
