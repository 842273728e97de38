#include "input_file.h"

#include "errors.h"

#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace estuary {

void requireRegularFile(const std::filesystem::path& path, const std::string& what) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw runtimeError("cannot open " + what + " " + path.string() + ": " +
                           std::strerror(errno) + " (is estuary's data folder complete?)");
    if (S_ISREG(st.st_mode)) return;
    const char* kind = S_ISDIR(st.st_mode)    ? "a folder"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw runtimeError(what + " " + path.string() + " is " + kind +
                       ", not a file: estuary's data folder is damaged (reinstall, or point "
                       "ESTUARY_DATA_DIR at a complete one)");
}

} // namespace estuary
