// Files estuary writes — screenshots, benchmark reports, CSVs — are never left half-written: the
// bytes go to a temporary file beside the target (created with O_EXCL), are flushed to disk, and
// the temporary is renamed over the target, so a full disk, a crash or Ctrl-C leaves the previous
// file intact and no temporary behind (a second Ctrl-C, which kills at once, may leave one).
//
// Symbolic links, one rule: a link is followed to the file it names, whether that file exists or
// not (a dangling link's target is created), and that file is the one replaced; the link stays.
// Aliases are decided on the followed names, so `lnk.out -> same.out` is the same output as
// same.out before either exists.
//
// A file-size limit (ulimit -f) is a write error like a full disk (EFBIG) only where SIGXFSZ is
// ignored, as the estuary program does; otherwise the kernel kills the process at the limit.
// Programs using the library that want the error rather than the kill should ignore SIGXFSZ too.
//
// Targets a rename cannot replace are written directly: a path naming one of the process's file
// descriptors ("-" and /dev/stdout are the standard output; /dev/stderr, /dev/fd/N,
// /proc/self/fd/N), an existing character device (/dev/null, a terminal) or FIFO. A FIFO nobody
// reads is an error, never a wait. Folders, sockets and block devices are refused.
//
// Fault injection for tests: with ESTUARY_FAULT_WRITE=NAME[:BYTES] in the environment, writing a
// regular file named NAME fails with ENOSPC after BYTES bytes (default 0) of its temporary.
// Every failure is an estuary::Error (Runtime) naming the path and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <sys/types.h>
#include <utility>

namespace estuary {

// Bytes handed over piece by piece, so a large file (a per-frame CSV) need not be built in memory
// first: the producer calls the sink with each piece, in order.
using WriteChunk = std::function<void(std::string_view)>;
using ProduceBytes = std::function<void(const WriteChunk&)>;

// The file `path` names once its symbolic links are followed (the rule above); `path` itself when
// it is no link. Throws for a loop of links.
std::filesystem::path followLinks(const std::filesystem::path& path);

// For a file written beside its name and renamed by someone else (a recording, video_module.h):
// checks that `path` can be replaced that way — no descriptor, folder, FIFO or device, not
// write-protected, its folder existing and taking a new file — and returns the file the rename
// must replace (links followed). Throws estuary::Error (Runtime) naming the path and the reason.
std::filesystem::path checkRenameTarget(const std::filesystem::path& path);

// Creates missing parent folders; replaces the target (a symbolic link's target, not the link).
// An exception from the producer abandons the write like any failure.
void writeFileAtomically(const std::filesystem::path& path, std::string_view bytes);
void writeFileAtomically(const std::filesystem::path& path, const ProduceBytes& produce);

// Like writeFileAtomically, but never replaces anything: returns false, having written nothing,
// when `path` already exists (decided by the rename itself, so two writers cannot both win).
bool writeNewFile(const std::filesystem::path& path, std::string_view bytes);

// An output named before the work starts. open() checks it now — a folder can be created and
// written, a FIFO has a reader (its descriptor is then kept open until write()), a descriptor is
// open — so that a long run does not fail at its end for a bad path. Owns the descriptor it opened.
class OutputFile {
  public:
    // Throws estuary::Error (Runtime) naming the path and what is wrong with it.
    static OutputFile open(const std::filesystem::path& path);
    // An output another writer produces by a rename (checkRenameTarget's checks), kept only to
    // be compared with sameTarget; write() is not for it.
    static OutputFile openRenamed(const std::filesystem::path& path);

    OutputFile() = default;
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;
    OutputFile(OutputFile&& other) noexcept;
    OutputFile& operator=(OutputFile&& other) noexcept;
    ~OutputFile();

    // A regular file is replaced atomically (writeFileAtomically); anything else is written through
    // the descriptor opened by open(), which is then closed (a FIFO's reader sees the end). A
    // descriptor-backed output takes one write.
    void write(std::string_view bytes);
    void write(const ProduceBytes& produce);

    const std::filesystem::path& path() const { return path_; }
    bool written() const { return written_; }
    // "-", /dev/stdout, /dev/fd/1 or /proc/self/fd/1.
    bool isStandardOutput() const { return standardOutput_; }
    // Whether both name the same file: the same inode where it exists (hard and symbolic links,
    // the same pipe), else the same canonical path.
    bool sameTarget(const OutputFile& other) const;

  private:
    std::filesystem::path path_;      // as given, for messages
    std::filesystem::path canonical_; // weakly canonical, for sameTarget
    std::optional<std::pair<dev_t, ino_t>> inode_;
    int fd_ = -1;         // until written: a descriptor, character device or FIFO
    bool direct_ = false; // written through fd_, not replaced by a rename
    bool standardOutput_ = false;
    bool written_ = false;
};

// The file descriptor a path names by itself, without the file system: 1 for "-", /dev/stdout,
// /dev/fd/1 and /proc/self/fd/1; 2 for /dev/stderr; N for /dev/fd/N and /proc/self/fd/N.
std::optional<int> descriptorNamedBy(const std::filesystem::path& path);

} // namespace estuary
