#include "output_file.h"
#include "errors.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace estuary {
namespace fs = std::filesystem;

namespace {

// Where `path` leads through its symbolic links; nullopt for no link, or a loop or an unreadable
// link (never throws: the messages use it).
std::optional<fs::path> linkedTarget(const fs::path& path) {
    fs::path current = path;
    std::error_code ec;
    for (int hop = 0; hop < 40 && fs::is_symlink(current, ec); ++hop) {
        const fs::path next = fs::read_symlink(current, ec);
        if (ec) return std::nullopt;
        current = next.is_absolute() ? next : current.parent_path() / next;
    }
    if (current == path || fs::is_symlink(current, ec)) return std::nullopt;
    return current;
}

// `path`, and where it is a symbolic link the file it was followed to (the rule, output_file.h).
std::string named(const fs::path& path) {
    const auto target = linkedTarget(path);
    return target ? path.string() + " (a link, followed to " + target->string() + ")"
                  : path.string();
}

Error failure(const fs::path& path, int error) {
    return runtimeError("cannot write " + named(path) + ": " + std::strerror(error));
}

Error failure(const fs::path& path, const std::string& why) {
    return runtimeError("cannot write " + named(path) + ": " + why);
}

// Bytes a write to `target` may make before failing with ENOSPC (ESTUARY_FAULT_WRITE, see the
// header); none when no fault is asked for this file.
std::optional<size_t> injectedFaultAfter(const fs::path& target) {
    const char* spec = std::getenv("ESTUARY_FAULT_WRITE");
    if (!spec || !*spec) return std::nullopt;
    const std::string_view text(spec);
    const size_t colon = text.find(':');
    if (text.substr(0, colon) != target.filename().string()) return std::nullopt;
    size_t bytes = 0;
    if (colon != std::string_view::npos)
        std::from_chars(text.data() + colon + 1, text.data() + text.size(), bytes);
    return bytes;
}

// Writes everything, resuming after signals and short writes. Returns 0 or the errno. `budget`:
// bytes left before an injected ENOSPC, decremented by what is written.
int writeAll(int fd, std::string_view bytes, std::optional<size_t>* budget = nullptr) {
    size_t done = 0;
    while (done < bytes.size()) {
        size_t chunk = bytes.size() - done;
        if (budget && *budget) {
            if (**budget == 0) return ENOSPC;
            chunk = std::min(chunk, **budget);
        }
        const ssize_t n = ::write(fd, bytes.data() + done, chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        done += size_t(n);
        if (budget && *budget) **budget -= size_t(n);
    }
    return 0;
}

fs::path folderOf(const fs::path& target) {
    return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

void createFolder(const fs::path& path, const fs::path& folder) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw failure(path, ec.message());
}

// A new, empty file beside `target`, hidden and unique to this process and call.
struct TempFile {
    fs::path path;
    int fd = -1;
};

TempFile createTempBeside(const fs::path& path, const fs::path& target) {
    static std::atomic<unsigned> counter{0};
    const fs::path folder = folderOf(target);
    for (int attempt = 0; attempt < 100; ++attempt) {
        TempFile temp;
        temp.path = folder / ("." + target.filename().string() + ".tmp-" +
                              std::to_string(getpid()) + "-" + std::to_string(counter++));
        temp.fd = ::open(temp.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (temp.fd >= 0) return temp;
        if (errno != EEXIST) throw failure(path, errno);
    }
    throw failure(path, "no free temporary file name in " + folder.string());
}

// The rename itself is durable only once its folder is on disk. Some file systems cannot fsync a
// folder (EINVAL); the data is still safe there.
void syncFolder(const fs::path& folder) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
}

// Moves `from` to `to` unless `to` exists. Returns false when it does.
bool renameNoReplace(const fs::path& path, const fs::path& from, const fs::path& to) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
        return true;
    if (errno == EEXIST) return false;
    if (errno != EINVAL && errno != ENOSYS) throw failure(path, errno);
    // A file system without RENAME_NOREPLACE: link() refuses an existing name just the same.
    if (::link(from.c_str(), to.c_str()) != 0) {
        if (errno == EEXIST) return false;
        throw failure(path, errno);
    }
    ::unlink(from.c_str());
    return true;
}

// An existing file without write permission is not replaced, although a rename in a writable
// folder could: for anyone without write access to it, and for everyone (root included, as rm
// asks) when it has no write bit at all.
void refuseWriteProtected(const fs::path& path, const fs::path& target, const struct stat& st) {
    if (!S_ISREG(st.st_mode)) return;
    if ((st.st_mode & 0222) != 0 && ::access(target.c_str(), W_OK) == 0) return;
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", unsigned(st.st_mode & 07777));
    throw failure(path, std::string("it is write-protected (mode ") + mode +
                            "): make it writable or choose another path");
}

// Temporary file, full write, fsync, rename. Returns false only for !replace and an existing
// target; throws for everything else (the producer's exceptions too), having removed the temporary.
bool commitFile(const fs::path& path, const ProduceBytes& produce, bool replace) {
    const fs::path target = followLinks(path);
    const fs::path folder = folderOf(target);
    createFolder(path, folder);
    struct stat existing {};
    const bool exists = ::stat(target.c_str(), &existing) == 0;
    if (exists && S_ISDIR(existing.st_mode)) throw failure(path, EISDIR);
    if (exists && replace) refuseWriteProtected(path, target, existing);

    TempFile temp = createTempBeside(path, target);
    try {
        // A replaced file keeps its permissions.
        if (exists) (void)::fchmod(temp.fd, existing.st_mode & 07777);
        std::optional<size_t> budget = injectedFaultAfter(target);
        produce([&](std::string_view bytes) {
            if (const int error = writeAll(temp.fd, bytes, &budget)) throw failure(path, error);
        });
        if (::fsync(temp.fd) != 0) throw failure(path, errno);
        const int fd = temp.fd;
        temp.fd = -1;
        if (::close(fd) != 0) throw failure(path, errno);
        if (replace) {
            if (::rename(temp.path.c_str(), target.c_str()) != 0) throw failure(path, errno);
        } else if (!renameNoReplace(path, temp.path, target)) {
            ::unlink(temp.path.c_str());
            return false;
        }
    } catch (...) {
        if (temp.fd >= 0) ::close(temp.fd);
        ::unlink(temp.path.c_str());
        throw;
    }
    syncFolder(folder);
    return true;
}

bool isWrittenDirectly(const fs::path& path) {
    struct stat st {};
    return descriptorNamedBy(path) ||
           (::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)));
}

