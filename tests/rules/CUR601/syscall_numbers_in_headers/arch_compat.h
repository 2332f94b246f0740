#ifndef ARCH_COMPAT_H
#define ARCH_COMPAT_H
#include <sys/syscall.h>

/* older C libraries lack the numbers: the kernel's, per architecture */
#ifndef SYS_process_vm_readv
#if defined(__x86_64__)
#define SYS_process_vm_readv 310
#define SYS_process_vm_writev 311
#elif defined(__aarch64__)
#define SYS_process_vm_readv 270
#define SYS_process_vm_writev 271
#endif
#endif

#define NR_PEEK SYS_process_vm_readv
#define NR_POKE (__NR_process_vm_writev)
#define NR_THREAD_ID SYS_gettid
#endif
