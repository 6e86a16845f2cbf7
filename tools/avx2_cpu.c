/* Makes a process see this CPU as an AVX2-only one (AMD Zen 2 and 3, Intel Haswell to Broadwell):
 * preloaded (LD_PRELOAD; scripts/as_avx2_cpu.sh runs a command so), it turns on the kernel's CPUID
 * faulting (arch_prctl ARCH_SET_CPUID, /proc/cpuinfo flag cpuid_fault) and answers each CPUID instruction
 * itself, with AVX-512, AVX-VNNI, AVX512-BF16/FP16 and AMX taken out. Every library that dispatches on
 * CPUID (oneDNN, ONNX Runtime's MLAS, OpenVINO, MXNet, numpy, libgcc's __builtin_cpu_supports) then
 * takes its AVX2 path, at native speed: only the CPUID instructions trap. ONEDNN_MAX_CPU_ISA does the
 * same for oneDNN alone.
 *
 * CPUID faulting is per thread and inherited by the threads made later, so it is turned on in a
 * constructor, before the program starts any; execve turns it off, and LD_PRELOAD turns it on again in
 * the new program. The trap arrives as SIGSEGV, so this library keeps that signal's handler: a program
 * that installs its own (Catch2, Python's faulthandler, the JVM) gets it called for every SIGSEGV that is
 * not a CPUID, as the kernel would have called it; without one the process dies as it would have. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define BIT(n) (1u << (n))
/* What an AVX2-only CPU lacks, by CPUID leaf, subleaf and register. */
static const uint32_t kLeaf7Ebx = BIT(16) | BIT(17) | BIT(21) | BIT(26) | BIT(27) | BIT(28) | BIT(30) |
                                  BIT(31); /* AVX512 F, DQ, IFMA, PF, ER, CD, BW, VL */
static const uint32_t kLeaf7Ecx =
    BIT(1) | BIT(6) | BIT(11) | BIT(12) | BIT(14); /* AVX512 VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ */
static const uint32_t kLeaf7Edx = BIT(2) | BIT(3) | BIT(8) | BIT(22) | BIT(23) | BIT(24) |
                                  BIT(25); /* AVX512 4VNNIW, 4FMAPS, VP2INTERSECT; AMX-BF16; AVX512-FP16;
                                              AMX-TILE; AMX-INT8 */
static const uint32_t kLeaf7Sub1Eax =
    BIT(4) | BIT(5) | BIT(21) | BIT(23); /* AVX-VNNI, AVX512-BF16, AMX-FP16, AVX-IFMA */
static const uint32_t kLeaf7Sub1Edx = BIT(4) | BIT(5) | BIT(10); /* AVX-VNNI-INT8, AVX-NE-CONVERT,
                                                                    AVX-VNNI-INT16 */
static const uint32_t kLeafDEax = BIT(5) | BIT(6) | BIT(7) | BIT(17) | BIT(18); /* XSAVE state: opmask,
                                                                                   ZMM, AMX tiles */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;
/* The program's own SIGSEGV disposition, as it set it through sigaction() or signal(). */
static struct sigaction program_segv;

static long set_cpuid_faulting(int on) { return syscall(SYS_arch_prctl, ARCH_SET_CPUID, on ? 0 : 1); }

static void masked_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]) {
  set_cpuid_faulting(0);
  __cpuid_count(leaf, subleaf, r[0], r[1], r[2], r[3]);
  set_cpuid_faulting(1);
  if (leaf == 7 && subleaf == 0) {
    r[1] &= ~kLeaf7Ebx;
    r[2] &= ~kLeaf7Ecx;
    r[3] &= ~kLeaf7Edx;
  } else if (leaf == 7 && subleaf == 1) {
    r[0] &= ~kLeaf7Sub1Eax;
    r[3] &= ~kLeaf7Sub1Edx;
  } else if (leaf == 0xd && subleaf == 0) {
    r[0] &= ~kLeafDEax;
  } else if (leaf == 0x1d || leaf == 0x1e) { /* AMX tile and TMUL information */
    r[0] = r[1] = r[2] = r[3] = 0;
  }
}

static void on_segv(int signo, siginfo_t *info, void *context) {
  ucontext_t *uc = context;
  greg_t *regs = uc->uc_mcontext.gregs;
  const unsigned char *ip = (const unsigned char *)regs[REG_RIP];
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0xa2) { /* a trapped CPUID */
    uint32_t r[4];
    masked_cpuid((uint32_t)regs[REG_RAX], (uint32_t)regs[REG_RCX], r);
    regs[REG_RAX] = r[0];
    regs[REG_RBX] = r[1];
    regs[REG_RCX] = r[2];
    regs[REG_RDX] = r[3];
    regs[REG_RIP] += 2;
    return;
  }
  if (program_segv.sa_flags & SA_SIGINFO) {
    program_segv.sa_sigaction(signo, info, context);
  } else if (program_segv.sa_handler != SIG_DFL && program_segv.sa_handler != SIG_IGN) {
    program_segv.sa_handler(signo);
  } else { /* the default: a fault repeats on return, a sent signal is sent again, and either kills */
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    real_sigaction(SIGSEGV, &fallback, NULL);
    if (info->si_code <= 0) raise(signo);
  }
}

/* Exported over the project's hidden default: these replace libc's for the whole process. */
#define EXPORTED __attribute__((visibility("default")))

EXPORTED int sigaction(int signo, const struct sigaction *action, struct sigaction *old) {
  if (signo != SIGSEGV) return real_sigaction(signo, action, old);
  if (old) *old = program_segv;
  if (action) program_segv = *action;
  return 0;
}

EXPORTED sighandler_t signal(int signo, sighandler_t handler) {
  struct sigaction action, old;
  memset(&action, 0, sizeof action);
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  return sigaction(signo, &action, &old) == 0 ? old.sa_handler : SIG_ERR;
}

__attribute__((constructor)) static void start_masking(void) {
  real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_segv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK; /* the program's alternate stack, if it sets one */
  sigemptyset(&action.sa_mask);
  if (!real_sigaction || real_sigaction(SIGSEGV, &action, &program_segv) != 0 || set_cpuid_faulting(1) != 0) {
    static const char message[] =
        "avx2_cpu: this kernel or CPU cannot trap CPUID (no cpuid_fault in /proc/cpuinfo), so AVX-512 "
        "cannot be hidden from this process\n";
    (void)!write(2, message, sizeof message - 1);
    _exit(3);
  }
}
