// The atomic writer of output files (output_file.h), in-process: a failed write — an injected full
// disk, a producer that throws, a file-size limit — keeps the previous file and leaves no temporary
// behind; links, dangling ones included, are followed, never replaced; writeNewFile never replaces;
// FIFOs and devices are written directly and a FIFO nobody reads fails at once; sameTarget sees
// through spellings and links.
#include "errors.h"
#include "output_file.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <csignal>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace estuary {
namespace {

namespace fs = std::filesystem;
using test::listFolder;
using test::readFile;

// ESTUARY_FAULT_WRITE for the scope of one test.
struct FaultWrite : test::ScopedEnv {
    explicit FaultWrite(const std::string& spec) : ScopedEnv({{"ESTUARY_FAULT_WRITE", spec}}) {}
};

std::string errorOf(const std::function<void()>& write) {
    try {
        write();
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Runtime);
        return e.what();
    }
    return "(no error)";
}

TEST(OutputFile, WriteReplacesTheWholeFileAndLeavesNoTemporary) {
    const auto dir = test::scratchDir("output-replace");
    writeFileAtomically(dir / "report.json", "a much longer previous content\n");
    writeFileAtomically(dir / "report.json", "{}\n");
    EXPECT_EQ(readFile(dir / "report.json"), "{}\n");
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"report.json"});
}

TEST(OutputFile, AFailedWriteKeepsThePreviousFileAndRemovesItsTemporary) {
    const auto dir = test::scratchDir("output-fault");
    const auto path = dir / "shot.png";
    writeFileAtomically(path, "previous picture");
    for (const char* spec : {"shot.png", "shot.png:5"}) {
        const FaultWrite fault(spec);
        const std::string what =
            errorOf([&] { writeFileAtomically(path, std::string(100'000, 'x')); });
        EXPECT_NE(what.find(path.string()), std::string::npos) << what;
        EXPECT_NE(what.find(std::strerror(ENOSPC)), std::string::npos) << what;
        EXPECT_EQ(readFile(path), "previous picture") << spec;
        EXPECT_EQ(listFolder(dir), std::vector<std::string>{"shot.png"}) << spec;
    }
    // The fault names one file: others are written.
    const FaultWrite fault("other.png");
    writeFileAtomically(path, "new picture");
    EXPECT_EQ(readFile(path), "new picture");
}

TEST(OutputFile, AProducerThatThrowsAbandonsTheWrite) {
    const auto dir = test::scratchDir("output-producer");
    const auto path = dir / "frames.csv";
    writeFileAtomically(path, "previous\n");
    EXPECT_THROW(writeFileAtomically(path,
                                     [](const WriteChunk& put) {
                                         put("half of the rows\n");
                                         throw std::runtime_error("interrupted");
                                     }),
                 std::runtime_error);
    EXPECT_EQ(readFile(path), "previous\n");
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"frames.csv"});
    writeFileAtomically(path, [](const WriteChunk& put) {
        put("a,");
        put("b\n");
    });
    EXPECT_EQ(readFile(path), "a,b\n");
}

TEST(OutputFile, ASymbolicLinkIsKeptAndItsTargetReplaced) {
    const auto dir = test::scratchDir("output-link");
    fs::create_directories(dir / "real");
    writeFileAtomically(dir / "real" / "report.json", "old");
    fs::create_symlink(dir / "real" / "report.json", dir / "link.json");
    writeFileAtomically(dir / "link.json", "new");
    EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
    EXPECT_EQ(readFile(dir / "real" / "report.json"), "new");
}

TEST(OutputFile, ExistingPermissionsAreKept) {
    const auto dir = test::scratchDir("output-mode");
    const auto path = dir / "report.json";
    writeFileAtomically(path, "old");
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    writeFileAtomically(path, "new");
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

// A file without write permission is kept, the write refused naming the path and the mode (root,
// who runs CI, bypasses permission checks: the mode bits alone decide for it, as for rm).
TEST(OutputFile, AWriteProtectedFileIsNeitherReplacedNorOpened) {
    const auto dir = test::scratchDir("output-protected");
    const auto path = dir / "report.json";
    writeFileAtomically(path, "keep");
    fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    for (const auto& attempt : std::vector<std::function<void()>>{
             [&] { writeFileAtomically(path, "lost"); }, [&] { (void)OutputFile::open(path); }}) {
        try {
            attempt();
            ADD_FAILURE() << "a write-protected file was accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("write-protected (mode 0444)"), std::string::npos)
                << e.what();
            EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
        }
    }
    // Through a link too: the link's target is what would be replaced.
    fs::create_symlink(path, dir / "link.json");
    EXPECT_THROW(writeFileAtomically(dir / "link.json", "lost"), Error);
    fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
    EXPECT_EQ(readFile(path), "keep");
    writeFileAtomically(path, "now");
    EXPECT_EQ(readFile(path), "now");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 2)
        << "a temporary was left";
}

TEST(OutputFile, WriteNewFileNeverReplacesAnExistingFile) {
    const auto dir = test::scratchDir("output-new");
    const auto path = dir / "estuary-screenshot-000.png";
    EXPECT_TRUE(writeNewFile(path, "first"));
    EXPECT_FALSE(writeNewFile(path, "second"));
    EXPECT_EQ(readFile(path), "first");
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"estuary-screenshot-000.png"});
}

