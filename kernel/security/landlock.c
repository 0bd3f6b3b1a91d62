// Landlock's three calls answer as Linux 6.1 does when Landlock is built
// in but not enabled at boot (not in the lsm= list): EOPNOTSUPP, before
// any other check.  Programs take that as "no sandbox available" and go
// on without one; Switchyard has no Landlock rules to enforce, so any
// other answer would promise a restriction it does not apply.

#include <kernel/syscall.h>
#include <uapi/errno.h>

SYSCALL_DEFINE(SYS_landlock_create_ruleset, landlock_create_ruleset)
{
	(void)args;
	return -EOPNOTSUPP;
}

SYSCALL_DEFINE(SYS_landlock_add_rule, landlock_add_rule)
{
	(void)args;
	return -EOPNOTSUPP;
}

SYSCALL_DEFINE(SYS_landlock_restrict_self, landlock_restrict_self)
{
	(void)args;
	return -EOPNOTSUPP;
}
