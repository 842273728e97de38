// The files one run of estuary writes — the screenshot (headless, or the window's --screenshot),
// the benchmark's report and CSV, the --trace of headless and benchmark runs, the --record video —
// opened and checked before any GPU work, so a bad path costs nothing (today's runs would fail only
// after all their frames). Written later with OutputFile::write (atomic for regular files,
// output_file.h).
#pragma once

#include "options.h"
#include "output_file.h"

#include <optional>

namespace estuary {

struct RunOutputs {
    std::optional<OutputFile> screenshot; // headless: --screenshot or estuary.png; window: if set
    std::optional<OutputFile> report;     // --bench --report
    std::optional<OutputFile> csv;        // --bench --csv
    std::optional<OutputFile> trace;      // --trace (--headless, --bench)
    // --record: written by the library (beside its name, then renamed); checked here the same way
    // (output_file.h's checkRenameTarget) and compared with the others.
    std::optional<OutputFile> record;
};

// The screenshot a headless run writes when --screenshot is not given.
inline constexpr const char* kDefaultHeadlessScreenshot = "estuary.png";

// Throws estuary::Error (Usage, exit 2) naming the option, the path and what is wrong: a folder
// that cannot be created or written, a folder given as the file, a FIFO nobody reads, two options
// naming the same file (through symbolic links too, dangling ones included); for --record also a
// FIFO, a device or a descriptor, which a rename cannot replace. When an output is the standard
// output ("-", /dev/stdout), estuary's own messages move to stderr from here on, so that stdout
// carries that file's bytes alone.
RunOutputs openRunOutputs(const Options& options);

} // namespace estuary