TEST(OutputFile, FoldersCannotBeTargetsAndAFileCannotBeAFolder) {
    const auto dir = test::scratchDir("output-bad");
    writeFileAtomically(dir / "file", "x");
    const std::string folder = errorOf([&] { writeFileAtomically(dir, "x"); });
    EXPECT_NE(folder.find(std::strerror(EISDIR)), std::string::npos) << folder;
    const auto underFile = dir / "file" / "report.json";
    const std::string notDir = errorOf([&] { writeFileAtomically(underFile, "x"); });
    EXPECT_NE(notDir.find(underFile.string()), std::string::npos) << notDir;
    EXPECT_NE(notDir.find(std::strerror(ENOTDIR)), std::string::npos) << notDir;
    // open() says the same before any work.
    EXPECT_THROW(OutputFile::open(dir), Error);
    EXPECT_THROW(OutputFile::open(underFile), Error);
    EXPECT_THROW(OutputFile::open(""), Error);
}

TEST(OutputFile, OpenRefusesASocket) {
    const auto dir = test::scratchDir("output-socket");
    const auto path = dir / "socket";
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    const std::string what = errorOf([&] { OutputFile::open(path); });
    close(fd);
    EXPECT_NE(what.find("socket"), std::string::npos) << what;
}

TEST(OutputFile, OpenChecksTheFolderCreatesItAndLeavesNothingElse) {
    const auto dir = test::scratchDir("output-open");
    OutputFile file = OutputFile::open(dir / "new" / "folder" / "report.json");
    EXPECT_TRUE(fs::is_directory(dir / "new" / "folder"));
    EXPECT_TRUE(fs::is_empty(dir / "new" / "folder")) << "the probe file was left behind";
    EXPECT_FALSE(file.written());
    file.write("{}");
    EXPECT_TRUE(file.written());
    EXPECT_EQ(readFile(dir / "new" / "folder" / "report.json"), "{}");
}

TEST(OutputFile, AFifoWithoutAReaderFailsAtOnce) {
    const auto dir = test::scratchDir("output-fifo-alone");
    const auto fifo = dir / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    const std::string open = errorOf([&] { OutputFile::open(fifo); });
    const std::string write = errorOf([&] { writeFileAtomically(fifo, "x"); });
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
    EXPECT_NE(open.find("no process is reading"), std::string::npos) << open;
    EXPECT_NE(write.find("no process is reading"), std::string::npos) << write;
    EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo) << "the FIFO was replaced";
}

TEST(OutputFile, AFifoWithAReaderGetsTheBytesAndItsEnd) {
    const auto dir = test::scratchDir("output-fifo");
    const auto fifo = dir / "fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    ASSERT_GE(reader, 0);
    {
        OutputFile file = OutputFile::open(fifo);
        file.write("through the pipe");
        EXPECT_THROW(file.write("again"), Error) << "a FIFO takes one write";
    }
    char buffer[64] = {};
    const ssize_t n = read(reader, buffer, sizeof(buffer));
    EXPECT_EQ(std::string(buffer, size_t(std::max<ssize_t>(n, 0))), "through the pipe");
    EXPECT_EQ(read(reader, buffer, sizeof(buffer)), 0) << "the writer's end was not closed";
    close(reader);
}

TEST(OutputFile, CharacterDevicesAreWrittenDirectly) {
    writeFileAtomically("/dev/null", "nothing");
    EXPECT_EQ(fs::status("/dev/null").type(), fs::file_type::character);
    const std::string full = errorOf([] { writeFileAtomically("/dev/full", "x"); });
    EXPECT_NE(full.find("/dev/full"), std::string::npos) << full;
    EXPECT_NE(full.find(std::strerror(ENOSPC)), std::string::npos) << full;
}

TEST(OutputFile, DescriptorPathsAreRecognizedBySpelling) {
    EXPECT_EQ(descriptorNamedBy("-"), 1);
    EXPECT_EQ(descriptorNamedBy("/dev/stdout"), 1);
    EXPECT_EQ(descriptorNamedBy("/dev/fd/1"), 1);
    EXPECT_EQ(descriptorNamedBy("/proc/self/fd/1"), 1);
    EXPECT_EQ(descriptorNamedBy("/dev/stderr"), 2);
    EXPECT_EQ(descriptorNamedBy("/dev/fd/7"), 7);
    for (const char* other : {"stdout", "./-", "/dev/fd/", "/dev/fd/1x", "/dev/null", "--"})
        EXPECT_FALSE(descriptorNamedBy(other)) << other;
    // A descriptor that is not open is refused when opened, not when written.
    EXPECT_THROW(OutputFile::open("/dev/fd/987"), Error);
}

