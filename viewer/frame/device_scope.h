// The device guard behind every C API call that touches CUDA, free of CUDA so it is tested on any
// machine: it makes `wanted` current through `set` when `get` says another device is, and on
// leaving the scope (by return or by throw) makes the caller's device current again. A `get` that
// fails (no driver, no device) leaves everything alone.
#pragma once

namespace estuary::lib {

struct DeviceApi {
    bool (*get)(int& device); // false: no current device can be read
    bool (*set)(int device);
};

class DeviceScope {
  public:
    // wanted < 0: keep whatever is current, but still give the caller's device back on leaving.
    DeviceScope(const DeviceApi& api, int wanted) : api_(api) {
        int current = -1;
        if (!api_.get(current)) return;
        previous_ = current;
        if (wanted >= 0 && wanted != current) (void)api_.set(wanted);
    }
    ~DeviceScope() {
        int current = -1;
        if (previous_ >= 0 && api_.get(current) && current != previous_) (void)api_.set(previous_);
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;
    int previous() const { return previous_; }

  private:
    DeviceApi api_;
    int previous_ = -1;
};

} // namespace estuary::lib
