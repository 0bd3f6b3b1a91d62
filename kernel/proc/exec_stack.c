// Builds a new program's initial stack in a kernel buffer.
//
// Everything is placed by a cursor that moves down from the top of the
// buffer; each placement first checks that what remains can hold it, so
// the buffer can never be overrun and no size arithmetic can wrap.  The
// layout follows Linux exactly, because libc start code and programs that
// inspect their own stack (for /proc/self/cmdline-like tricks, or AT_*
// lookups) depend on it.
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lib/string.h>
#include <proc/exec_stack.h>
#include <uapi/machine.h>
#include <uapi/errno.h>

// The cursor over the user range [base, top) that buf stands for.
struct stack_cursor {
	uint8_t *buf;
	uint64_t base;
	uint64_t p;		// lowest address placed so far
};

static uint8_t *at(const struct stack_cursor *c, uint64_t addr)
{
	return c->buf + (addr - c->base);
}

// Reserves len bytes below the cursor and returns their user address in
// *addr.
static int reserve(struct stack_cursor *c, uint64_t len, uint64_t *addr)
{
	if (len > c->p - c->base)
		return -E2BIG;
	c->p -= len;
	*addr = c->p;
	return 0;
}

static int push_bytes(struct stack_cursor *c, const void *data, uint64_t len,
		      uint64_t *addr)
{
	int err = reserve(c, len, addr);

	if (err == 0)
		memcpy(at(c, *addr), data, len);
	return err;
}

static int push_string(struct stack_cursor *c, const char *s, uint64_t *addr)
{
	return push_bytes(c, s, strlen(s) + 1, addr);
}

// Moves the cursor down to a multiple of 16, zeroing the padding so that
// no stale kernel bytes reach user space.
static int align16(struct stack_cursor *c)
{
	uint64_t pad = c->p % 16;
	uint64_t addr;
	int err = reserve(c, pad, &addr);

	if (err == 0)
		memset(at(c, addr), 0, pad);
	return err;
}

static void put_word(struct stack_cursor *c, uint64_t *addr, uint64_t value)
{
	memcpy(at(c, *addr), &value, sizeof(value));
	*addr += sizeof(value);
}

static bool args_valid(const struct exec_stack_args *a)
{
	if (a->argc < 0 || a->envc < 0 || a->random16 == NULL)
		return false;
	if (a->nauxv < 0 || a->nauxv > EXEC_STACK_MAX_AUXV)
		return false;
	if ((a->argc > 0 && a->argv == NULL) || (a->envc > 0 && a->envp == NULL))
		return false;
	for (int i = 0; i < a->argc; i++)
		if (a->argv[i] == NULL)
			return false;
	for (int i = 0; i < a->envc; i++)
		if (a->envp[i] == NULL)
			return false;
	return true;
}

// Places the strings: execfn highest, then envp and argv each from last to
// first, so in memory they read argv[0], argv[1], ..., envp[0], ...,
// execfn, contiguously.  *strings is where argv[0]'s string starts.
static int push_strings(struct stack_cursor *c, const struct exec_stack_args *a,
			uint64_t *execfn_addr, uint64_t *strings)
{
	static const uint8_t zero[8];
	uint64_t addr;
	int err;

	// Linux leaves a zero word at the very top: nothing sits past it.
	if ((err = push_bytes(c, zero, sizeof(zero), &addr)) != 0)
		return err;
	*execfn_addr = 0;
	if (a->execfn != NULL &&
	    (err = push_string(c, a->execfn, execfn_addr)) != 0)
		return err;
	for (int i = a->envc - 1; i >= 0; i--)
		if ((err = push_string(c, a->envp[i], &addr)) != 0)
			return err;
	for (int i = a->argc - 1; i >= 0; i--)
		if ((err = push_string(c, a->argv[i], &addr)) != 0)
			return err;
	*strings = c->p;
	return 0;
}

// Writes 'count' pointers to consecutive strings starting at *str, then a
// NULL; advances *str past them.
static void put_string_pointers(struct stack_cursor *c, uint64_t *addr,
				const char *const *v, int count, uint64_t *str)
{
	for (int i = 0; i < count; i++) {
		put_word(c, addr, *str);
		*str += strlen(v[i]) + 1;
	}
	put_word(c, addr, 0);
}

static void put_pair(struct stack_cursor *c, uint64_t *addr, uint64_t type,
		     uint64_t value)
{
	put_word(c, addr, type);
	put_word(c, addr, value);
}

int exec_stack_build(uint8_t *buf, size_t size, uint64_t top,
		     const struct exec_stack_args *a, uint64_t *sp)
{
	static const char platform[] = ELF_PLATFORM;
	struct stack_cursor c;
	uint64_t execfn_addr, strings, platform_addr, random_addr, addr;
	int err;

	if (!args_valid(a) || size > top)
		return -EINVAL;
	c.buf = buf;
	c.base = top - size;
	c.p = top;

	if ((err = push_strings(&c, a, &execfn_addr, &strings)) != 0)
		return err;
	if ((err = align16(&c)) != 0)
		return err;
	if ((err = push_bytes(&c, platform, sizeof(platform),
			      &platform_addr)) != 0)
		return err;
	if ((err = push_bytes(&c, a->random16, 16, &random_addr)) != 0)
		return err;

	// argc, argv + NULL, envp + NULL, then the caller's pairs and our
	// own (AT_RANDOM, AT_EXECFN, AT_PLATFORM, AT_NULL).  The counts are
	// ints, so this cannot wrap.
	uint64_t words = 1 + ((uint64_t)a->argc + 1) + ((uint64_t)a->envc + 1) +
			 2 * ((uint64_t)a->nauxv + 3 + (a->execfn != NULL));
	uint64_t table = words * 8;
	if (table > c.p - c.base)
		return -E2BIG;
	// The table starts at the 16-aligned address at or below where it
	// would otherwise begin; the slack (0 to 15 bytes) lies between its
	// end and the random bytes, exactly where Linux leaves it.
	table += (c.p - table) % 16;
	if ((err = reserve(&c, table, &addr)) != 0)
		return err;
	memset(at(&c, addr), 0, table);

	put_word(&c, &addr, (uint64_t)a->argc);
	put_string_pointers(&c, &addr, a->argv, a->argc, &strings);
	put_string_pointers(&c, &addr, a->envp, a->envc, &strings);
	for (int i = 0; i < a->nauxv; i++)
		put_pair(&c, &addr, a->auxv[i][0], a->auxv[i][1]);
	put_pair(&c, &addr, AT_RANDOM, random_addr);
	if (a->execfn != NULL)
		put_pair(&c, &addr, AT_EXECFN, execfn_addr);
	put_pair(&c, &addr, AT_PLATFORM, platform_addr);
	put_pair(&c, &addr, AT_NULL, 0);

	*sp = c.p;
	return 0;
}
