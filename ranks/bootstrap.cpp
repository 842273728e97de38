// connectRanks (links.h): the bootstrap over TCP. Messages are fixed-size arrays of 32-bit words
// in network byte order; rank 0's table holds one address per rank, at most kMaxRanks.
#include "errors.h"
#include "links.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

namespace estuary::ranks {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint32_t kMagic = 0x45535452; // "ESTR"
constexpr uint32_t kVersion = 1;
constexpr uint32_t kReady = 0x52454459, kGo = 0x474f2121;

// hello: magic, version, size, rank, fingerprint (2 words), IPv4 and port of its listener
using Hello = std::array<uint32_t, 8>;

struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
    Fd(Fd&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        std::swap(fd, o.fd);
        return *this;
    }
    int release() { return std::exchange(fd, -1); }
};

std::string seconds(std::chrono::milliseconds ms) {
    return std::to_string((ms.count() + 999) / 1000) + " s";
}

int msLeft(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return int(std::max<int64_t>(0, left.count()));
}

void setNonBlocking(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Small messages go at once; a peer that vanishes without closing (a node down) is noticed by
// the keepalive after about 25 s.
void tuneLink(int fd) {
    const int on = 1, idle = 10, interval = 5, count = 3;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
    ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

// `bytes` bytes each way by the deadline, or false; throws when the peer closes.
bool move(int fd, void* data, size_t bytes, bool send, Clock::time_point deadline,
          const std::string& peer) {
    size_t done = 0;
    while (done < bytes) {
        pollfd p{fd, short(send ? POLLOUT : POLLIN), 0};
        const int r = ::poll(&p, 1, msLeft(deadline));
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) return false;
        const ssize_t n =
            send ? ::send(fd, static_cast<char*>(data) + done, bytes - done,
                          MSG_NOSIGNAL | MSG_DONTWAIT)
                 : ::recv(fd, static_cast<char*>(data) + done, bytes - done, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE)))
            throw runtimeError(peer + " closed its link during the bootstrap (its own output "
                                      "says why)");
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            throw runtimeError("the bootstrap's link with " + peer + " broke: " + strerror(errno));
        if (n > 0) done += size_t(n);
    }
    return true;
}

void words(std::span<uint32_t> w, bool toNetwork) {
    for (uint32_t& x : w)
        x = toNetwork ? htonl(x) : ntohl(x);
}

in_addr resolve(const std::string& host, const std::string& where) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int r = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (r != 0 || !found)
        throw usageError("the rendezvous host '" + host + "' (" + where +
                         ") does not resolve to an IPv4 address: " + gai_strerror(r));
    const in_addr a = reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr;
    ::freeaddrinfo(found);
    return a;
}

bool isLoopback(in_addr a) {
    return (ntohl(a.s_addr) >> 24) == 127;
}

