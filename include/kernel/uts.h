// The system's names (kernel/uts.c): what uname(2) reports, and
// /proc/sys/kernel/{ostype,osrelease,hostname,domainname} and
// /proc/version show.  The host and domain names are set by
// sethostname/setdomainname or by writing those /proc files.
#ifndef KERNEL_UTS_H
#define KERNEL_UTS_H

#include <stddef.h>

#define UTS_LEN 64			// Linux's __NEW_UTS_LEN: longest name

#define UTS_SYSNAME	"Linux"		// what programs check for
#define UTS_RELEASE	"6.1.0-switchyard"
#define UTS_VERSION	"#1 SMP Switchyard"
#define UTS_MACHINE	"x86_64"

enum uts_name { UTS_HOSTNAME, UTS_DOMAINNAME };

// Copies the name into buf (UTS_LEN + 1 bytes), NUL-terminated.
void uts_get(enum uts_name which, char *buf);
// Sets it to the 'len' bytes at 'name' (a kernel buffer, not
// NUL-terminated): 0, or -EINVAL if len > UTS_LEN.
int uts_set(enum uts_name which, const char *name, size_t len);

#endif
