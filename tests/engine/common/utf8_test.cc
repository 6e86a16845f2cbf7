#include "common/utf8.h"

#include <catch2/catch.hpp>
#include <string>

using qv::IsValidUtf8;
using qv::ToValidUtf8;

TEST_CASE("UTF-8: well-formed text is kept as it is", "[common]") {
  for (const std::string& text : {std::string(""), std::string("conv0_weight"), std::string("caf\xC3\xA9"),
                                 std::string("\xE2\x82\xAC 5"), std::string("\xF0\x9F\x98\x80"),
                                 std::string("a\0b", 3)}) {
    CHECK(IsValidUtf8(text));
    CHECK(ToValidUtf8(text) == text);
  }
}

TEST_CASE("UTF-8: malformed bytes become U+FFFD, one per byte", "[common]") {
  const std::string replacement = "\xEF\xBF\xBD";
  struct Case {
    std::string in, out;
  };
  const Case cases[] = {
      {"\xFF", replacement},                                   // never a UTF-8 byte
      {"ab\x80", "ab" + replacement},                           // a stray continuation byte
      {"\xC3", replacement},                                    // truncated at the end
      {"\xC3(", replacement + "("},                             // lead byte without continuation
      {"\xC0\xAF", replacement + replacement},                  // overlong '/'
      {"\xED\xA0\x80", replacement + replacement + replacement},  // a UTF-16 surrogate
      {"\xF4\x90\x80\x80", replacement + replacement + replacement + replacement},  // past U+10FFFF
      {"x\xE2\x82", "x" + replacement + replacement},           // a cut multi-byte character
  };
  for (const Case& c : cases) {
    INFO("input bytes: " << c.in.size());
    CHECK_FALSE(IsValidUtf8(c.in));
    CHECK(ToValidUtf8(c.in) == c.out);
    CHECK(IsValidUtf8(ToValidUtf8(c.in)));
  }
}
