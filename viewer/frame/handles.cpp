#include "handles.h"

namespace estuary::lib {

namespace {
constexpr uint32_t kSlotBits = 24;
constexpr uint64_t kSlotMask = (uint64_t(1) << kSlotBits) - 1;
} // namespace

const char* handleKindName(HandleKind kind) {
    switch (kind) {
    case HandleKind::Viewer:
        return "viewer";
    case HandleKind::Image:
        return "image";
    case HandleKind::Buffer:
        return "buffer";
    case HandleKind::View:
        return "view";
    case HandleKind::Frame:
        return "frame";
    case HandleKind::Slabs:
        return "slabs";
    }
    return "handle";
}

uint64_t HandleTable::add(HandleKind kind, void* object) {
    std::lock_guard lock(mutex_);
    uint32_t index = 0;
    if (!free_.empty()) {
        index = free_.back();
        free_.pop_back();
    } else {
        if (slots_.size() >= kSlotMask) throw std::bad_alloc(); // 16 M live handles
        index = uint32_t(slots_.size());
        slots_.emplace_back();
    }
    Slot& slot = slots_[index];
    slot.object = object;
    slot.kind = kind;
    ++live_;
    return (uint64_t(slot.generation) << 32) | (uint64_t(kind) << kSlotBits) | (index + 1);
}

void* HandleTable::find(uint64_t handle, HandleKind kind) const {
    const uint64_t index = (handle & kSlotMask);
    if (index == 0 || kindBits(handle) != uint32_t(kind)) return nullptr;
    std::lock_guard lock(mutex_);
    if (index > slots_.size()) return nullptr;
    const Slot& slot = slots_[index - 1];
    if (!slot.object || slot.kind != kind || slot.generation != uint32_t(handle >> 32))
        return nullptr;
    return slot.object;
}

void HandleTable::remove(uint64_t handle) {
    const uint64_t index = (handle & kSlotMask);
    std::lock_guard lock(mutex_);
    if (index == 0 || index > slots_.size()) return;
    Slot& slot = slots_[index - 1];
    if (!slot.object || slot.generation != uint32_t(handle >> 32)) return;
    slot.object = nullptr;
    // Generation 0 is never handed out, so a wrapped slot still refuses its oldest handles.
    if (++slot.generation == 0) slot.generation = 1;
    free_.push_back(uint32_t(index - 1));
    --live_;
}

size_t HandleTable::live() const {
    std::lock_guard lock(mutex_);
    return live_;
}

HandleTable& handles() {
    static HandleTable* table = new HandleTable; // never destroyed: handles may outlive statics
    return *table;
}

} // namespace estuary::lib
