// The SDF font atlas (font_atlas.h): FreeType renders each glyph's distance field, a shelf packer
// places them in one R8 image, and the layout turns UTF-8 into quads.
#include "font_atlas.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_MODULE_H

#include <algorithm>
#include <exception>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace estuary {

std::vector<char32_t> defaultCharacters() {
    std::vector<char32_t> chars;
    const auto range = [&](char32_t first, char32_t last) {
        for (char32_t c = first; c <= last; ++c)
            chars.push_back(c);
    };
    range(0x20, 0x7E);   // ASCII
    range(0xA0, 0xFF);   // Latin-1: ° ± ² ³ µ · × Å among them
    range(0x391, 0x3A1); // Greek capitals (U+03A2 is unassigned)
    range(0x3A3, 0x3A9);
    range(0x3B1, 0x3C9); // Greek small letters
    // Units and plots: minus, dashes, primes, per mille, superscript and subscript digits and
    // signs, Ångström and Planck's signs, and the common mathematical symbols.
    for (char32_t c : {0x2212, 0x2013, 0x2014, 0x2026, 0x2032, 0x2033, 0x2030, 0x2070,
                       0x207A, 0x207B, 0x212B, 0x210F, 0x221E, 0x2248, 0x2264, 0x2265,
                       0x2260, 0x221A, 0x2202, 0x2207, 0x2211, 0x222B, 0x2022})
        chars.push_back(c);
    range(0x2074, 0x2079);
    range(0x2080, 0x208B);
    chars.push_back(kReplacementCharacter);
    return chars;
}

char32_t nextCodePoint(std::string_view utf8, size_t& i) {
    const auto b = uint8_t(utf8[i]);
    uint32_t need = 0;
    char32_t c = 0, least = 0;
    if (b < 0x80) {
        ++i;
        return b;
    }
    if ((b & 0xE0) == 0xC0)
        need = 1, c = b & 0x1F, least = 0x80;
    else if ((b & 0xF0) == 0xE0)
        need = 2, c = b & 0x0F, least = 0x800;
    else if ((b & 0xF8) == 0xF0)
        need = 3, c = b & 0x07, least = 0x10000;
    else { // a continuation byte or 0xF8..0xFF where a sequence should start
        ++i;
        return kReplacementCharacter;
    }
    uint32_t got = 0;
    while (got < need && i + 1 + got < utf8.size() && (uint8_t(utf8[i + 1 + got]) & 0xC0) == 0x80) {
        c = (c << 6) | (uint8_t(utf8[i + 1 + got]) & 0x3F);
        ++got;
    }
    // A truncated sequence is one bad character; what stopped it starts the next.
    i += 1 + got;
    const bool valid = got == need && c >= least && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
    return valid ? c : kReplacementCharacter;
}

std::vector<char32_t> decodeUtf8(std::string_view utf8) {
    std::vector<char32_t> out;
    out.reserve(utf8.size());
    for (size_t i = 0; i < utf8.size();)
        out.push_back(nextCodePoint(utf8, i));
    return out;
}

std::filesystem::path defaultFontFile(const std::filesystem::path& dataDir) {
    return dataDir / "assets" / "fonts" / "DejaVuSans.ttf";
}

namespace {

struct FreeType {
    FT_Library library = nullptr;
    FT_Face face = nullptr;
    ~FreeType() {
        if (face) FT_Done_Face(face);
        if (library) FT_Done_FreeType(library);
    }
};

void check(FT_Error error, const std::string& what) {
    if (error)
        throw std::runtime_error("font atlas: " + what + " failed (FreeType error " +
                                 std::to_string(error) + ")");
}

struct Bitmap {
    char32_t c = 0;
    uint32_t width = 0, rows = 0;
    int left = 0, top = 0;
    float advance = 0.0f;
    std::vector<uint8_t> texels;
    uint32_t x = 0, y = 0; // where it is packed
};

} // namespace

