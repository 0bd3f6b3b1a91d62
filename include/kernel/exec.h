// Running programs.
#ifndef KERNEL_EXEC_H
#define KERNEL_EXEC_H

#include <stdint.h>
#include <stddef.h>

struct trap_frame;
struct thread;

// exec on behalf of the kernel (starting init).
int exec_from_kernel(const char *path, const char *const *argv, int argc,
		     const char *const *envp, int envc, struct trap_frame *f);

// Arch hooks for exec.
uint64_t arch_hwcap(void);
uint64_t arch_hwcap2(void);
uint64_t arch_min_sigstack(void);
void arch_exec_reset_thread(struct thread *t);	// fresh extended state etc.
// Mappings the arch gives every new program (ppc64: the page holding the
// signal-return trampoline, which Linux keeps in its vDSO); 0 or -errno.
struct mm;
int arch_exec_map(struct mm *mm);

#endif
