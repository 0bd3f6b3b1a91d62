// The system's names (kernel/uts.c): what uname(2) reports, and
// /proc/sys/kernel/{ostype,osrelease,hostname,domainname} and
// /proc/version show.  The host and domain names are set by
// sethostname/setdomainname or by writing those /proc files.
#ifndef KERNEL_UTS_H
#define KERNEL_UTS_H

#include <stddef.h>
#include <uapi/machine.h>		// UTS_MACHINE, UTS_MACHINE_32

#define UTS_LEN 64			// Linux's __NEW_UTS_LEN: longest name

#define UTS_SYSNAME	"Linux"		// what programs check for
#define UTS_RELEASE	"6.1.0-switchyard"
#define UTS_VERSION	"#1 SMP Switchyard"

enum uts_name { UTS_HOSTNAME, UTS_DOMAINNAME };

// Copies the name into buf (UTS_LEN + 1 bytes), NUL-terminated.
void uts_get(enum uts_name which, char *buf);
// The release uname reports to the caller: UTS_RELEASE, or under the
// UNAME26 personality the 2.6 release old programs understand, as Linux
// makes it (2.6.(60 + minor) and what follows the version numbers).
void uts_release(char *buf, size_t size);
// Sets it to the 'len' bytes at 'name' (a kernel buffer, not
// NUL-terminated): 0, or -EINVAL if len > UTS_LEN.
int uts_set(enum uts_name which, const char *name, size_t len);

#endif
