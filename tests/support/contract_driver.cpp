#include "contract_driver.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <sstream>

namespace estuary::contract {
namespace {

constexpr uint32_t kMaxImages = 3, kMaxBuffers = 3;

float frameValue(uint64_t frame, uint32_t id) {
    return float(frame * 8 + id);
}

// A read or pick of one frame, its destination kept here until it is checked.
struct Pending {
    uint64_t frame = 0;
    uint32_t id = 0;
    bool pick = false;
    bool markers = false;    // the buffer holds the marker {0, 0, 0, value, 1, 0, 0, 1}
    uint64_t firstFloat = 0; // buffers: where the read starts
    std::vector<float> data;
    estuary_pick result{};
};

struct ViewOf {
    estuary_view* view = nullptr;
    uint32_t allocation = 0; // id
};

class Sequence {
  public:
    Sequence(ContractWriter& writer, const ContractOptions& options, uint64_t seed,
             ContractReport& report)
        : writer_(writer), options_(options), rng_(seed), report_(report) {}

    void run() {
        if (!open()) return;
        for (uint32_t n = 0; n < options_.framesPerSequence && report_.failures.empty(); ++n) {
            mutate();
            frame();
            if (chance(0.15)) waitSome();
            if (chance(0.03)) finishAll();
        }
        finishAll();
        closeViewer();
    }

  private:
    // ---- checks ------------------------------------------------------------------------------
    void fail(const std::string& what) {
        std::ostringstream s;
        s << "sequence seed " << seedText() << ", frame " << nextFrame_ << " (" << framesInFlight_
          << " in flight, hand-off batch " << handoffBatch_ << "): " << what;
        report_.failures.push_back(s.str());
    }
    std::string seedText() const { return std::to_string(options_.seed); }
    bool ok(estuary_status status, const char* call) {
        ++report_.checks;
        if (status == ESTUARY_OK) return true;
        fail(std::string(call) + " returned " + estuary_status_name(status) + ": " +
             estuary_last_error());
        return false;
    }
    void expectStatus(estuary_status got, estuary_status want, const char* call) {
        ++report_.checks;
        if (got != want)
            fail(std::string(call) + " returned " + estuary_status_name(got) + ", expected " +
                 estuary_status_name(want) + " (" + estuary_last_error() + ")");
    }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    uint32_t below(uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(rng_); }

    // Around an estuary call: at times the caller's current device is device 1 (the viewer is on
    // 0), and it must still be after the call.
    template <class Call> estuary_status call(Call&& body) {
        const bool other = options_.switchDevices && writer_.devices() >= 2 && chance(0.3);
        if (other) writer_.setCurrentDevice(1);
        const int before = writer_.currentDevice();
        const estuary_status status = body();
        ++report_.checks;
        if (writer_.currentDevice() != before)
            fail("the caller's current CUDA device changed from " + std::to_string(before) +
                 " to " + std::to_string(writer_.currentDevice()) + " in a call");
        if (other) writer_.setCurrentDevice(0);
        return status;
    }

    // ---- the viewer --------------------------------------------------------------------------
    bool open() {
        static const uint32_t kChoices[] = {1, 2, 3, 4, 5, 8, 16, 32};
        std::vector<uint32_t> allowed;
        for (uint32_t c : kChoices)
            if (c <= options_.maxFramesInFlight) allowed.push_back(c);
        framesInFlight_ = allowed[below(uint32_t(allowed.size()))];
        if (options_.framesInFlight) framesInFlight_ = options_.framesInFlight;
        estuary_viewer_desc d{};
        d.api_version = ESTUARY_API_VERSION;
        d.display = ESTUARY_DISPLAY_HEADLESS;
        d.width = options_.width;
        d.height = options_.height;
        d.frames_in_flight = framesInFlight_;
        handoffBatch_ = options_.handoffBatches ? 1 + below(framesInFlight_) : 1;
        d.handoff_batch = handoffBatch_;
        d.cuda = writer_.writer() == ESTUARY_WRITER_CUDA ? ESTUARY_CUDA_REQUIRED : ESTUARY_CUDA_OFF;
        d.flags = ESTUARY_VIEWER_VALIDATION;
        if (!ok(call([&] { return estuary_create_viewer(&d, &viewer_); }), "estuary_create_viewer"))
            return false;
        writer_.open(viewer_, framesInFlight_);
        addImage();
        addBuffer(false);
        addBuffer(true);
        return report_.failures.empty();
    }

