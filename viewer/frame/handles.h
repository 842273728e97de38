// The C API's handles: what estuary.h hands out as estuary_viewer*, estuary_image*,
// estuary_buffer*, estuary_view* and estuary_frame* are not addresses but numbers naming a slot of
// one process-wide table, its kind and its generation:
//   bits 63..32 generation, 31..24 kind, 23..0 slot + 1
// A slot's generation rises each time it is freed, so a destroyed handle, one of another kind,
// or a made-up value resolves to nothing: the call reports ESTUARY_ERROR_INVALID_HANDLE instead of
// touching freed memory. Thread-safe (one mutex): viewers on different threads share the table.
#pragma once

#include <cstdint>
#include <mutex>
#include <new>
#include <vector>

namespace estuary::lib {

enum class HandleKind : uint32_t { Viewer = 1, Image = 2, Buffer = 3, View = 4, Frame = 5, Slabs = 6 };

const char* handleKindName(HandleKind kind);

class HandleTable {
  public:
    // A new handle for `object` (never 0).
    uint64_t add(HandleKind kind, void* object);
    // The object of a live handle of `kind`; nullptr for anything else.
    void* find(uint64_t handle, HandleKind kind) const;
    // The handle's kind, as its bits say (whether or not it is live).
    static uint32_t kindBits(uint64_t handle) { return uint32_t(handle >> 24) & 0xFFu; }
    // Frees the handle's slot (a stale or unknown handle: nothing happens).
    void remove(uint64_t handle);
    // Live handles, for tests.
    size_t live() const;

  private:
    struct Slot {
        void* object = nullptr;
        uint32_t generation = 1;
        HandleKind kind = HandleKind::Viewer;
    };
    mutable std::mutex mutex_;
    std::vector<Slot> slots_;
    std::vector<uint32_t> free_;
    size_t live_ = 0;
};

HandleTable& handles();

} // namespace estuary::lib
