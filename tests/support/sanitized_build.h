// Whether this test binary runs under ASan or TSan, for the few checks that measure time or RSS,
// which the sanitizers' own bookkeeping changes.
#pragma once

namespace quiver_test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizedBuild = true;
#else
constexpr bool kSanitizedBuild = false;
#endif

}  // namespace quiver_test