    void closeViewer() {
        for (ViewOf& view : views_)
            ok(estuary_destroy_view(viewer_, view.view), "estuary_destroy_view");
        views_.clear();
        writer_.close();
        uint32_t messages = 0;
        ok(call([&] { return estuary_destroy_viewer(viewer_, &messages); }),
           "estuary_destroy_viewer");
        ++report_.checks;
        if (messages != 0)
            fail(std::to_string(messages) + " validation message(s) over the viewer's life");
        // Everything made from it went with it; a second destroy is harmless.
        expectStatus(estuary_destroy_viewer(viewer_, nullptr), ESTUARY_ERROR_INVALID_HANDLE,
                     "a second estuary_destroy_viewer");
        estuary_camera camera{};
        expectStatus(estuary_get_camera(viewer_, &camera), ESTUARY_ERROR_INVALID_HANDLE,
                     "estuary_get_camera on a destroyed viewer");
        estuary_frame* frame = nullptr;
        expectStatus(estuary_begin_frame(viewer_, nullptr, &frame), ESTUARY_ERROR_INVALID_HANDLE,
                     "estuary_begin_frame on a destroyed viewer");
        if (!allocations_.empty()) {
            estuary_image_info info{};
            for (const Allocation& a : allocations_)
                if (a.image)
                    expectStatus(estuary_get_image_info(a.image, &info),
                                 ESTUARY_ERROR_INVALID_HANDLE,
                                 "estuary_get_image_info of a destroyed viewer's image");
        }
        allocations_.clear();
        report_.handoffChecks += lastHandoffChecks_;
        ++report_.sequences;
    }

    uint32_t freeId() const {
        for (uint32_t id = 0; id < 8; ++id)
            if (std::none_of(allocations_.begin(), allocations_.end(),
                             [&](const Allocation& a) { return a.id == id; }))
                return id;
        return 8;
    }
    size_t count(bool images) const {
        return size_t(
            std::count_if(allocations_.begin(), allocations_.end(),
                          [&](const Allocation& a) { return (a.image != nullptr) == images; }));
    }

    void addImage() {
        Allocation a;
        a.id = freeId();
        a.width = 8 + below(57);
        a.height = 8 + below(41);
        estuary_image_desc d{};
        d.format = ESTUARY_FORMAT_R32_FLOAT;
        d.kind = ESTUARY_IMAGE_2D;
        d.width = a.width;
        d.height = a.height;
        d.writer = writer_.writer();
        d.flags = (chance(0.2) ? ESTUARY_ALLOC_SINGLE : 0u) |
                  (chance(0.3) ? ESTUARY_IMAGE_GENERATE_MIPS : 0u);
        d.name = "contract image";
        if (!ok(call([&] { return estuary_create_image(viewer_, &d, &a.image); }),
                "estuary_create_image"))
            return;
        allocations_.push_back(a);
        ++epoch_;
        if (chance(0.7)) {
            estuary_field_view_desc view{};
            view.image = a.image;
            view.value_min = 0.0f;
            view.value_max = 4096.0f;
            ViewOf made{nullptr, a.id};
            if (ok(estuary_add_field_view(viewer_, &view, &made.view), "estuary_add_field_view"))
                views_.push_back(made);
        }
    }

