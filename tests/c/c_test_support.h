/* What the C99 test programs in this directory share. Each one loads libquiver.so with dlopen and fills
 * its own table of the C API functions it calls (resolve, RESOLVE); those that count checks use EXPECT
 * and end with test_summary. Everything here is static, so a program includes it once and pays only
 * for what it uses. */
#ifndef QUIVER_TESTS_C_TEST_SUPPORT_H_
#define QUIVER_TESTS_C_TEST_SUPPORT_H_

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The pass/fail counts, kept in a function so that a program that does not count sees no unused object. */
typedef struct {
  int passed;
  int failed;
} TestCounts;

static inline TestCounts *test_counts(void) {
  static TestCounts counts = {0, 0};
  return &counts;
}

/* Counts one check; a failed one prints the place, the condition and a printf-style message. */
#define EXPECT(cond, ...)                                                \
  do {                                                                   \
    if (cond) {                                                          \
      ++test_counts()->passed;                                           \
    } else {                                                             \
      ++test_counts()->failed;                                           \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                      \
      fputc('\n', stderr);                                               \
    }                                                                    \
  } while (0)

/* Prints "<name>: N passed, M failed" and returns main's exit status: 0 when no check failed. */
static inline int test_summary(const char *name) {
  printf("%s: %d passed, %d failed\n", name, test_counts()->passed, test_counts()->failed);
  return test_counts()->failed == 0 ? 0 : 1;
}

/* Looks `name` up in `lib` and stores it in a function-pointer slot. dlsym returns an object pointer;
 * copying its bytes into the function pointer keeps -Wpedantic quiet. Returns 0, with a message, if the
 * symbol is missing or the slot is not pointer-sized. */
static inline int resolve(void *lib, const char *name, void *slot, size_t slot_size) {
  void *sym = dlsym(lib, name);
  if (sym == NULL || slot_size != sizeof sym) {
    fprintf(stderr, "cannot resolve %s: %s\n", name, sym == NULL ? dlerror() : "pointer size mismatch");
    return 0;
  }
  memcpy(slot, &sym, sizeof sym);
  return 1;
}

/* Fills the table's `field` with the function "Qv<field>". Expects in scope: `void *lib`, the table
 * `api` (a struct, not a pointer) and `int ok`, which turns 0 if any lookup fails. */
#define RESOLVE(field) ok &= resolve(lib, "Qv" #field, &api.field, sizeof api.field)

#endif /* QUIVER_TESTS_C_TEST_SUPPORT_H_ */