TEST(OutputFile, SameTargetSeesThroughSpellingsAndLinks) {
    const auto dir = test::scratchDir("output-same");
    writeFileAtomically(dir / "a.json", "x");
    fs::create_symlink(dir / "a.json", dir / "link.json");
    fs::create_hard_link(dir / "a.json", dir / "hard.json");
    const OutputFile a = OutputFile::open(dir / "a.json");
    EXPECT_TRUE(a.sameTarget(OutputFile::open(dir / "." / "a.json")));
    EXPECT_TRUE(a.sameTarget(OutputFile::open(dir / "link.json")));
    EXPECT_TRUE(a.sameTarget(OutputFile::open(dir / "hard.json")));
    EXPECT_FALSE(a.sameTarget(OutputFile::open(dir / "b.json")));
    const OutputFile fresh = OutputFile::open(dir / "new.csv"); // not there yet
    EXPECT_TRUE(fresh.sameTarget(OutputFile::open(dir / "sub" / ".." / "new.csv")));
    EXPECT_TRUE(OutputFile::open("-").sameTarget(OutputFile::open("/dev/stdout")));
    EXPECT_TRUE(OutputFile::open("-").isStandardOutput());
}

// The one rule for links: followed to their target whether it exists or not; the link stays.
TEST(OutputFile, ADanglingLinkIsFollowedToItsTargetAndKept) {
    const auto dir = test::scratchDir("output-dangling");
    fs::create_symlink("real/report.json", dir / "link.json"); // relative; real/ does not exist
    writeFileAtomically(dir / "link.json", "new");
    EXPECT_TRUE(fs::is_symlink(dir / "link.json"));
    EXPECT_EQ(readFile(dir / "real" / "report.json"), "new");
    EXPECT_EQ(listFolder(dir / "real"), std::vector<std::string>{"report.json"});
}

TEST(OutputFile, AliasesThroughDanglingLinksAreTheSameTarget) {
    const auto dir = test::scratchDir("output-dangling-same");
    fs::create_symlink("same.out", dir / "lnk.out");
    fs::create_symlink(dir / "lnk.out", dir / "chain.out"); // a link to the link
    const OutputFile same = OutputFile::open(dir / "same.out");
    EXPECT_TRUE(same.sameTarget(OutputFile::open(dir / "lnk.out")));
    EXPECT_TRUE(same.sameTarget(OutputFile::open(dir / "chain.out")));
    EXPECT_TRUE(same.sameTarget(OutputFile::openRenamed(dir / "lnk.out")));
    EXPECT_FALSE(same.sameTarget(OutputFile::open(dir / "other.out")));
}

TEST(OutputFile, ALoopOfLinksIsAnErrorNamingThePath) {
    const auto dir = test::scratchDir("output-loop");
    fs::create_symlink("b.out", dir / "a.out");
    fs::create_symlink("a.out", dir / "b.out");
    const std::string error = errorOf([&] { writeFileAtomically(dir / "a.out", "x"); });
    EXPECT_NE(error.find((dir / "a.out").string()), std::string::npos) << error;
    EXPECT_NE(error.find(std::strerror(ELOOP)), std::string::npos) << error;
}

TEST(OutputFile, RenameTargetsRefuseWhatARenameCannotReplace) {
    const auto dir = test::scratchDir("output-rename-target");
    ASSERT_EQ(mkfifo((dir / "fifo").c_str(), 0600), 0);
    EXPECT_NE(errorOf([&] { checkRenameTarget(dir / "fifo"); }).find("FIFO"), std::string::npos);
    EXPECT_NE(errorOf([&] { checkRenameTarget("/dev/null"); }).find("character device"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { checkRenameTarget("-"); }).find("descriptor 1"), std::string::npos);
    EXPECT_NE(errorOf([&] { checkRenameTarget(dir); }).find("folder"), std::string::npos);
    EXPECT_NE(errorOf([&] { checkRenameTarget(dir / "no" / "clip.mp4"); }).find("does not exist"),
              std::string::npos);
    fs::create_symlink("deep/clip.mp4", dir / "link.mp4");
    fs::create_directory(dir / "deep");
    EXPECT_EQ(checkRenameTarget(dir / "link.mp4"), dir / "deep" / "clip.mp4");
    EXPECT_EQ(listFolder(dir / "deep"), std::vector<std::string>{}) << "the probe was left";
}

// A file-size limit (ulimit -f) with SIGXFSZ ignored, as estuary ignores it: a real EFBIG in a
// child process, the message naming the file, the previous file kept, no temporary left.
TEST(OutputFile, AFileSizeLimitIsAWriteErrorNamingTheFile) {
    const auto dir = test::scratchDir("output-fsize");
    writeFileAtomically(dir / "big.csv", "old");
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{1024, 1024};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(10);
        try {
            writeFileAtomically(dir / "big.csv", std::string(4096, 'x'));
        } catch (const Error& e) {
            const std::string what = e.what();
            const bool named = what.find((dir / "big.csv").string()) != std::string::npos;
            _exit(named && what.find(std::strerror(EFBIG)) != std::string::npos ? 0 : 11);
        }
        _exit(12); // written past the limit
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: no limit, 11: wrong message, 12: no error";
    EXPECT_EQ(readFile(dir / "big.csv"), "old");
    EXPECT_EQ(listFolder(dir), std::vector<std::string>{"big.csv"});
}

} // namespace
} // namespace estuary
