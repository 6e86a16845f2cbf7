/* What the C99 test programs in this directory share besides the API table (qv_api_table.h, which
 * loads libquiver.so with dlopen and fills one table of every C API function): those that count checks
 * use EXPECT and end with test_summary. Everything here is static, so a program includes it once and
 * pays only for what it uses. */
#ifndef QUIVER_TESTS_C_TEST_SUPPORT_H_
#define QUIVER_TESTS_C_TEST_SUPPORT_H_

#include <stdio.h>

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

#endif /* QUIVER_TESTS_C_TEST_SUPPORT_H_ */
