// The font atlas (renderer/font_atlas.h) on the CPU: UTF-8 decoding (bad input becomes U+FFFD,
// never a crash), the characters units need, measuring (TextMeasure) with kerning, and the
// layout's alignment, all against the font file the build copies into its data folder.
#include "font_atlas.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <random>

namespace estuary {
namespace {

const FontAtlas& font() {
    static const std::shared_ptr<const FontAtlas> atlas =
        FontAtlas::shared(defaultFontFile(test::binDir()));
    return *atlas;
}

TEST(FontUtf8, DecodesOneToFourByteSequences) {
    EXPECT_EQ(decodeUtf8("A\xC2\xB5\xE2\x88\x92\xF0\x9F\x98\x80"),
              (std::vector<char32_t>{U'A', 0xB5, 0x2212, 0x1F600}));
}

TEST(FontUtf8, MalformedSequencesBecomeOneReplacementEach) {
    const char32_t R = kReplacementCharacter;
    EXPECT_EQ(decodeUtf8("\x80"), (std::vector<char32_t>{R})); // stray continuation
    EXPECT_EQ(decodeUtf8("\xC3"), (std::vector<char32_t>{R})); // truncated at the end
    EXPECT_EQ(decodeUtf8("\xE2\x82"
                         "A"),
              (std::vector<char32_t>{R, U'A'}));                           // truncated mid-text
    EXPECT_EQ(decodeUtf8("\xC0\xAF"), (std::vector<char32_t>{R}));         // overlong '/'
    EXPECT_EQ(decodeUtf8("\xED\xA0\x80"), (std::vector<char32_t>{R}));     // a surrogate
    EXPECT_EQ(decodeUtf8("\xF4\x90\x80\x80"), (std::vector<char32_t>{R})); // past U+10FFFF
    EXPECT_EQ(decodeUtf8("\xFF"
                         "b"),
              (std::vector<char32_t>{R, U'b'}));
}

TEST(FontUtf8, RandomBytesNeverFailToMeasureOrLayOut) {
    std::mt19937 random(7);
    std::vector<PlacedGlyph> glyphs;
    for (int i = 0; i < 500; ++i) {
        std::string bytes(size_t(random() % 24), '\0');
        for (char& b : bytes)
            b = char(random() & 0xFF);
        const float w = font().width(bytes, 12.0f);
        EXPECT_TRUE(std::isfinite(w) && w >= 0.0f);
        glyphs.clear();
        font().layout(bytes, 12.0f, AlignX::Centre, AlignY::Middle, glyphs);
        for (const PlacedGlyph& g : glyphs)
            ASSERT_TRUE(std::isfinite(g.x0) && std::isfinite(g.y1) && g.u1 <= 1.0f && g.v1 <= 1.0f);
    }
}

TEST(FontAtlas, HoldsTheUnitsSymbolsAndGreekAndReplacesTheRest) {
    const FontGlyph& replacement = font().glyph(kReplacementCharacter);
    for (char32_t c : {U'µ', U'°', U'Å', U'²', U'³', U'±', U'×', U'−', U'·', U'α', U'Ω', U'σ'}) {
        const FontGlyph& g = font().glyph(c);
        EXPECT_TRUE(g.drawn) << "U+" << std::hex << uint32_t(c);
        EXPECT_NE(g.u0, replacement.u0) << "U+" << std::hex << uint32_t(c) << " is the replacement";
    }
    const FontGlyph& cjk = font().glyph(0x4E00); // not in the atlas
    EXPECT_EQ(cjk.u0, replacement.u0);
    EXPECT_EQ(cjk.v0, replacement.v0);
    EXPECT_FALSE(font().glyph(U' ').drawn);
    EXPECT_GT(font().glyph(U' ').advance, 0.0f);
}

TEST(FontAtlas, SignedDistanceFieldIsInsideAboveTheEdge) {
    // The middle of the 'l''s stem is inside (above 128), the glyph box's corner far outside.
    const FontAtlas& f = font();
    const FontGlyph& l = f.glyph(U'l');
    const uint32_t W = f.textureWidth(), H = f.textureHeight();
    const auto texel = [&](float u, float v) {
        return f.texels()[size_t(v * float(H)) * W + size_t(u * float(W))];
    };
    EXPECT_GT(texel(0.5f * (l.u0 + l.u1), 0.5f * (l.v0 + l.v1)), 140);
    EXPECT_LT(texel(l.u0, l.v0), 10);
}

TEST(FontMeasure, WidthScalesWithSizeAndKerningTightensPairs) {
    const FontAtlas& f = font();
    EXPECT_NEAR(f.width("HH", 20.0f), 2.0f * f.width("H", 20.0f), 1e-4f);
    EXPECT_NEAR(f.width("Hello", 30.0f), 3.0f * f.width("Hello", 10.0f), 1e-3f);
    EXPECT_FLOAT_EQ(f.width("", 14.0f), 0.0f);
    EXPECT_FLOAT_EQ(f.width("ab\nabcd\nc", 10.0f), f.width("abcd", 10.0f)); // widest line
    // DejaVu Sans kerns "AV" (its kern table): narrower than its letters apart.
    EXPECT_LT(f.kerning(U'A', U'V'), 0.0f);
    EXPECT_LT(f.width("AV", 20.0f), f.width("A", 20.0f) + f.width("V", 20.0f) - 0.5f);
    EXPECT_GT(f.ascent(10.0f), 5.0f);
    EXPECT_GT(f.descent(10.0f), 1.0f);
    EXPECT_GT(f.lineHeight(10.0f), f.ascent(10.0f) + f.descent(10.0f) - 0.01f);
}

// The ink box of the glyphs laid out (quads less the distance field's spread).
struct Box {
    float x0 = 1e9f, y0 = 1e9f, x1 = -1e9f, y1 = -1e9f;
};
Box inkOf(std::string_view text, float size, AlignX ax, AlignY ay) {
    std::vector<PlacedGlyph> glyphs;
    font().layout(text, size, ax, ay, glyphs);
    const float pad = font().spreadPixels() / font().emPixels() * size;
    Box b;
    for (const PlacedGlyph& g : glyphs) {
        b.x0 = std::min(b.x0, g.x0 + pad), b.y0 = std::min(b.y0, g.y0 + pad);
        b.x1 = std::max(b.x1, g.x1 - pad), b.y1 = std::max(b.y1, g.y1 - pad);
    }
    return b;
}

TEST(FontLayout, AlignsOnTheAnchor) {
    const float size = 40.0f;
    const Box left = inkOf("HxH", size, AlignX::Left, AlignY::Baseline);
    EXPECT_NEAR(left.y1, 0.0f, 1.5f); // H and x sit on the baseline
    EXPECT_GT(left.x0, 0.0f);
    EXPECT_LT(left.x0, 0.2f * size);
    const Box centre = inkOf("HxH", size, AlignX::Centre, AlignY::Baseline);
    EXPECT_NEAR(centre.x0 + centre.x1, 0.0f, 1.5f); // symmetric ink about the anchor
    const Box right = inkOf("HxH", size, AlignX::Right, AlignY::Baseline);
    EXPECT_LT(right.x1, 0.0f);
    EXPECT_GT(right.x1, -0.2f * size);
    const Box top = inkOf("H", size, AlignX::Left, AlignY::Top);
    const Box bottom = inkOf("H", size, AlignX::Left, AlignY::Bottom);
    EXPECT_NEAR(top.y1 - bottom.y1, font().ascent(size) + font().descent(size), 0.01f);
    EXPECT_NEAR(bottom.y1, -font().descent(size), 1.5f);
    // Two lines: the second one line height below; Middle centres the block.
    const Box two = inkOf("H\nH", size, AlignX::Left, AlignY::Baseline);
    EXPECT_NEAR(two.y1, font().lineHeight(size), 1.5f);
    const Box middle = inkOf("H\nH", size, AlignX::Left, AlignY::Middle);
    const Box middleOne = inkOf("H", size, AlignX::Left, AlignY::Middle);
    EXPECT_NEAR(middle.y1, middleOne.y1 + 0.5f * font().lineHeight(size), 1.5f);
}

} // namespace
} // namespace estuary
