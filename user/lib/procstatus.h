// A task's state letter and voluntary context switches from its
// /proc/.../status: tests use the switch count to show that a sleeper
// was not woken (a poll or a spurious wake-up costs it a switch).
// Header-only and static inline, like ktap.h.
#ifndef USER_PROCSTATUS_H
#define USER_PROCSTATUS_H

#include <stdio.h>
#include <string.h>

// 'path' is the status file (/proc/PID/status, /proc/self/task/TID/status).
// 0, or -1 if it cannot be read or has no switch count.
static inline int proc_status_read(const char *path, char *state, long *nvcsw)
{
	char line[128];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	*state = '?';
	*nvcsw = -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", state);
		sscanf(line, "voluntary_ctxt_switches: %ld", nvcsw);
	}
	fclose(f);
	return *nvcsw < 0 ? -1 : 0;
}

#endif