std::optional<std::pair<dev_t, ino_t>> inodeOf(int fd, const fs::path& path) {
    struct stat st {};
    if (fd >= 0 ? ::fstat(fd, &st) == 0 : ::stat(path.c_str(), &st) == 0)
        return std::pair{st.st_dev, st.st_ino};
    return std::nullopt;
}

const char* fileTypeName(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISBLK(mode)) return "a block device";
    return "not a regular file";
}

} // namespace

fs::path followLinks(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_symlink(path, ec)) return path;
    if (const auto target = linkedTarget(path)) return *target;
    // A loop, more links than the kernel follows, or a link that cannot be read.
    throw failure(path, std::string(std::strerror(ELOOP)) +
                            ": its symbolic links do not lead to a file within 40 steps");
}

fs::path checkRenameTarget(const fs::path& path) {
    if (path.empty()) throw failure(path, "the path is empty");
    if (const auto fd = descriptorNamedBy(path))
        throw failure(path, "it names file descriptor " + std::to_string(*fd) +
                                ", and this file is written beside its name and then renamed: "
                                "give a file name");
    const fs::path target = followLinks(path);
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) throw failure(path, "it is a folder: give a file name");
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))
            throw failure(path, std::string("it is ") +
                                    (S_ISFIFO(st.st_mode) ? "a FIFO" : "a character device") +
                                    ", and this file is written beside its name and then "
                                    "renamed: give a regular file's name");
        if (!S_ISREG(st.st_mode))
            throw failure(path, std::string("it is ") + fileTypeName(st.st_mode));
        refuseWriteProtected(path, target, st);
    } else if (errno != ENOENT) {
        throw failure(path, errno);
    }
    const fs::path folder = folderOf(target);
    std::error_code ec;
    if (!fs::is_directory(folder, ec))
        throw failure(path, "folder " + folder.string() + " does not exist");
    TempFile probe = createTempBeside(path, target); // says more than permission bits (root)
    ::close(probe.fd);
    ::unlink(probe.path.c_str());
    return target;
}

std::optional<int> descriptorNamedBy(const fs::path& path) {
    if (path == "-") return 1; // as given: ./- is a file
    const std::string text = path.lexically_normal().string();
    if (text == "/dev/stdout") return 1;
    if (text == "/dev/stderr") return 2;
    for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (text.rfind(prefix, 0) != 0) continue;
        const char* first = text.data() + prefix.size();
        const char* last = text.data() + text.size();
        int fd = -1;
        const auto [end, ec] = std::from_chars(first, last, fd);
        if (ec == std::errc() && end == last && first != last) return fd;
    }
    return std::nullopt;
}

void writeFileAtomically(const fs::path& path, std::string_view bytes) {
    writeFileAtomically(path, [bytes](const WriteChunk& put) { put(bytes); });
}

void writeFileAtomically(const fs::path& path, const ProduceBytes& produce) {
    if (path.empty()) throw failure(path, "the path is empty");
    if (isWrittenDirectly(path)) {
        OutputFile::open(path).write(produce);
        return;
    }
    commitFile(path, produce, /*replace=*/true);
}