    void addBuffer(bool markers) {
        Allocation a;
        a.id = freeId();
        a.markers = markers;
        a.bytes = markers ? 32 : 16 * (4 + below(60));
        estuary_buffer_desc d{};
        d.size = a.bytes;
        d.writer = writer_.writer();
        d.flags = !markers && chance(0.2) ? ESTUARY_ALLOC_SINGLE : 0u;
        d.name = markers ? "contract markers" : "contract buffer";
        if (!ok(call([&] { return estuary_create_buffer(viewer_, &d, &a.buffer); }),
                "estuary_create_buffer"))
            return;
        allocations_.push_back(a);
        ++epoch_;
        ViewOf made{nullptr, a.id};
        if (markers) {
            estuary_markers_view_desc view{};
            view.buffer = a.buffer;
            view.size = 24.0f;
            view.flags = ESTUARY_MARKERS_3D;
            view.value_max = 4096.0f;
            if (ok(estuary_add_markers_view(viewer_, &view, &made.view),
                   "estuary_add_markers_view")) {
                views_.push_back(made);
                markersView_ = made.view;
            }
        } else if (chance(0.5)) {
            estuary_points_view_desc view{};
            view.buffer = a.buffer;
            view.layout = ESTUARY_POINTS_XYZ_SCALAR;
            if (ok(estuary_add_points_view(viewer_, &view, &made.view), "estuary_add_points_view"))
                views_.push_back(made);
        }
    }

    void destroyAllocation() {
        std::vector<size_t> candidates;
        for (size_t i = 0; i < allocations_.size(); ++i)
            if (!allocations_[i].markers && (allocations_[i].buffer || count(true) > 1))
                candidates.push_back(i);
        if (candidates.empty()) return;
        const Allocation a = allocations_[candidates[below(uint32_t(candidates.size()))]];
        // A view still drawing it is refused, changing nothing.
        const auto drawn = std::find_if(views_.begin(), views_.end(),
                                        [&](const ViewOf& v) { return v.allocation == a.id; });
        if (drawn != views_.end()) {
            const estuary_status refused = a.image ? estuary_destroy_image(viewer_, a.image)
                                                   : estuary_destroy_buffer(viewer_, a.buffer);
            expectStatus(refused, ESTUARY_ERROR_INVALID_ARGUMENT,
                         "destroying an allocation a view draws");
        }
        for (auto it = views_.begin(); it != views_.end();) {
            if (it->allocation != a.id) {
                ++it;
                continue;
            }
            estuary_view* view = it->view;
            ok(call([&] { return estuary_destroy_view(viewer_, view); }), "estuary_destroy_view");
            expectStatus(estuary_destroy_view(viewer_, view), ESTUARY_ERROR_INVALID_HANDLE,
                         "a second estuary_destroy_view");
            estuary_view_params params{};
            expectStatus(estuary_get_view_params(view, &params), ESTUARY_ERROR_INVALID_HANDLE,
                         "estuary_get_view_params of a destroyed view");
            it = views_.erase(it);
        }
        if (a.image) {
            ok(call([&] { return estuary_destroy_image(viewer_, a.image); }),
               "estuary_destroy_image");
            expectStatus(estuary_destroy_image(viewer_, a.image), ESTUARY_ERROR_INVALID_HANDLE,
                         "a second estuary_destroy_image");
            estuary_image_info info{};
            expectStatus(estuary_get_image_info(a.image, &info), ESTUARY_ERROR_INVALID_HANDLE,
                         "estuary_get_image_info of a destroyed image");
        } else {
            ok(call([&] { return estuary_destroy_buffer(viewer_, a.buffer); }),
               "estuary_destroy_buffer");
            expectStatus(estuary_destroy_buffer(viewer_, a.buffer), ESTUARY_ERROR_INVALID_HANDLE,
                         "a second estuary_destroy_buffer");
        }
        std::erase_if(allocations_, [&](const Allocation& x) { return x.id == a.id; });
        ++epoch_;
    }

    void mutate() {
        if (chance(0.06) && count(true) < kMaxImages) addImage();
        if (chance(0.06) && count(false) < kMaxBuffers + 1) addBuffer(false);
        if (chance(0.06)) destroyAllocation();
    }