namespace {

// A FreeType library and face of `file` at `desc`'s size, SDF spread set.
void openFace(FreeType& ft, const std::string& file, const FontAtlasDesc& desc) {
    check(FT_Init_FreeType(&ft.library), "FT_Init_FreeType");
    const FT_Int spread = FT_Int(desc.spreadPixels);
    check(FT_Property_Set(ft.library, "bsdf", "spread", &spread), "setting the SDF spread");
    if (FT_New_Face(ft.library, file.c_str(), 0, &ft.face))
        throw std::runtime_error("font atlas: cannot read the font file " + file +
                                 " (missing, or not a font FreeType reads); estuary installs "
                                 "DejaVuSans.ttf in its data folder's assets/fonts");
    check(FT_Set_Pixel_Sizes(ft.face, 0, desc.emPixels), "FT_Set_Pixel_Sizes of " + file);
}

// Renders `bitmaps[i]` for i = first, first + step, ...: each glyph rasterized with coverage,
// then turned into a distance field by FreeType's bitmap SDF renderer ("bsdf"), which is several
// times faster than its outline one ("sdf") for the same field (measured: 282 glyphs at 48 px,
// 1.5 s against 0.65 s on one core).
void renderGlyphs(const std::string& file, const FontAtlasDesc& desc, std::vector<Bitmap>& bitmaps,
                  size_t first, size_t step) {
    FreeType ft;
    openFace(ft, file, desc);
    for (size_t i = first; i < bitmaps.size(); i += step) {
        Bitmap& b = bitmaps[i];
        const FT_UInt index = FT_Get_Char_Index(ft.face, FT_ULong(b.c));
        const std::string glyphName = "glyph U+" + std::to_string(uint32_t(b.c));
        check(FT_Load_Glyph(ft.face, index, FT_LOAD_NO_HINTING), "loading " + glyphName);
        FT_GlyphSlot slot = ft.face->glyph;
        b.advance = float(slot->advance.x) / 64.0f;
        if (slot->format != FT_GLYPH_FORMAT_OUTLINE || slot->outline.n_points == 0) continue;
        check(FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL), "rasterizing " + glyphName);
        check(FT_Render_Glyph(slot, FT_RENDER_MODE_SDF), "the distance field of " + glyphName);
        const FT_Bitmap& bm = slot->bitmap;
        b.width = bm.width;
        b.rows = bm.rows;
        b.left = slot->bitmap_left;
        b.top = slot->bitmap_top;
        b.texels.resize(size_t(b.width) * b.rows);
        for (uint32_t row = 0; row < b.rows; ++row)
            std::copy_n(bm.buffer + ptrdiff_t(row) * bm.pitch, b.width,
                        b.texels.begin() + ptrdiff_t(row) * b.width);
    }
}

} // namespace

std::shared_ptr<const FontAtlas> FontAtlas::build(const FontAtlasDesc& desc) {
    const std::string file = desc.fontFile.string();
    if (desc.emPixels < 8 || desc.emPixels > 256 || desc.spreadPixels < 2 || desc.spreadPixels > 32)
        throw std::runtime_error("font atlas: em " + std::to_string(desc.emPixels) +
                                 " px and spread " + std::to_string(desc.spreadPixels) +
                                 " px: allowed 8..256 and 2..32");
    FreeType ft;
    openFace(ft, file, desc);

    std::shared_ptr<FontAtlas> atlas(new FontAtlas());
    atlas->em = float(desc.emPixels);
    atlas->spread = float(desc.spreadPixels);
    const float unitsPerEm = float(ft.face->units_per_EM);
    if (FT_IS_SCALABLE(ft.face) && unitsPerEm > 0.0f) {
        atlas->ascender = float(ft.face->ascender) / unitsPerEm;
        atlas->descender = -float(ft.face->descender) / unitsPerEm;
        atlas->lineGap = float(ft.face->height) / unitsPerEm;
    }

    std::vector<Bitmap> bitmaps;
    std::vector<std::pair<char32_t, FT_UInt>> indices;
    for (char32_t c : defaultCharacters()) {
        const FT_UInt index = FT_Get_Char_Index(ft.face, FT_ULong(c));
        if (index == 0) continue; // the font lacks it: drawn as the replacement glyph
        bitmaps.push_back({});
        bitmaps.back().c = c;
        indices.emplace_back(c, index);
    }
    // A FreeType library is not shared between threads: each thread opens its own.
    const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8);
    std::vector<std::thread> workers;
    std::vector<std::exception_ptr> errors(threads);
    for (size_t t = 0; t < threads; ++t)
        workers.emplace_back([&, t] {
            try {
                renderGlyphs(file, desc, bitmaps, t, threads);
            } catch (...) {
                errors[t] = std::current_exception();
            }
        });
    for (std::thread& w : workers)
        w.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);

    // Shelves, tallest first; one texel between glyphs so linear filtering never reaches a
    // neighbour.
    std::vector<Bitmap*> order;
    for (Bitmap& b : bitmaps)
        if (b.width > 0) order.push_back(&b);
    std::sort(order.begin(), order.end(), [](const Bitmap* a, const Bitmap* b) {
        return a->rows != b->rows ? a->rows > b->rows : a->c < b->c;
    });
    const uint32_t W = desc.atlasWidth;
    uint32_t x = 1, y = 1, shelf = 0;
    for (Bitmap* b : order) {
        if (b->width + 2 > W)
            throw std::runtime_error("font atlas: a glyph of " + file + " is wider than the atlas");
        if (x + b->width + 1 > W) {
            x = 1;
            y += shelf + 1;
            shelf = 0;
        }
        b->x = x;
        b->y = y;
        x += b->width + 1;
        shelf = std::max(shelf, b->rows);
    }
    uint32_t H = 4;
    while (H < y + shelf + 1)
        H *= 2;
    atlas->atlasWidth = W;
    atlas->atlasHeight = H;
    atlas->pixels.assign(size_t(W) * H, 0);
    const float em = atlas->em;
    for (const Bitmap& b : bitmaps) {
        FontGlyph g;
        g.advance = b.advance / em;
        if (b.width > 0) {
            for (uint32_t row = 0; row < b.rows; ++row)
                std::copy_n(b.texels.begin() + ptrdiff_t(row) * b.width, b.width,
                            atlas->pixels.begin() + ptrdiff_t(b.y + row) * W + b.x);
            g.drawn = true;
            g.x0 = float(b.left) / em;
            g.y0 = -float(b.top) / em;
            g.x1 = float(b.left + int(b.width)) / em;
            g.y1 = float(int(b.rows) - b.top) / em;
            g.u0 = float(b.x) / float(W);
            g.v0 = float(b.y) / float(H);
            g.u1 = float(b.x + b.width) / float(W);
            g.v1 = float(b.y + b.rows) / float(H);
        }
        atlas->glyphs[b.c] = g;
    }
    if (auto it = atlas->glyphs.find(kReplacementCharacter); it != atlas->glyphs.end())
        atlas->replacement = it->second;
    else if (auto q = atlas->glyphs.find(U'?'); q != atlas->glyphs.end())
        atlas->replacement = q->second;
    else
        throw std::runtime_error("font atlas: " + file + " has neither U+FFFD nor '?'");

    if (FT_HAS_KERNING(ft.face)) {
        for (const auto& [left, li] : indices)
            for (const auto& [right, ri] : indices) {
                FT_Vector k{};
                if (FT_Get_Kerning(ft.face, li, ri, FT_KERNING_UNSCALED, &k) == 0 && k.x != 0)
                    atlas->kerns[(uint64_t(left) << 32) | right] = float(k.x) / unitsPerEm;
            }
    }
    return atlas;
}

