// Removing the System V message queues, semaphore sets and shared memory
// segments a program made.
//
// They outlive their makers, as on Linux, so a test that stops half-way
// (a failed check, an injected allocation failure) would leave them to
// the leak check after it.  sysv_note_objects() records the identifiers
// there are (found by slot: MSG_STAT, SEM_STAT and SHM_STAT); sysv_remove_new_objects()
// removes every one that was not.  Only for a program that runs alone,
// as init runs the tests: another program's objects made meanwhile go too.
//
// Header-only, like the other files in user/lib; every function is
// static inline.
#ifndef USER_SYSV_CLEANUP_H
#define USER_SYSV_CLEANUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>

#define SYSV_MAX_BEFORE 256
enum sysv_kind { SYSV_MSG, SYSV_SEM, SYSV_SHM, SYSV_KINDS };
static int sysv_before[SYSV_KINDS][SYSV_MAX_BEFORE], sysv_nbefore[SYSV_KINDS];

static inline int sysv_at(enum sysv_kind k, int slot)
{
	struct msqid_ds mds;
	struct semid_ds sds;
	struct shmid_ds hds;

	if (k == SYSV_SHM)
		return shmctl(slot, SHM_STAT, &hds);
	return k == SYSV_MSG ? msgctl(slot, MSG_STAT, &mds) : semctl(slot, 0, SEM_STAT, &sds);
}

static inline int sysv_top_slot(enum sysv_kind k)
{
	struct msginfo mi;
	struct seminfo si;
	struct shm_info hi;

	if (k == SYSV_SHM)
		return shmctl(0, SHM_INFO, (struct shmid_ds *)&hi);
	return k == SYSV_MSG ? msgctl(0, MSG_INFO, (struct msqid_ds *)&mi)
			     : semctl(0, 0, SEM_INFO, &si);
}

static inline void sysv_note_objects(void)
{
	for (int k = 0; k < SYSV_KINDS; k++) {
		int top = sysv_top_slot(k);

		sysv_nbefore[k] = 0;
		for (int slot = 0; slot <= top && sysv_nbefore[k] < SYSV_MAX_BEFORE; slot++) {
			int id = sysv_at(k, slot);

			if (id >= 0)
				sysv_before[k][sysv_nbefore[k]++] = id;
		}
	}
}

static inline void sysv_remove_new_objects(void)
{
	for (int k = 0; k < SYSV_KINDS; k++) {
		int top = sysv_top_slot(k);

		for (int slot = 0; slot <= top; slot++) {
			int id = sysv_at(k, slot);
			bool old = false;

			for (int i = 0; i < sysv_nbefore[k]; i++)
				old |= sysv_before[k][i] == id;
			if (id < 0 || old)
				continue;
			if (k == SYSV_MSG)
				msgctl(id, IPC_RMID, NULL);
			else if (k == SYSV_SEM)
				semctl(id, 0, IPC_RMID);
			else
				shmctl(id, IPC_RMID, NULL);	// gone at its last detach
		}
	}
}

#endif