bool writeNewFile(const fs::path& path, std::string_view bytes) {
    if (path.empty()) throw failure(path, "the path is empty");
    return commitFile(
        path, [bytes](const WriteChunk& put) { put(bytes); }, /*replace=*/false);
}

OutputFile OutputFile::open(const fs::path& path) {
    OutputFile out;
    out.path_ = path;
    if (path.empty()) throw failure(path, "the path is empty");
    if (const auto fd = descriptorNamedBy(path)) {
        out.fd_ = ::fcntl(*fd, F_DUPFD_CLOEXEC, 3);
        if (out.fd_ < 0)
            throw failure(path, "file descriptor " + std::to_string(*fd) + " is not open");
        out.direct_ = true;
        out.standardOutput_ = *fd == 1;
        out.inode_ = inodeOf(out.fd_, path);
        return out;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISFIFO(st.st_mode)) {
            // Without O_NONBLOCK, opening a FIFO waits for a reader, forever if none comes.
            out.fd_ = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (out.fd_ < 0 && errno == ENXIO)
                throw failure(path, "it is a FIFO and no process is reading it (start the "
                                    "reader first)");
            if (out.fd_ < 0) throw failure(path, errno);
            ::fcntl(out.fd_, F_SETFL, ::fcntl(out.fd_, F_GETFL) & ~O_NONBLOCK);
        } else if (S_ISCHR(st.st_mode)) {
            out.fd_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
            if (out.fd_ < 0) throw failure(path, errno);
        } else if (!S_ISREG(st.st_mode)) {
            throw failure(path, std::string("it is ") + fileTypeName(st.st_mode));
        }
        out.inode_ = inodeOf(out.fd_, path);
    } else if (errno != ENOENT) {
        throw failure(path, errno);
    }
    // Through links, dangling ones included: `lnk -> same.out` is the same file as same.out
    // before either exists.
    const fs::path followed = followLinks(path);
    std::error_code ec;
    out.canonical_ = fs::weakly_canonical(fs::absolute(followed), ec);
    if (ec) out.canonical_ = fs::absolute(followed).lexically_normal();
    out.direct_ = out.fd_ >= 0;
    if (out.direct_) return out;

    // A regular file: the folder must exist (it is created now, as the write would) and take a
    // new file. Creating one says more than permission bits, which root ignores anyway.
    const fs::path target = followLinks(path);
    if (struct stat existing{}; ::stat(target.c_str(), &existing) == 0)
        refuseWriteProtected(path, target, existing);
    createFolder(path, folderOf(target));
    TempFile probe = createTempBeside(path, target);
    ::close(probe.fd);
    ::unlink(probe.path.c_str());
    return out;
}

OutputFile OutputFile::openRenamed(const fs::path& path) {
    OutputFile out;
    out.path_ = path;
    const fs::path target = checkRenameTarget(path);
    out.inode_ = inodeOf(-1, target);
    std::error_code ec;
    out.canonical_ = fs::weakly_canonical(fs::absolute(target), ec);
    if (ec) out.canonical_ = fs::absolute(target).lexically_normal();
    return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : path_(std::move(other.path_)), canonical_(std::move(other.canonical_)), inode_(other.inode_),
      fd_(other.fd_), direct_(other.direct_), standardOutput_(other.standardOutput_),
      written_(other.written_) {
    other.fd_ = -1;
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
    if (this == &other) return *this;
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    canonical_ = std::move(other.canonical_);
    inode_ = other.inode_;
    fd_ = other.fd_;
    direct_ = other.direct_;
    standardOutput_ = other.standardOutput_;
    written_ = other.written_;
    other.fd_ = -1;
    return *this;
}

OutputFile::~OutputFile() {
    if (fd_ >= 0) ::close(fd_);
}

void OutputFile::write(std::string_view bytes) {
    write([bytes](const WriteChunk& put) { put(bytes); });
}

void OutputFile::write(const ProduceBytes& produce) {
    if (path_.empty()) throw failure(path_, "no output was opened");
    if (!direct_) {
        commitFile(path_, produce, /*replace=*/true);
        written_ = true;
        return;
    }
    if (fd_ < 0) throw failure(path_, "it was written already");
    const int fd = std::exchange(fd_, -1);
    int error = 0;
    try {
        produce([&](std::string_view bytes) {
            if (error == 0) error = writeAll(fd, bytes);
        });
    } catch (...) {
        ::close(fd);
        throw;
    }
    // Only this copy of a shared descriptor (the standard output) is closed.
    const int closeError = ::close(fd) != 0 ? errno : 0;
    if (error) throw failure(path_, error);
    if (closeError && closeError != EINTR) throw failure(path_, closeError);
    written_ = true;
}

bool OutputFile::sameTarget(const OutputFile& other) const {
    if (inode_ && other.inode_) return *inode_ == *other.inode_;
    return !canonical_.empty() && canonical_ == other.canonical_;
}

} // namespace estuary