    // ---- a frame -----------------------------------------------------------------------------
    void frame() {
        estuary_frame_desc desc{};
        uint32_t stream = 0;
        if (writer_.streams() > 0) {
            stream = options_.roundRobin ? uint32_t(nextFrame_ % writer_.streams())
                                         : below(writer_.streams());
            desc.stream = writer_.stream(stream);
            if (options_.replay && chance(0.4)) desc.replay_key = 1000 + epoch_;
        }
        if (chance(0.3)) desc.flags |= ESTUARY_FRAME_DEFER_WAIT;
        estuary_frame* f = nullptr;
        if (!ok(call([&] { return estuary_begin_frame(viewer_, &desc, &f); }),
                "estuary_begin_frame"))
            return;
        ++report_.checks;
        if (estuary_frame_index(f) != nextFrame_)
            fail("estuary_frame_index is " + std::to_string(estuary_frame_index(f)));
        if (estuary_frame_replayed(f)) {
            ++report_.replayed;
        } else {
            // Long work every other frame (and at random), short otherwise: a later frame on
            // another stream then finishes first.
            const uint32_t micros = (nextFrame_ % 2 == 0 || chance(0.2))
                                        ? options_.longWorkMicros
                                        : below(options_.longWorkMicros / 10 + 1);
            writer_.privateWork(f, micros);
            if (desc.flags & ESTUARY_FRAME_DEFER_WAIT)
                ok(call([&] { return estuary_frame_wait(f); }), "estuary_frame_wait");
            std::string problem;
            if (!writer_.write(f, allocations_, problem)) fail(problem);
        }
        reads(f);
        ok(call([&] { return estuary_end_frame(f); }), "estuary_end_frame");
        if (chance(0.05)) {
            expectStatus(estuary_end_frame(f), ESTUARY_ERROR_INVALID_HANDLE,
                         "estuary_end_frame of an ended frame");
            ++report_.checks;
            if (estuary_frame_index(f) != 0) fail("an ended frame still answers its index");
        }
        ++nextFrame_;
        ++report_.frames;
        afterFrame();
    }

    void reads(estuary_frame* f) {
        for (const Allocation& a : allocations_) {
            if (!chance(0.4)) continue;
            auto read = std::make_unique<Pending>();
            read->frame = nextFrame_;
            read->id = a.id;
            estuary_status status;
            const uint32_t flags = chance(0.5) ? ESTUARY_READ_AFTER_DRAW : 0u;
            if (a.image) {
                const uint32_t w = 1 + below(a.width), h = 1 + below(a.height);
                const uint32_t x = below(a.width - w + 1), y = below(a.height - h + 1);
                read->data.assign(size_t(w) * h, std::nanf(""));
                status =
                    estuary_frame_read_image(f, a.image, 0, x, y, w, h, flags, read->data.data());
            } else {
                const uint64_t floats = a.bytes / 4;
                const uint64_t n = 1 + below(uint32_t(floats)),
                               first = below(uint32_t(floats - n + 1));
                read->data.assign(n, std::nanf(""));
                read->markers = a.markers;
                read->firstFloat = first;
                status = estuary_frame_read_buffer(f, a.buffer, first * 4, n * 4, flags,
                                                   read->data.data());
            }
            if (ok(status, a.image ? "estuary_frame_read_image" : "estuary_frame_read_buffer"))
                pending_.push_back(std::move(read));
        }
        if (markersView_ && chance(0.4)) {
            auto pick = std::make_unique<Pending>();
            pick->frame = nextFrame_;
            pick->pick = true;
            pick->id = markersId();
            pick->result.hit = 7;
            const float cx = 0.5f * float(options_.width), cy = 0.5f * float(options_.height);
            if (ok(estuary_frame_pick(f, markersView_, cx, cy, 32.0f, &pick->result),
                   "estuary_frame_pick")) {
                ++report_.checks;
                if (pick->result.hit != -1)
                    fail("a pick not yet drawn reads hit " + std::to_string(pick->result.hit) +
                         ", not -1 (not known yet)");
                pending_.push_back(std::move(pick));
            }
        }
    }

    uint32_t markersId() const {
        for (const Allocation& a : allocations_)
            if (a.markers) return a.id;
        return 0;
    }

    void afterFrame() {
        estuary_metrics metrics{};
        if (ok(call([&] { return estuary_get_metrics(viewer_, &metrics); }),
               "estuary_get_metrics")) {
            ++report_.checks;
            if (metrics.handoff_regressions != 0)
                fail(std::to_string(metrics.handoff_regressions) +
                     " hand-off timeline reading(s) fell");
            lastHandoffChecks_ = metrics.handoff_checks;
        }
        ++report_.checks;
        if (const uint32_t messages = estuary_validation_messages(viewer_))
            fail(std::to_string(messages) + " validation message(s)");
    }