std::shared_ptr<const FontAtlas> FontAtlas::shared(const std::filesystem::path& fontFile) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const FontAtlas>> built;
    const std::lock_guard lock(mutex);
    auto& atlas = built[fontFile.string()];
    if (!atlas) atlas = build({fontFile});
    return atlas;
}

const FontGlyph& FontAtlas::glyph(char32_t c) const {
    const auto it = glyphs.find(c);
    return it != glyphs.end() ? it->second : replacement;
}

float FontAtlas::kerning(char32_t left, char32_t right) const {
    const auto it = kerns.find((uint64_t(left) << 32) | right);
    return it != kerns.end() ? it->second : 0.0f;
}

// A line's advance in em units (no '\n' inside), kerning included.
float FontAtlas::lineWidth(std::string_view line) const {
    float pen = 0.0f;
    char32_t previous = 0;
    for (size_t i = 0; i < line.size();) {
        const char32_t c = nextCodePoint(line, i);
        if (previous) pen += kerning(previous, c);
        pen += glyph(c).advance;
        previous = c;
    }
    return pen;
}

// '\n' is one byte that no multi-byte sequence contains (nor swallows: a truncated sequence
// stops at it), so lines split on it before decoding.
float FontAtlas::width(std::string_view utf8, float sizePixels) const {
    float widest = 0.0f;
    for (size_t begin = 0;;) {
        const size_t end = std::min(utf8.find('\n', begin), utf8.size());
        widest = std::max(widest, lineWidth(utf8.substr(begin, end - begin)));
        if (end == utf8.size()) break;
        begin = end + 1;
    }
    return widest * sizePixels;
}

void FontAtlas::layout(std::string_view utf8, float sizePixels, AlignX alignX, AlignY alignY,
                       std::vector<PlacedGlyph>& out) const {
    const float count = float(std::count(utf8.begin(), utf8.end(), '\n') + 1);
    float baseline = 0.0f; // the first line's, in em units
    switch (alignY) {
    case AlignY::Top:
        baseline = ascender;
        break;
    case AlignY::Middle:
        baseline = ascender - 0.5f * (ascender + descender + (count - 1.0f) * lineGap);
        break;
    case AlignY::Baseline:
        baseline = 0.0f;
        break;
    case AlignY::Bottom:
        baseline = -descender - (count - 1.0f) * lineGap;
        break;
    }
    for (size_t begin = 0;;) {
        const size_t end = std::min(utf8.find('\n', begin), utf8.size());
        const std::string_view line = utf8.substr(begin, end - begin);
        const float width = lineWidth(line);
        float pen = alignX == AlignX::Left     ? 0.0f
                    : alignX == AlignX::Centre ? -0.5f * width
                                               : -width;
        char32_t previous = 0;
        for (size_t i = 0; i < line.size();) {
            const char32_t c = nextCodePoint(line, i);
            if (previous) pen += kerning(previous, c);
            const FontGlyph& g = glyph(c);
            if (g.drawn)
                out.push_back({(pen + g.x0) * sizePixels, (baseline + g.y0) * sizePixels,
                               (pen + g.x1) * sizePixels, (baseline + g.y1) * sizePixels, g.u0,
                               g.v0, g.u1, g.v1});
            pen += g.advance;
            previous = c;
        }
        baseline += lineGap;
        if (end == utf8.size()) break;
        begin = end + 1;
    }
}

} // namespace estuary
