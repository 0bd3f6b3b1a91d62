// RTAS calls without RTAS firmware: QEMU's pseries machine implements
// every RTAS service itself behind the H_RTAS hypercall, which takes the
// real address of the argument buffer (big-endian words: token, number of
// arguments, number of results, arguments, results).

#include <stdarg.h>
#include <stdint.h>
#include <arch/hcall.h>
#include <arch/memlayout.h>
#include <arch/platform.h>
#include <kernel/spinlock.h>

struct rtas_args {
	uint32_t token, nargs, nret;
	uint32_t args[16];
};

static struct rtas_args rtas_buffer __attribute__((aligned(16)));
static struct spinlock rtas_lock = SPINLOCK_INIT("rtas");

// ret[0] gets the RTAS status, ret[1..nret-1] the other results.
int rtas_call(uint32_t token, int nargs, int nret, uint32_t *ret, ...)
{
	va_list ap;
	uint64_t flags = spin_lock_irqsave(&rtas_lock);
	struct rtas_args *a = &rtas_buffer;

	if (nargs + nret > 16) {
		spin_unlock_irqrestore(&rtas_lock, flags);
		return -1;
	}
	a->token = __builtin_bswap32(token);
	a->nargs = __builtin_bswap32((uint32_t)nargs);
	a->nret = __builtin_bswap32((uint32_t)nret);
	va_start(ap, ret);
	for (int i = 0; i < nargs; i++)
		a->args[i] = __builtin_bswap32(va_arg(ap, uint32_t));
	va_end(ap);
	for (int i = 0; i < nret; i++)
		a->args[nargs + i] = 0;
	long rc = hcall(H_RTAS, (uint64_t)a - KERNEL_OFFSET, 0, 0, 0, 0, 0);
	int status = rc == H_SUCCESS && nret > 0 ? (int)__builtin_bswap32(a->args[nargs]) : -1;
	for (int i = 0; i < nret && ret; i++)
		ret[i] = __builtin_bswap32(a->args[nargs + i]);
	spin_unlock_irqrestore(&rtas_lock, flags);
	return status;
}