    // ---- deliveries --------------------------------------------------------------------------
    void waitSome() {
        if (nextFrame_ == 0) return;
        const uint64_t back = below(std::min<uint32_t>(4, uint32_t(nextFrame_)));
        const uint64_t k = nextFrame_ - 1 - back;
        if (ok(call([&] { return estuary_wait_frame(viewer_, k); }), "estuary_wait_frame"))
            check(k);
    }

    void finishAll() {
        if (ok(call([&] { return estuary_finish(viewer_); }), "estuary_finish") && nextFrame_ > 0)
            check(nextFrame_ - 1);
    }

    // Every read and pick of frames up to `k` must be delivered, each with its own frame's value.
    void check(uint64_t k) {
        for (auto it = pending_.begin(); it != pending_.end();) {
            const Pending& p = **it;
            if (p.frame > k) {
                ++it;
                continue;
            }
            const float want = frameValue(p.frame, p.id);
            ++report_.checks;
            if (p.pick) {
                const estuary_pick& r = p.result;
                if (r.hit != 1 || r.element != 0 || r.value != want)
                    fail("the pick of frame " + std::to_string(p.frame) + " reads hit " +
                         std::to_string(r.hit) + ", element " + std::to_string(r.element) +
                         ", value " + std::to_string(r.value) + "; its frame wrote " +
                         std::to_string(want));
            } else {
                static const float kMarker[8] = {0, 0, 0, -1, 1, 0, 0, 1};
                for (size_t i = 0; i < p.data.size(); ++i) {
                    const uint64_t at = (p.firstFloat + i) % 8;
                    const float expected = !p.markers || at == 3 ? want : kMarker[at];
                    if (p.data[i] == expected) continue;
                    fail("a read of frame " + std::to_string(p.frame) + " (allocation " +
                         std::to_string(p.id) + ") holds " + std::to_string(p.data[i]) + " at " +
                         std::to_string(i) + " of " + std::to_string(p.data.size()) +
                         "; its frame wrote " + std::to_string(expected) +
                         (std::isnan(p.data[i])
                              ? " (not delivered)"
                              : " (frame " + std::to_string(int64_t(p.data[i]) / 8) + "'s value)"));
                    break;
                }
            }
            // Kept until the viewer is gone: a read that was not delivered when it should have
            // been may still be written later, and must not land in freed memory.
            checked_.push_back(std::move(*it));
            it = pending_.erase(it);
        }
        if (checked_.size() > 4096 && report_.failures.empty()) checked_.clear(); // all delivered
    }

    ContractWriter& writer_;
    const ContractOptions& options_;
    std::mt19937_64 rng_;
    ContractReport& report_;
    estuary_viewer* viewer_ = nullptr;
    uint32_t framesInFlight_ = 2, handoffBatch_ = 1;
    uint64_t nextFrame_ = 0;
    uint64_t epoch_ = 0;
    std::vector<Allocation> allocations_;
    std::vector<ViewOf> views_;
    estuary_view* markersView_ = nullptr;
    std::deque<std::unique_ptr<Pending>> pending_;
    std::vector<std::unique_ptr<Pending>> checked_;
    uint64_t lastHandoffChecks_ = 0;
};

} // namespace

std::string ContractReport::summary() const {
    std::ostringstream s;
    s << sequences << " sequences, " << frames << " frames, " << checks << " checks, " << replayed
      << " replayed frames, " << handoffChecks << " hand-off timeline readings, " << failures.size()
      << " failures";
    return s.str();
}

ContractReport runContract(ContractWriter& writer, const ContractOptions& options) {
    ContractReport report;
    for (uint32_t i = 0; i < options.sequences && report.failures.empty(); ++i) {
        ContractOptions one = options;
        one.seed = options.seed * 1000003 + i;
        Sequence(writer, one, one.seed, report).run();
    }
    return report;
}

} // namespace estuary::contract
