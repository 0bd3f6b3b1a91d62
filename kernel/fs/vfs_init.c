// Building the tree at boot: the initramfs, then /dev, /proc, /sys and /tmp.

#include <fs/vfs.h>
#include <fs/cpio.h>
#include <fs/dev.h>
#include <fs/fcntl.h>
#include <kernel/console.h>
#include <kernel/mqueue.h>
#include <kernel/uaccess.h>
#include <lib/string.h>
#include <mm/kmalloc.h>
#include <uapi/errno.h>

// Splits "a/b/c" (in place) into the directory "a/b", created if
// missing, and the name "c".
static int parent_of(char *path, struct vnode **dir, const char **name)
{
	char *slash = strrchr(path, '/');

	if (!slash) {
		*name = path;
		return vfs_mkdir_p("/", dir);
	}
	*slash = 0;
	*name = slash + 1;
	return vfs_mkdir_p(path, dir);
}

// Files keep the owners the archive gives them (boot time: nobody else
// looks at the tree yet).
static void set_owner(struct vnode *vn, const struct cpio_entry *e)
{
	vn->uid = e->uid;
	vn->gid = e->gid;
}

static int unpack_file(char *path, const struct cpio_entry *e)
{
	uint32_t type = e->mode & CPIO_S_IFMT, perm = e->mode & 07777;
	struct vnode *dir, *vn;
	const char *name;
	char *target;
	int rc;

	if (type == CPIO_S_IFDIR) {
		rc = vfs_mkdir_p(path, &vn);
		if (rc == 0) {
			vn->mode = (vn->mode & S_IFMT) | perm;
			set_owner(vn, e);
			vnode_put(vn);
		}
		return rc;
	}
	if (type != CPIO_S_IFREG && type != CPIO_S_IFLNK)
		return 0;	// device nodes, fifos: /dev is made below
	rc = parent_of(path, &dir, &name);
	if (rc)
		return rc;
	if (type == CPIO_S_IFLNK) {
		target = e->size < PATH_MAX ? kmalloc(e->size + 1) : NULL;
		if (target) {
			memcpy(target, e->data, e->size);
			target[e->size] = 0;
			rc = vfs_create(dir, name, VNODE_SYMLINK, 0777, target, &vn);
			kfree(target);
			if (rc == 0) {
				set_owner(vn, e);
				vnode_put(vn);
			}
		} else {
			rc = e->size < PATH_MAX ? -ENOMEM : -ENAMETOOLONG;
		}
	} else {
		rc = vfs_create(dir, name, VNODE_REG, perm, NULL, &vn);
		if (rc == 0) {
			set_owner(vn, e);
			long n = vnode_write(vn, 0, e->data, e->size);
			if (n != (long)e->size)
				rc = n < 0 ? (int)n : -ENOSPC;
			vnode_put(vn);
		}
	}
	vnode_put(dir);
	return rc;
}

static int unpack_entry(const struct cpio_entry *e)
{
	const char *p = e->name;
	char *path;
	int rc;

	// Names are relative ("bin/sh", "./bin/sh"); "." is the root.
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	while (*p == '/')
		p++;
	if (*p == 0 || strcmp(p, ".") == 0)
		return 0;
	path = kmalloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	if (strlcpy(path, p, PATH_MAX) >= PATH_MAX)
		rc = -ENAMETOOLONG;
	else
		rc = unpack_file(path, e);
	kfree(path);
	return rc;
}

int vfs_unpack(const void *cpio, size_t len)
{
	struct cpio_iter it;
	struct cpio_entry e;
	int rc, files = 0;

	cpio_iter_init(&it, cpio, len);
	while ((rc = cpio_next(&it, &e)) == 1) {
		int err = unpack_entry(&e);
		if (err)
			kprintf("vfs: initramfs: %.*s: error %d\n", (int)e.namelen, e.name, -err);
		files++;
	}
	if (rc < 0)
		kprintf("vfs: initramfs is corrupt after %d entries\n", files);
	return rc;
}

int vfs_init(const void *cpio, size_t len)
{
	int rc = 0;

	if (!vfs_root())
		return -ENOMEM;
	if (cpio && len)
		rc = vfs_unpack(cpio, len);
	struct vnode *tmp;
	int err = vfs_mkdir_p("/tmp", &tmp);
	if (!err) {
		tmp->mode = S_IFDIR | 01777;
		vnode_put(tmp);
	}
	if (!err)
		err = devices_init();
	if (!err)
		err = mqueue_init();
	if (!err)
		err = procfs_init();
	if (!err)
		err = procfs_facilities_init();
	if (!err)
		err = procfs_sys_init();
	if (!err)
		err = procfs_stat_init();
	if (!err)
		err = procfs_config_init();
	// As Linux's: a new name in /proc is ENOENT, a removal EPERM (in
	// /proc/sys EACCES: its directories are never writable); in /sys a
	// new name is EACCES.
	if (!err)
		err = vfs_fix_names("/proc", ENOENT, EPERM);
	if (!err)
		err = vfs_fix_names("/proc/sys", ENOENT, EACCES);
	if (!err)
		err = vfs_fix_names("/sys", EACCES, EPERM);
	if (err)
		kprintf("vfs: cannot create /dev, /proc or /tmp: error %d\n", -err);
	return rc < 0 ? rc : err;
}
