/* What the C99 test programs in this directory share besides the API table (qv_api_table.h, which
 * loads libquiver.so with dlopen and fills one table of every C API function): those that count checks
 * use EXPECT and end with test_summary; those that need work to be running use create_conv_relu_model.
 * Everything here is static, so a program includes it once and pays only for what it uses. */
#ifndef QUIVER_TESTS_C_TEST_SUPPORT_H_
#define QUIVER_TESTS_C_TEST_SUPPORT_H_

#include <stdint.h>
#include <stdio.h>

#include "qv_api_table.h"
#include "quiver/c_api.h"

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

/* data -> 3x3 convolution (`channels` filters over `channels` channels, padded, no bias) -> relu, with a
 * zero weight, and a zero input of `input_shape` (N, channels, H, W): work whose length the input's size
 * sets. The symbol and the weight stay alive. Returns 1, or prints the runtime's message and returns 0. */
static inline int create_conv_relu_model(const Api *api, int channels, const int64_t input_shape[4],
                                         QvCachedOpHandle *op, QvNDArrayHandle *input) {
  char json[640];
  snprintf(json, sizeof json,
           "{\"nodes\":[{\"op\":\"null\",\"name\":\"data\",\"inputs\":[]},"
           "{\"op\":\"null\",\"name\":\"w\",\"inputs\":[]},"
           "{\"op\":\"Convolution\",\"name\":\"conv\",\"attrs\":{\"kernel\":\"(3, 3)\",\"pad\":\"(1, 1)\","
           "\"num_filter\":\"%d\",\"no_bias\":\"True\"},\"inputs\":[[0,0,0],[1,0,0]]},"
           "{\"op\":\"Activation\",\"name\":\"relu\",\"attrs\":{\"act_type\":\"relu\"},\"inputs\":[[2,0,0]]}],"
           "\"arg_nodes\":[0,1],\"heads\":[[3,0,0]]}",
           channels);
  QvSymbolHandle sym;
  QvNDArrayHandle weight;
  const int64_t wshape[4] = {channels, channels, 3, 3};
  const char *names[1] = {"w"};
  if (api->SymbolCreateFromJSON(json, &sym) || api->NDArrayCreate(wshape, 4, QV_CPU, 0, QV_FLOAT32, &weight) ||
      api->NDArrayCreate(input_shape, 4, QV_CPU, 0, QV_FLOAT32, input) ||
      api->CreateCachedOpEx(sym, 1, names, &weight, 0, NULL, NULL, op, 1)) {
    fprintf(stderr, "setup failed: %s\n", api->GetLastError());
    return 0;
  }
  return 1;
}

#endif /* QUIVER_TESTS_C_TEST_SUPPORT_H_ */