// A listening socket on `a`:`port` (0: any free port), non-blocking; the port it got.
Fd listenOn(in_addr a, uint16_t port, uint16_t& bound, const std::string& what) {
    Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
    const int on = 1;
    ::setsockopt(fd.fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr = a;
    addr.sin_port = htons(port);
    if (::bind(fd.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        ::listen(fd.fd, int(kMaxRanks)) != 0)
        throw runtimeError("cannot listen on " + what + ": " + strerror(errno));
    socklen_t len = sizeof(addr);
    ::getsockname(fd.fd, reinterpret_cast<sockaddr*>(&addr), &len);
    bound = ntohs(addr.sin_port);
    setNonBlocking(fd.fd);
    return fd;
}

// A connection to a:port, retried while refused (the listener may start later), or -1 at the
// deadline.
Fd connectTo(in_addr a, uint16_t port, Clock::time_point deadline) {
    while (Clock::now() < deadline) {
        Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
        setNonBlocking(fd.fd);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr = a;
        addr.sin_port = htons(port);
        int r = ::connect(fd.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
        if (r != 0 && errno == EINPROGRESS) {
            pollfd p{fd.fd, POLLOUT, 0};
            if (::poll(&p, 1, std::min(msLeft(deadline), 1000)) == 1) {
                int error = 0;
                socklen_t len = sizeof(error);
                ::getsockopt(fd.fd, SOL_SOCKET, SO_ERROR, &error, &len);
                r = error == 0 ? 0 : -1;
            }
        }
        if (r == 0) {
            tuneLink(fd.fd);
            return fd;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return Fd();
}

Fd acceptOne(int listener, Clock::time_point deadline) {
    for (;;) {
        pollfd p{listener, POLLIN, 0};
        const int r = ::poll(&p, 1, msLeft(deadline));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return Fd();
        Fd fd(::accept(listener, nullptr, nullptr));
        if (fd.fd < 0) continue;
        setNonBlocking(fd.fd);
        tuneLink(fd.fd);
        return fd;
    }
}

std::string rankName(uint32_t rank) {
    return "rank " + std::to_string(rank);
}

// rank 0's address as the rendezvous gives it: the file's content once rank 0 wrote it.
bool rendezvousAddress(const Rendezvous& r, in_addr& a, uint16_t& port) {
    if (r.file.empty()) {
        a = resolve(r.host, "ESTUARY_RENDEZVOUS");
        port = r.port;
        return true;
    }
    std::ifstream in(r.file);
    std::string text;
    if (!in || !std::getline(in, text)) return false;
    const Rendezvous inFile = parseRendezvous(text, ("the rendezvous file " + r.file).c_str());
    a = resolve(inFile.host, "the rendezvous file " + r.file);
    port = inFile.port;
    return true;
}

// The address rank 0 writes to a rendezvous file: its host name where that resolves, else the
// loopback address (ranks of one machine).
std::string hostToAdvertise() {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0) {
        try {
            (void)resolve(name, "gethostname");
            return name;
        } catch (const Error&) {
        }
    }
    return "127.0.0.1";
}

void writeRendezvousFile(const std::string& path, const std::string& address) {
    const std::string temporary = path + ".part" + std::to_string(::getpid());
    {
        std::ofstream out(temporary, std::ios::trunc);
        out << address << "\n";
        if (!out.flush()) throw runtimeError("cannot write the rendezvous file " + temporary);
    }
    std::error_code ec;
    std::filesystem::rename(temporary, path, ec);
    if (ec) throw runtimeError("cannot write the rendezvous file " + path + ": " + ec.message());
}

// Rank 0: every other rank's hello, then the table, then every rank's ready, then go.
void lead(std::vector<int>& fds, const Job& job, uint64_t fingerprint) {
    const auto deadline = Clock::now() + job.timeout;
    in_addr any{};
    any.s_addr = htonl(INADDR_ANY);
    in_addr where = any;
    uint16_t port = job.rendezvous.port, bound = 0;
    if (job.rendezvous.file.empty()) {
        where = resolve(job.rendezvous.host, "ESTUARY_RENDEZVOUS");
        if (!isLoopback(where)) where = any; // the name may be one of several interfaces
    } else {
        port = 0;
    }
    Fd listener = listenOn(where, port, bound, describe(job.rendezvous));
    if (!job.rendezvous.file.empty())
        writeRendezvousFile(job.rendezvous.file, hostToAdvertise() + ":" + std::to_string(bound));
    struct Removal { // the others read the file before they say hello
        const std::string& path;
        ~Removal() {
            std::error_code ec;
            if (!path.empty()) std::filesystem::remove(path, ec);
        }
    } removal{job.rendezvous.file};

    std::vector<uint32_t> table(2 + 2 * size_t(job.size), 0);
    uint32_t arrived = 1;
    while (arrived < job.size) {
        Fd fd = acceptOne(listener.fd, deadline);
        if (fd.fd < 0) break;
        Hello h{};
        if (!move(fd.fd, h.data(), sizeof(h), false, deadline, "a rank")) break;
        words(h, false);
        if (h[0] != kMagic || h[1] != kVersion)
            throw runtimeError("something that is not an estuary rank of this version connected "
                               "to the rendezvous " +
                               describe(job.rendezvous));
        const uint32_t size = h[2], rank = h[3];
        const uint64_t theirs = uint64_t(h[4]) | uint64_t(h[5]) << 32;
        if (size != job.size)
            throw runtimeError(rankName(rank) + " says the job has " + std::to_string(size) +
                               " ranks; rank 0 says " + std::to_string(job.size));
        if (rank == 0 || rank >= job.size || fds[rank] >= 0)
            throw runtimeError("two ranks call themselves " + rankName(rank) +
                               " (or rank 0 is started twice)");
        if (theirs != fingerprint)
            throw runtimeError(rankName(rank) + " was started with another command line than "
                                                "rank 0: every rank runs the same one");
        table[2 + 2 * rank] = h[6];
        table[3 + 2 * rank] = h[7];
        fds[rank] = fd.release();
        ++arrived;
    }
    if (arrived < job.size) {
        std::string missing;
        uint32_t count = 0;
        for (uint32_t r = 1; r < job.size; ++r)
            if (fds[r] < 0) {
                missing += (missing.empty() ? "" : ", ") + std::to_string(r);
                ++count;
            }
        throw runtimeError((count > 1 ? "ranks " : "rank ") + missing + " of " +
                           std::to_string(job.size) + " did not reach the rendezvous " +
                           describe(job.rendezvous) + " within " + seconds(job.timeout) +
                           " (ESTUARY_RANK_TIMEOUT): not started, or given another rendezvous");
    }
    table[0] = kMagic;
    table[1] = job.size;
    words(table, true);
    for (uint32_t r = 1; r < job.size; ++r)
        if (!move(fds[r], table.data(), table.size() * 4, true, deadline, rankName(r)))
            throw runtimeError("the bootstrap's table did not reach " + rankName(r) + " within " +
                               seconds(job.timeout));
    const auto readyBy = Clock::now() + job.timeout;
    for (uint32_t r = 1; r < job.size; ++r) {
        uint32_t ready = 0;
        if (!move(fds[r], &ready, 4, false, readyBy, rankName(r)) || ntohl(ready) != kReady)
            throw runtimeError(rankName(r) + " did not link to its neighbours within " +
                               seconds(job.timeout));
    }
    const uint32_t go = htonl(kGo);
    for (uint32_t r = 1; r < job.size; ++r)
        (void)move(fds[r], const_cast<uint32_t*>(&go), 4, true, readyBy, rankName(r));
}

// Rank k > 0: listen (for rank k + 1), hello to rank 0, the table, link to rank k - 1, accept
// rank k + 1, ready, go.
void follow(std::vector<int>& fds, const Job& job, uint64_t fingerprint) {
    const uint32_t k = job.rank;
    const auto deadline = Clock::now() + job.timeout;
    in_addr leadAddress{};
    uint16_t leadPort = 0;
    Fd toLead;
    while (toLead.fd < 0 && Clock::now() < deadline) {
        if (!rendezvousAddress(job.rendezvous, leadAddress, leadPort)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        // A file's address is read again after each refusal: a stale file may be replaced.
        const auto tryUntil = job.rendezvous.file.empty()
                                  ? deadline
                                  : std::min(deadline, Clock::now() + std::chrono::seconds(1));
        toLead = connectTo(leadAddress, leadPort, tryUntil);
    }
    if (toLead.fd < 0)
        throw runtimeError("rank 0 did not open the rendezvous " + describe(job.rendezvous) +
                           " within " + seconds(job.timeout) +
                           " (ESTUARY_RANK_TIMEOUT): not started, or given another rendezvous");
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    ::getsockname(toLead.fd, reinterpret_cast<sockaddr*>(&local), &len);
    in_addr listenAt = local.sin_addr;
    if (!isLoopback(leadAddress)) listenAt.s_addr = htonl(INADDR_ANY);
    Fd listener;
    uint16_t port = 0;
    if (k + 1 < job.size)
        listener = listenOn(listenAt, 0, port, "a port for rank " + std::to_string(k + 1));
    Hello h{kMagic,
            kVersion,
            job.size,
            k,
            uint32_t(fingerprint),
            uint32_t(fingerprint >> 32),
            ntohl(local.sin_addr.s_addr),
            port};
    words(h, true);
    if (!move(toLead.fd, h.data(), sizeof(h), true, deadline, "rank 0"))
        throw runtimeError("rank 0 took no hello within " + seconds(job.timeout));
    // Rank 0 waits up to the timeout for the last rank; then for the table to go out.
    const auto tableBy = Clock::now() + 2 * job.timeout;
    std::vector<uint32_t> table(2 + 2 * size_t(job.size));
    try {
        if (!move(toLead.fd, table.data(), table.size() * 4, false, tableBy, "rank 0"))
            throw runtimeError("rank 0 sent no table of addresses within " +
                               seconds(2 * job.timeout));
    } catch (const Error&) {
        throw runtimeError("rank 0 ended the bootstrap before every rank had arrived (its own "
                           "output says which rank is missing)");
    }
    words(table, false);
    if (table[0] != kMagic || table[1] != job.size)
        throw runtimeError("rank 0 sent a table that is not for this job");
    fds[0] = toLead.release();
    const auto linkBy = Clock::now() + job.timeout;
    if (k >= 2) {
        in_addr below{};
        below.s_addr = htonl(table[2 + 2 * (k - 1)]);
        Fd fd = connectTo(below, uint16_t(table[3 + 2 * (k - 1)]), linkBy);
        if (fd.fd < 0)
            throw runtimeError("rank " + std::to_string(k) + " could not link to rank " +
                               std::to_string(k - 1) + " within " + seconds(job.timeout));
        Hello mine{kMagic, kVersion, job.size, k, 0, 0, 0, 0};
        words(mine, true);
        if (!move(fd.fd, mine.data(), sizeof(mine), true, linkBy, rankName(k - 1)))
            throw runtimeError(rankName(k - 1) + " took no hello within " + seconds(job.timeout));
        fds[k - 1] = fd.release();
    }
    if (k + 1 < job.size) {
        Fd fd = acceptOne(listener.fd, linkBy);
        Hello theirs{};
        if (fd.fd < 0 ||
            !move(fd.fd, theirs.data(), sizeof(theirs), false, linkBy, rankName(k + 1)))
            throw runtimeError(rankName(k + 1) + " did not link to rank " + std::to_string(k) +
                               " within " + seconds(job.timeout));
        words(theirs, false);
        if (theirs[0] != kMagic || theirs[3] != k + 1)
            throw runtimeError("rank " + std::to_string(k) +
                               "'s neighbour link was answered by "
                               "something other than rank " +
                               std::to_string(k + 1));
        fds[k + 1] = fd.release();
    }
    uint32_t word = htonl(kReady);
    if (!move(fds[0], &word, 4, true, linkBy, "rank 0"))
        throw runtimeError("rank 0 took no ready within " + seconds(job.timeout));
    if (!move(fds[0], &word, 4, false, Clock::now() + 2 * job.timeout, "rank 0") ||
        ntohl(word) != kGo)
        throw runtimeError("rank 0 did not start the job (its own output says why)");
}

} // namespace

Links connectRanks(const Job& job, uint64_t fingerprint) {
    Links links;
    links.job_ = job;
    links.rank_ = job.rank;
    links.size_ = job.size;
    links.fds_.assign(job.size, -1);
    if (job.size > 1) {
        if (job.rank == 0)
            lead(links.fds_, job, fingerprint);
        else
            follow(links.fds_, job, fingerprint);
    }
    return links;
}

} // namespace estuary::ranks
