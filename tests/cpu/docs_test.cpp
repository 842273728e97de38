// The guides' code is the code that is built and run: every block in docs/ marked
// <!-- file: PATH --> must be PATH's text exactly (the examples, which the Examples.* tests build
// and run against the installed package), so the docs cannot drift from what works.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const std::filesystem::path kSource = ESTUARY_SOURCE_DIR;

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST(Docs, EveryQuotedFileIsQuotedExactly) {
    size_t quoted = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kSource / "docs")) {
        if (entry.path().extension() != ".md") continue;
        const std::string doc = readText(entry.path());
        const std::string marker = "<!-- file: ";
        for (size_t at = doc.find(marker); at != std::string::npos; at = doc.find(marker, at + 1)) {
            const size_t nameEnd = doc.find(" -->", at);
            ASSERT_NE(nameEnd, std::string::npos) << entry.path();
            const std::string name = doc.substr(at + marker.size(), nameEnd - at - marker.size());
            SCOPED_TRACE(entry.path().filename().string() + " quoting " + name);
            const size_t open = doc.find("```", nameEnd);
            const size_t body = doc.find('\n', open) + 1;
            const size_t close = doc.find("\n```", body);
            ASSERT_NE(open, std::string::npos);
            ASSERT_NE(close, std::string::npos);
            const std::filesystem::path file = kSource / name;
            ASSERT_TRUE(std::filesystem::is_regular_file(file)) << file;
            EXPECT_EQ(doc.substr(body, close + 1 - body), readText(file))
                << "the block differs from the file: copy the file into the guide again";
            ++quoted;
        }
    }
    EXPECT_GE(quoted, 2u) << "the quick start quotes its program and its CMakeLists.txt";
}

} // namespace
