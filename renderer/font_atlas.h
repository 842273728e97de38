// The font as text is drawn with it: a signed-distance-field atlas of one glyph size built at run
// time with FreeType (FT_RENDER_MODE_SDF) from a font file (the default, DejaVu Sans, lies in the
// data folder's assets/fonts), the glyphs' metrics and kerning, UTF-8 decoding and the layout of a
// run of text into glyph quads. Pure host code, no Vulkan: the text renderer (text.h) and the
// labels renderer upload the atlas's texels; layout (viewer/annotations/) measures text with it
// through TextMeasure. Text outside the atlas's characters draws the replacement glyph; bad UTF-8
// draws one replacement glyph a bad sequence, never fails.
#pragma once

#include "annotation.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace estuary {

// The characters every atlas holds: ASCII, Latin-1, Greek, the units' symbols (µ ° Å ² ³ ± × −
// ·, and a few more), and U+FFFD.
std::vector<char32_t> defaultCharacters();

// One code point a decoded character; each malformed sequence (a stray continuation byte, a
// truncated sequence, an overlong form, a surrogate, a value past U+10FFFF) becomes one U+FFFD.
std::vector<char32_t> decodeUtf8(std::string_view utf8);
// The code point starting at byte `i` of `utf8` (i < size), `i` moved past it; as decodeUtf8, one
// U+FFFD for a malformed sequence. Allocates nothing (the per-frame layout decodes with it).
char32_t nextCodePoint(std::string_view utf8, size_t& i);

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

struct FontAtlasDesc {
    std::filesystem::path fontFile;
    uint32_t emPixels = 48;    // the size glyphs are rendered at
    uint32_t spreadPixels = 8; // how far from an edge the distance field reaches
    uint32_t atlasWidth = 1024;
};

// A glyph in em units (the pen at the origin on the baseline, y down) and its atlas texels.
struct FontGlyph {
    float advance = 0.0f;
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f; // its quad (the SDF's box, spread included)
    float u0 = 0.0f, v0 = 0.0f, u1 = 0.0f, v1 = 0.0f; // the quad's texture coordinates
    bool drawn = false;                               // false: nothing to draw (a space)
};

// A glyph laid out: its quad in pixels relative to the text's anchor (unrotated, y down) and its
// texture coordinates.
struct PlacedGlyph {
    float x0, y0, x1, y1;
    float u0, v0, u1, v1;
};

class FontAtlas final : public TextMeasure {
  public:
    // Throws a runtime error naming the file when FreeType cannot read it or it lacks the
    // replacement glyph and '?'.
    static std::shared_ptr<const FontAtlas> build(const FontAtlasDesc& desc);
    // The atlas of `fontFile` at the default size, built once a process and shared.
    static std::shared_ptr<const FontAtlas> shared(const std::filesystem::path& fontFile);

    // TextMeasure: the widest line of `utf8` (lines split at '\n').
    float width(std::string_view utf8, float sizePixels) const override;
    float ascent(float sizePixels) const override { return ascender * sizePixels; }
    float descent(float sizePixels) const override { return descender * sizePixels; }
    float lineHeight(float sizePixels) const { return lineGap * sizePixels; }

    // The glyph drawn for `c` (the replacement glyph where the atlas lacks it).
    const FontGlyph& glyph(char32_t c) const;
    // The kerning between `left` and `right`, in em units (0 without kerning).
    float kerning(char32_t left, char32_t right) const;

    // `utf8` at `sizePixels` aligned on its anchor (AnnotationText's alignment rules), appended to
    // `out`; only glyphs with something to draw. Allocates nothing once `out` has grown.
    void layout(std::string_view utf8, float sizePixels, AlignX alignX, AlignY alignY,
                std::vector<PlacedGlyph>& out) const;

    uint32_t textureWidth() const { return atlasWidth; }
    uint32_t textureHeight() const { return atlasHeight; }
    const std::vector<uint8_t>& texels() const { return pixels; } // R8, row-major
    float emPixels() const { return em; }
    float spreadPixels() const { return spread; }
    size_t glyphCount() const { return glyphs.size(); }

  private:
    FontAtlas() = default;
    float lineWidth(std::string_view line) const;
    std::unordered_map<char32_t, FontGlyph> glyphs;
    std::unordered_map<uint64_t, float> kerns; // (left << 32 | right) -> em units
    FontGlyph replacement;
    float ascender = 0.8f, descender = 0.2f, lineGap = 1.2f; // em units, both metrics > 0
    float em = 48.0f, spread = 8.0f;
    uint32_t atlasWidth = 0, atlasHeight = 0;
    std::vector<uint8_t> pixels;
};

// The default font's path under a data folder (assets/fonts/DejaVuSans.ttf).
std::filesystem::path defaultFontFile(const std::filesystem::path& dataDir);

} // namespace estuary
