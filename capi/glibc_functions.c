/* glibc's own math and memory functions in a library built by zig's clang (the shipped natives:
 * scripts/setup_glibc228_toolchain.sh). Zig links its compiler_rt into every library, and compiler_rt
 * defines expf, logf, memcpy and others weakly: a definition inside the library wins over glibc's, so
 * the library would compute with zig's expf and logf (other roundings than the test build's, and than
 * MXNet's) and copy with a generic memcpy. Each function here is a strong definition that calls glibc's,
 * named by its symbol version (the newest one glibc 2.28 has), which only glibc's libraries define.
 * Linked into libquiver.so when the compiler is zig's (CMakeLists.txt); local to it (capi/quiver.map).
 * tests/packaging/check_glibc_symbols.py checks that each of these a library defines, it takes from glibc.
 */
#include <stddef.h>

#define GLIBC_FUNCTION(ret, name, version, params, args)                         \
  ret glibc_##name params;                                                       \
  __asm__(".symver glibc_" #name ", " #name "@" version);                        \
  __attribute__((visibility("hidden"))) ret name params { return glibc_##name args; }

/* libm: glibc 2.27 gave expf, logf, log2f, exp2f and powf new versions; exp, log, log2, exp2 and pow
 * got theirs in 2.29, after the target. */
GLIBC_FUNCTION(float, expf, "GLIBC_2.27", (float x), (x))
GLIBC_FUNCTION(float, exp2f, "GLIBC_2.27", (float x), (x))
GLIBC_FUNCTION(float, logf, "GLIBC_2.27", (float x), (x))
GLIBC_FUNCTION(float, log2f, "GLIBC_2.27", (float x), (x))
GLIBC_FUNCTION(float, log10f, "GLIBC_2.2.5", (float x), (x))
GLIBC_FUNCTION(float, sinf, "GLIBC_2.2.5", (float x), (x))
GLIBC_FUNCTION(float, cosf, "GLIBC_2.2.5", (float x), (x))
GLIBC_FUNCTION(float, tanf, "GLIBC_2.2.5", (float x), (x))
GLIBC_FUNCTION(double, exp, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, exp2, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, log, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, log2, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, log10, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, sin, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, cos, "GLIBC_2.2.5", (double x), (x))
GLIBC_FUNCTION(double, tan, "GLIBC_2.2.5", (double x), (x))

/* libc: the tuned copies (glibc picks them for the CPU at load time). */
GLIBC_FUNCTION(void*, memcpy, "GLIBC_2.14", (void* d, const void* s, size_t n), (d, s, n))
GLIBC_FUNCTION(void*, memmove, "GLIBC_2.2.5", (void* d, const void* s, size_t n), (d, s, n))
GLIBC_FUNCTION(void*, memset, "GLIBC_2.2.5", (void* d, int c, size_t n), (d, c, n))
GLIBC_FUNCTION(int, memcmp, "GLIBC_2.2.5", (const void* a, const void* b, size_t n), (a, b, n))
GLIBC_FUNCTION(int, bcmp, "GLIBC_2.2.5", (const void* a, const void* b, size_t n), (a, b, n))
GLIBC_FUNCTION(size_t, strlen, "GLIBC_2.2.5", (const char* s), (s))
