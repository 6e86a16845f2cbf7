// Notices go to stderr only when QUIVER_VERBOSE asks for them. The variable is read once per process,
// so the case checks whichever the environment says: ctest runs it as discovered (unset: silent) and
// once more as common.notice_verbose (QUIVER_VERBOSE=1, tests/CMakeLists.txt).
#include "common/notice.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace {

// What `write` sends to file descriptor 2.
std::string CapturedStderr(const std::function<void()>& write) {
  std::fflush(stderr);
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  const int saved = dup(2);
  REQUIRE(saved >= 0);
  dup2(fileno(file), 2);
  write();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::rewind(file);
  std::string text;
  char buffer[256];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  std::fclose(file);
  return text;
}

}  // namespace

TEST_CASE("Notice writes one 'quiver: ' line to stderr if QUIVER_VERBOSE is set, else nothing", "[common]") {
  const char* verbose = std::getenv("QUIVER_VERBOSE");
  const bool wanted = verbose != nullptr && *verbose != '\0' && std::strcmp(verbose, "0") != 0;
  INFO("QUIVER_VERBOSE=" << (verbose != nullptr ? verbose : "(unset)"));
  const std::string written = CapturedStderr([] { qv::Notice("a plan runs eagerly"); });
  CHECK(written == (wanted ? "quiver: a plan runs eagerly\n" : ""));
}
