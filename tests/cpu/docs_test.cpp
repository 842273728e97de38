// The guides' code is the code that is built and run: every block in docs/ marked
// <!-- file: PATH --> must be PATH's text exactly (the examples, which the Examples.* tests build
// and run against the installed package), every block marked <!-- excerpt: PATH --> must be a run
// of PATH's lines (indentation aside), and every C, C++, CUDA or CMake block must carry one of the
// two marks, so the docs cannot drift from what compiles and works.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::filesystem::path kSource = ESTUARY_SOURCE_DIR;

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string trimmed(const std::string& line) {
    const size_t first = line.find_first_not_of(" \t");
    const size_t last = line.find_last_not_of(" \t\r");
    return first == std::string::npos ? "" : line.substr(first, last + 1 - first);
}

// The text's lines, each without its indentation and trailing blanks.
std::vector<std::string> trimmedLines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(trimmed(line));
    return lines;
}

bool containsRun(const std::vector<std::string>& file, const std::vector<std::string>& run) {
    if (run.empty() || run.size() > file.size()) return false;
    for (size_t at = 0; at + run.size() <= file.size(); ++at)
        if (std::equal(run.begin(), run.end(), file.begin() + long(at))) return true;
    return false;
}

struct Block {
    std::string language, body, mark, path; // mark: "file", "excerpt" or ""
    size_t line = 0;
};

// Every fenced block of a guide, with the mark on the line before its fence.
std::vector<Block> blocksOf(const std::string& doc) {
    std::vector<Block> blocks;
    std::istringstream in(doc);
    std::string line, previous;
    size_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (line.rfind("```", 0) != 0) {
            previous = line;
            continue;
        }
        Block block;
        block.language = trimmed(line.substr(3));
        block.line = number;
        for (const char* mark : {"file", "excerpt"}) {
            const std::string open = std::string("<!-- ") + mark + ": ";
            if (previous.rfind(open, 0) == 0 && previous.size() > open.size() + 4) {
                block.mark = mark;
                block.path = previous.substr(open.size(), previous.find(" -->") - open.size());
            }
        }
        while (std::getline(in, line) && line.rfind("```", 0) != 0) {
            ++number;
            block.body += line + "\n";
        }
        ++number;
        blocks.push_back(block);
        previous.clear();
    }
    return blocks;
}

TEST(Docs, EveryCodeBlockIsAFileOrAnExcerptOfOne) {
    size_t excerpts = 0;
    for (const auto& entry : std::filesystem::directory_iterator(kSource / "docs")) {
        if (entry.path().extension() != ".md") continue;
        for (const Block& block : blocksOf(readText(entry.path()))) {
            SCOPED_TRACE(entry.path().filename().string() + ":" + std::to_string(block.line));
            const bool code = block.language == "c" || block.language == "cpp" ||
                              block.language == "cuda" || block.language == "cmake";
            if (code) {
                EXPECT_FALSE(block.mark.empty())
                    << "a " << block.language << " block without <!-- file: --> or "
                    << "<!-- excerpt: --> before it: code in the guides comes from built files";
            }
            if (block.mark != "excerpt") continue;
            const std::filesystem::path file = kSource / block.path;
            ASSERT_TRUE(std::filesystem::is_regular_file(file)) << file;
            EXPECT_TRUE(containsRun(trimmedLines(readText(file)), trimmedLines(block.body)))
                << "the block is not a run of " << block.path << "'s lines:\n"
                << block.body;
            ++excerpts;
        }
    }
    EXPECT_GE(excerpts, 4u);
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
