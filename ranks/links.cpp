#include "links.h"
#include "errors.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace estuary::ranks {

Links::~Links() {
    for (int fd : fds_)
        if (fd >= 0) ::close(fd);
}

Links::Links(Links&& other) noexcept
    : job_(std::move(other.job_)), rank_(other.rank_), size_(other.size_),
      fds_(std::move(other.fds_)) {
    other.fds_.clear();
}

Links& Links::operator=(Links&& other) noexcept {
    if (this != &other) {
        for (int fd : fds_)
            if (fd >= 0) ::close(fd);
        job_ = std::move(other.job_);
        rank_ = other.rank_;
        size_ = other.size_;
        fds_ = std::move(other.fds_);
        other.fds_.clear();
    }
    return *this;
}

uint64_t fingerprintOf(std::string_view text, uint64_t seed) {
    uint64_t h = seed;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

namespace {

// The transfers of one peer and direction, in list order, and how far they got.
struct Stream {
    uint32_t peer = 0;
    bool send = false;
    std::vector<const Transfer*> items;
    size_t item = 0, done = 0; // the current item, bytes of it moved
    bool finished() const { return item == items.size(); }
    void skipEmpty() {
        while (item < items.size() && items[item]->bytes == 0)
            ++item;
    }
};

std::string closedMessage(uint32_t self, uint32_t peer) {
    return "rank " + std::to_string(peer) + " closed its link to rank " + std::to_string(self) +
           " (it exited or was killed; its own output says why)";
}

} // namespace

void Links::transfer(std::span<const Transfer> transfers,
                     std::optional<std::chrono::milliseconds> idleLimit) {
    std::vector<Stream> streams;
    for (const Transfer& t : transfers) {
        if (!linked(t.peer))
            throw runtimeError("rank " + std::to_string(rank_) + " has no link to rank " +
                               std::to_string(t.peer));
        auto it = std::find_if(streams.begin(), streams.end(), [&](const Stream& s) {
            return s.peer == t.peer && s.send == t.send;
        });
        if (it == streams.end()) it = streams.insert(streams.end(), Stream{t.peer, t.send});
        it->items.push_back(&t);
    }
    for (Stream& s : streams)
        s.skipEmpty();
    using Clock = std::chrono::steady_clock;
    auto lastProgress = Clock::now();
    std::vector<pollfd> polls;
    std::vector<uint32_t> peers;
    for (;;) {
        polls.clear();
        peers.clear();
        for (const Stream& s : streams) {
            if (s.finished()) continue;
            auto it = std::find(peers.begin(), peers.end(), s.peer);
            if (it == peers.end()) {
                peers.push_back(s.peer);
                polls.push_back({fds_[s.peer], 0, 0});
                it = peers.end() - 1;
            }
            polls[size_t(it - peers.begin())].events |= s.send ? POLLOUT : POLLIN;
        }
        if (polls.empty()) return;
        int wait = -1;
        if (idleLimit) {
            const auto left = *idleLimit - (Clock::now() - lastProgress);
            wait = int(std::max<int64_t>(
                0, std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1));
        }
        const int ready = ::poll(polls.data(), polls.size(), wait);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0)
            throw runtimeError(std::string("poll on the rank links: ") + strerror(errno));
        if (ready == 0 && idleLimit && Clock::now() - lastProgress >= *idleLimit) {
            std::string who;
            for (uint32_t p : peers)
                who += (who.empty() ? "" : ", ") + std::to_string(p);
            throw runtimeError(
                "rank " + std::to_string(rank_) + ": nothing moved to or from rank(s) " + who +
                " for " +
                std::to_string(
                    std::chrono::duration_cast<std::chrono::seconds>(*idleLimit).count()) +
                " s (ESTUARY_RANK_TIMEOUT): a rank hangs or the network is down");
        }
        for (size_t i = 0; i < polls.size(); ++i) {
            if (!polls[i].revents) continue;
            for (Stream& s : streams) {
                if (s.peer != peers[i] || s.finished()) continue;
                const Transfer& t = *s.items[s.item];
                const size_t left = t.bytes - s.done;
                ssize_t n = 0;
                if (s.send) {
                    n = ::send(fds_[s.peer], static_cast<const char*>(t.data) + s.done, left,
                               MSG_NOSIGNAL | MSG_DONTWAIT);
                } else {
                    n = ::recv(fds_[s.peer], static_cast<char*>(t.data) + s.done, left,
                               MSG_DONTWAIT);
                    if (n == 0) throw runtimeError(closedMessage(rank_, s.peer));
                }
                if (n < 0) {
                    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
                    if (errno == EPIPE || errno == ECONNRESET)
                        throw runtimeError(closedMessage(rank_, s.peer));
                    throw runtimeError("the link from rank " + std::to_string(rank_) + " to rank " +
                                       std::to_string(s.peer) + " broke: " + strerror(errno));
                }
                lastProgress = Clock::now();
                s.done += size_t(n);
                if (s.done == t.bytes) {
                    s.done = 0;
                    ++s.item;
                    s.skipEmpty();
                }
            }
        }
    }
}

void Links::send(uint32_t peer, const void* data, size_t bytes) {
    const Transfer t{peer, true, const_cast<void*>(data), bytes};
    transfer({&t, 1});
}

void Links::receive(uint32_t peer, void* data, size_t bytes) {
    const Transfer t{peer, false, data, bytes};
    transfer({&t, 1});
}

} // namespace estuary::ranks
