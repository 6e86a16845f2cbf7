/* What a program learns of this CPU from CPUID, for tests/tools/avx2_cpu_test.sh: prints one line,
 * "avx2=1 avx512f=1 avx512_vnni=1 avx_vnni=0 amx_int8=0 builtin_avx512f=1". With the argument
 * own-handler it first installs a SIGSEGV handler of its own and faults once into it; with crash it
 * faults after printing, with no handler. */
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf recovery;

static void on_segv(int signo) {
  (void)signo;
  siglongjmp(recovery, 1);
}

static int bit(unsigned reg, int n) { return (reg >> n) & 1; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "own-handler") == 0) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_segv;
    sigaction(SIGSEGV, &action, NULL);
    if (sigsetjmp(recovery, 1) == 0) *(volatile int *)0 = 1;
    printf("own handler ran\n");
  }
  unsigned a, b, c, d, a1, b1, c1, d1;
  __cpuid_count(7, 0, a, b, c, d);
  __cpuid_count(7, 1, a1, b1, c1, d1);
  __builtin_cpu_init();
  printf("avx2=%d avx512f=%d avx512_vnni=%d avx_vnni=%d amx_int8=%d builtin_avx512f=%d\n", bit(b, 5), bit(b, 16),
         bit(c, 11), bit(a1, 4), bit(d, 25), __builtin_cpu_supports("avx512f") ? 1 : 0);
  fflush(stdout);
  if (strcmp(mode, "crash") == 0) *(volatile int *)0 = 1;
  return 0;
}
