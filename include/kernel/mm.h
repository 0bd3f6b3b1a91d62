// Address spaces.
#ifndef KERNEL_MM_H
#define KERNEL_MM_H

#include <stdint.h>
#include <stdbool.h>
#include <kernel/spinlock.h>
#include <kernel/smp.h>
#include <mm/vma_tree.h>
#include <arch/mm_arch.h>

struct aio_ctx;

#define COREDUMP_FILTER_DEFAULT	0x33	// anonymous memory, ELF headers, private huge pages
#define COREDUMP_FILTER_MASK	0x1ff	// the nine bits Linux keeps

struct mm {
	uint64_t root_pa;		// its page tables' root (arch/pte.h's format)
	uint64_t id;			// never reused: tells address spaces apart
	int refcount;			// threads and vfork parents using it
	struct spinlock lock;		// guards the VMAs, page tables and rss
	struct vt_tree vmas;		// the mappings (struct vma), by address
	uint64_t rss;			// frames mapped in its page tables
	uint64_t rss_peak;		// the most rss has been (ru_maxrss)
	uint64_t rss_file;		// of rss, files' own frames (statm's "shared")
	volatile cpumask_t active_cpus;	// CPUs that may cache its translations
	uint64_t brk_start, brk;	// program break
	// Where exec put the argument and environment strings on the stack
	// (/proc/PID/cmdline and environ read them, as Linux's mm fields).
	uint64_t start_code, end_code, start_data, end_data, start_stack;
	uint64_t arg_start, arg_end, env_start, env_end;
	uint64_t auxv_start, auxv_end;	// the auxiliary vector (/proc/PID/auxv)
	uint64_t mmap_base;		// where the search for free room starts
	struct mm_arch arch;		// the arch's own (x86-64: PCID, stale TLBs)
	int membarrier_state;		// registrations (membarrier(2))
	bool lock_future;		// mlockall(MCL_FUTURE): new mappings are locked
	// /proc/PID/coredump_filter: Linux's MMF_DUMP_FILTER bits (0x33 at
	// first), inherited by fork and exec; no core is written, but the
	// setting is kept and shown as Linux shows it.
	uint32_t coredump_filter;
	uint64_t rseq_cids;		// rseq mm_cid values in use, one bit each
	struct aio_ctx *aio;		// io_setup's contexts (kernel/fs/aio.c)
	// The program it runs (exec's file, inherited by fork), referenced
	// and denied write access while the address space lives (Linux's
	// exe_file): writing it gives ETXTBSY.  NULL for the kernel's.
	struct vnode *exe;
};

// Switches this CPU to 'mm' (arch: x86-64 loads CR3 with its PCID).
void arch_mm_activate(struct mm *mm);
// Arch: give a new address space its id, take it back when freed.
void arch_mm_init(struct mm *mm);
void arch_mm_fini(struct mm *mm);
// Makes every CPU forget mm (before its page tables are freed).
void arch_mm_drop_everywhere(struct mm *mm);

#endif
