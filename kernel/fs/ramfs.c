// The in-memory file tree: vnodes, directory entries and page-backed file
// data, with a size limit of its own.  See fs/vnode.h for the locking and
// lifetime rules.

#include <fs/vnode.h>
#include <fs/vfs.h>
#include <fs/fcntl.h>
#include <kernel/vm.h>
#include <fs/fsnotify.h>
#include <kernel/boot.h>
#include <kernel/uaccess.h>
#include <kernel/time.h>
#include <kernel/console.h>
#include <kernel/process.h>
#include <uapi/signal.h>
#include <lib/string.h>
#include <mm/frame.h>
#include <mm/kmalloc.h>
#include <mm/phys.h>
#include <uapi/errno.h>

struct spinlock vfs_tree_lock = SPINLOCK_INIT("vfs tree");
static uint64_t next_ino = 1;

// Every vnode by inode number (open_by_handle_at), under ino_lock (taken
// inside vfs_tree_lock when both are held: vnodes are made under it): a
// vnode is in it from its making to its freeing, as an inode is in
// Linux's inode cache while it lives.
#define INO_BUCKETS	1024
static struct vnode *by_ino[INO_BUCKETS];
static struct spinlock ino_lock = SPINLOCK_INIT("ino index");

uint64_t fs_now_ns(void)
{
	return clock_realtime_ns();
}

// ---- space ----
//
// File data may use only so many pages, as on tmpfs (size=, by default
// half of RAM): filling /tmp must give the writer ENOSPC, not take the
// memory other processes need.  Only data pages count: holes are free
// and a file may be truncated past the limit, as on tmpfs; directories,
// names and symlink targets are small.

static uint64_t size_value = 50;	// fs_size=: bytes, or percent of RAM
static bool size_in_percent = true;
static uint64_t space_max;		// pages; 0 until first needed
static uint64_t space_used;		// pages held by files

// fs_size=VALUE: bytes with an optional K, M or G (binary) suffix, or
// N% of RAM (1..100); 0 means no limit, as on tmpfs.
int fs_size_parse(const char *s, uint64_t *value, bool *percent)
{
	char digits[24];
	size_t n = strlen(s ? s : "");
	uint64_t v, shift = 0;

	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, s, n + 1);
	*percent = false;
	switch (digits[n - 1]) {
	case '%': *percent = true; break;
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	default: n++; break;		// no suffix
	}
	digits[n - 1] = 0;
	if (!parse_u64(digits, 10, &v))
		return -1;
	if (*percent && (v < 1 || v > 100))
		return -1;
	if (v > (UINT64_MAX >> shift))
		return -1;
	*value = v << shift;
	return 0;
}

static int set_fs_size(const char *value)
{
	return fs_size_parse(value, &size_value, &size_in_percent);
}
BOOT_OPTION(fs_size, "size limit of the file tree (/tmp): bytes, with K/M/G, or N% of RAM (default 50%; 0: none)",
	    set_fs_size);

// The limit in pages, worked out at first use (after the boot options).
static uint64_t space_limit(void)
{
	uint64_t max = __atomic_load_n(&space_max, __ATOMIC_RELAXED);
	uint64_t total, free;

	if (max)
		return max;
	frame_stats(&total, &free);
	if (size_in_percent)
		max = total * size_value / 100;
	else if (size_value == 0)
		max = UINT64_MAX;
	else
		max = (size_value + PAGE_SIZE - 1) >> PAGE_SHIFT;
	if (max == 0)
		max = 1;
	__atomic_store_n(&space_max, max, __ATOMIC_RELAXED);
	return max;
}

// Takes n pages of the tree's space; false if that would pass the limit.
static bool space_take(uint64_t n)
{
	uint64_t max = space_limit();
	uint64_t used = __atomic_load_n(&space_used, __ATOMIC_RELAXED);

	do {
		if (n > max || used > max - n)
			return false;
	} while (!__atomic_compare_exchange_n(&space_used, &used, used + n, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

static void space_give(uint64_t n)
{
	__atomic_sub_fetch(&space_used, n, __ATOMIC_RELAXED);
}

bool vfs_space_take(uint64_t pages)
{
	return space_take(pages);
}

void vfs_space_give(uint64_t pages)
{
	space_give(pages);
}

void vfs_space(uint64_t *total_pages, uint64_t *free_pages)
{
	uint64_t max = space_limit();
	uint64_t used = __atomic_load_n(&space_used, __ATOMIC_RELAXED);

	*total_pages = max;
	*free_pages = used < max ? max - used : 0;
}

// ---- iobuf ----

int iobuf_put(struct iobuf *b, size_t at, const void *src, size_t n)
{
	if (b->user)
		return copy_to_user(b->uaddr + at, src, n);
	memcpy(b->kaddr + at, src, n);
	return 0;
}

int iobuf_get(struct iobuf *b, size_t at, void *dst, size_t n)
{
	if (b->user)
		return copy_from_user(dst, b->uaddr + at, n);
	memcpy(dst, b->kaddr + at, n);
	return 0;
}

int iobuf_zero(struct iobuf *b, size_t at, size_t n)
{
	if (b->user)
		return clear_user(b->uaddr + at, n);
	memset(b->kaddr + at, 0, n);
	return 0;
}

// ---- vnodes ----

static uint32_t type_bits(enum vnode_type type)
{
	switch (type) {
	case VNODE_DIR:
		return S_IFDIR;
	case VNODE_SYMLINK:
		return S_IFLNK;
	case VNODE_CHR:
		return S_IFCHR;
	case VNODE_FIFO:
		return S_IFIFO;
	case VNODE_BLK:
		return S_IFBLK;
	case VNODE_SOCK:
		return S_IFSOCK;
	case VNODE_ANON:
		return 0;	// as Linux's anon_inode: no file type at all
	default:
		return S_IFREG;
	}
}

struct vnode *vnode_alloc(enum vnode_type type, uint32_t perm)
{
	struct vnode *vn = kzalloc(sizeof(*vn));
	uint64_t now = fs_now_ns();

	if (!vn)
		return NULL;
	vn->type = type;
	vn->mode = type_bits(type) | (perm & 07777);
	vn->ino = __atomic_fetch_add(&next_ino, 1, __ATOMIC_RELAXED);
	vn->refcount = 1;
	uint64_t irq = spin_lock_irqsave(&ino_lock);
	// The bucket is kept: /proc gives its vnodes numbers of its own
	// after this (those are never looked up by number).
	vn->ino_bucket = (uint32_t)(vn->ino % INO_BUCKETS);
	vn->ino_next = by_ino[vn->ino_bucket];
	by_ino[vn->ino_bucket] = vn;
	spin_unlock_irqrestore(&ino_lock, irq);
	vn->next_seq = 2;	// positions 0 and 1 are "." and ".."
	spin_init(&vn->lock, "vnode");
	mutex_init(&vn->map_mutex, "vnode maps");
	vn->atime_ns = vn->mtime_ns = vn->ctime_ns = now;
	return vn;
}

static void free_pages_from(struct vnode *vn, uint64_t first)
{
	uint64_t freed = 0;

	for (uint64_t i = first; i < vn->npages; i++) {
		if (vn->pages[i]) {
			frame_unref(virt_to_phys(vn->pages[i]));
			vn->pages[i] = NULL;
			freed++;
		}
	}
	space_give(freed);
}

static void ino_unlink(struct vnode *vn)
{
	uint64_t irq = spin_lock_irqsave(&ino_lock);

	for (struct vnode **pp = &by_ino[vn->ino_bucket]; *pp; pp = &(*pp)->ino_next) {
		if (*pp == vn) {
			*pp = vn->ino_next;
			break;
		}
	}
	spin_unlock_irqrestore(&ino_lock, irq);
}

struct vnode *vnode_by_ino(uint64_t ino)
{
	uint64_t irq = spin_lock_irqsave(&vfs_tree_lock);
	spin_lock(&ino_lock);
	struct vnode *vn = by_ino[ino % INO_BUCKETS];

	// One that nothing holds and no name keeps is on its way out.
	while (vn && (vn->ino != ino || (vn->refcount == 0 && vn->nlink == 0)))
		vn = vn->ino_next;
	if (vn)
		vn->refcount++;
	spin_unlock(&ino_lock);
	spin_unlock_irqrestore(&vfs_tree_lock, irq);
	return vn;
}

static void vnode_free(struct vnode *vn)
{
	// A directory goes only once empty (rmdir, a rename's victim), and
	// nothing is made in one with no links: an entry left here is a bug
	// elsewhere, whose names are worth a line (the entry itself leaks).
	if (vn->type == VNODE_DIR && vn->entries)
		kprintf("vfs: directory '%s' (ino %lu) freed with entries, the first '%s'\n",
			vn->name ? vn->name : "?", (unsigned long)vn->ino, vn->entries->name);
	ino_unlink(vn);
	fsnotify_vnode_freed(vn);
	vnode_put(vn->unlinked_parent);
	if (vn->ops && vn->ops->release)
		vn->ops->release(vn);
	// A computed vnode held the directory it was found in (its "..").
	if (vn->computed)
		vnode_put(vn->parent);
	free_pages_from(vn, 0);
	kfree(vn->pages);
	kfree(vn->dir_buckets);
	xattr_free_all(vn);
	kfree(vn->target);
	kfree(vn->name);
	kfree(vn);
}

void vnode_get(struct vnode *vn)
{
	uint64_t flags = spin_lock_irqsave(&vfs_tree_lock);
	vn->refcount++;
	spin_unlock_irqrestore(&vfs_tree_lock, flags);
}

// Frees 'vn' if nothing holds it any more; the tree lock is held and
// released here.
static void release_locked(struct vnode *vn, uint64_t flags)
{
	bool dead = vn->refcount == 0 && vn->nlink == 0;

	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	if (dead)
		vnode_free(vn);
}

void vnode_put(struct vnode *vn)
{
	if (!vn)
		return;
	uint64_t flags = spin_lock_irqsave(&vfs_tree_lock);
	vn->refcount--;
	release_locked(vn, flags);
}

// ---- directories (vfs_tree_lock held) ----
//
// A directory's entries are a list in creation ('seq') order, which is
// readdir's order and its positions.  Past HASH_MIN entries they are also
// in a hash table by name, so that a lookup costs the same in a directory
// of ten thousand names as in one of ten.  The table is only an index: a
// directory whose table could not grow (no memory) keeps the smaller one
// or none and is merely slower, so no directory operation fails for it.

#define HASH_MIN	16	// entries before a directory gets a table
#define HASH_FIRST	32	// its first size, in buckets
#define HASH_MAX	65536	// the largest (512 KiB): chains grow past it

// FNV-1a: cheap, and good enough for names.
static uint32_t name_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	return h;
}

static void bucket_insert(struct dirent_node **buckets, uint32_t n, struct dirent_node *d)
{
	struct dirent_node **b = &buckets[d->hash & (n - 1)];

	d->hnext = *b;
	*b = d;
}

// Rebuilds the table with n buckets (0: none).  Without memory for the
// new one the old one stays, still correct.
static void dir_rehash(struct vnode *dir, uint32_t n)
{
	struct dirent_node **buckets = NULL;

	if (n) {
		buckets = kzalloc(n * sizeof(*buckets));
		if (!buckets)
			return;
		for (struct dirent_node *d = dir->entries; d; d = d->next)
			bucket_insert(buckets, n, d);
	}
	kfree(dir->dir_buckets);
	dir->dir_buckets = buckets;
	dir->dir_nbuckets = n;
}

// After an entry came in: a table once the directory is big, a bigger
// one when the chains average more than two entries.
static void dir_grow_index(struct vnode *dir)
{
	uint32_t n = dir->dir_nbuckets;

	if (!n && dir->nentries >= HASH_MIN)
		dir_rehash(dir, HASH_FIRST);
	else if (n && n < HASH_MAX && dir->nentries > 2 * n)
		dir_rehash(dir, n * 4);
}

// After an entry went: a smaller table when it is mostly empty, none for
// a small directory (so an emptied /tmp gives its memory back).
static void dir_shrink_index(struct vnode *dir)
{
	uint32_t n = dir->dir_nbuckets;

	if (n && dir->nentries < HASH_MIN / 2)
		dir_rehash(dir, 0);
	else if (n > HASH_FIRST && dir->nentries < n / 8)
		dir_rehash(dir, n / 4 < HASH_FIRST ? HASH_FIRST : n / 4);
}

static void bucket_remove(struct vnode *dir, struct dirent_node *d)
{
	struct dirent_node **pp = &dir->dir_buckets[d->hash & (dir->dir_nbuckets - 1)];

	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
}

struct dirent_node *dir_find(struct vnode *dir, const char *name, size_t len)
{
	if (!dir->dir_buckets) {
		for (struct dirent_node *d = dir->entries; d; d = d->next)
			if (d->namelen == len && memcmp(d->name, name, len) == 0)
				return d;
		return NULL;
	}
	uint32_t h = name_hash(name, len);
	for (struct dirent_node *d = dir->dir_buckets[h & (dir->dir_nbuckets - 1)]; d;
	     d = d->hnext)
		if (d->hash == h && d->namelen == len && memcmp(d->name, name, len) == 0)
			return d;
	return NULL;
}

void vnode_set_name(struct vnode *vn, struct vnode *dir, const char *name, size_t len)
{
	char *copy = kmalloc(len + 1);

	// The parent is what rename's loop check walks: it must be right
	// even when there is no memory for the name, which then stays the
	// old one (getcwd is less accurate, nothing worse).
	vn->parent = dir;
	if (!copy)
		return;
	memcpy(copy, name, len);
	copy[len] = 0;
	kfree(vn->name);
	vn->name = copy;
}

struct dirent_node *dirent_new(struct vnode *vn, const char *name, size_t len)
{
	struct dirent_node *d = kmalloc(sizeof(*d) + len + 1);

	if (!d)
		return NULL;
	d->next = d->prev = d->hnext = NULL;
	d->vn = vn;
	d->seq = 0;
	d->hash = name_hash(name, len);
	d->namelen = (uint16_t)len;
	memcpy(d->name, name, len);
	d->name[len] = 0;
	return d;
}

void dir_attach(struct vnode *dir, struct dirent_node *d)
{
	d->next = NULL;
	d->prev = dir->entries_tail;
	d->seq = dir->next_seq++;
	if (dir->entries_tail)
		dir->entries_tail->next = d;
	else
		dir->entries = d;
	dir->entries_tail = d;
	dir->nentries++;
	if (dir->dir_buckets)
		bucket_insert(dir->dir_buckets, dir->dir_nbuckets, d);
	dir_grow_index(dir);
	dir->mtime_ns = dir->ctime_ns = fs_now_ns();
}

void dir_detach(struct vnode *dir, struct dirent_node *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		dir->entries = d->next;
	if (d->next)
		d->next->prev = d->prev;
	else
		dir->entries_tail = d->prev;
	// A readdir that would have continued at d continues after it.
	if (dir->readdir_next == d)
		dir->readdir_next = d->next;
	if (dir->dir_buckets)
		bucket_remove(dir, d);
	d->next = d->prev = d->hnext = NULL;
	dir->nentries--;
	dir_shrink_index(dir);
	dir->mtime_ns = dir->ctime_ns = fs_now_ns();
}

int dir_add(struct vnode *dir, const char *name, size_t len, struct vnode *vn)
{
	struct dirent_node *d = dirent_new(vn, name, len);

	if (!d)
		return -ENOMEM;
	dir_attach(dir, d);
	vn->nlink++;
	if (vn->type == VNODE_DIR) {
		dir->nlink++;	// the new directory's ".."
		vn->nlink++;	// its "."
	}
	if (!vn->parent || vn->type == VNODE_DIR)
		vnode_set_name(vn, dir, name, len);
	return 0;
}

// Takes the entry out of 'dir' and frees it; the caller decides what
// becomes of the vnode (its nlink has been dropped).
void dir_remove(struct vnode *dir, struct dirent_node *d)
{
	struct vnode *vn = d->vn;

	dir_detach(dir, d);
	vn->nlink--;
	if (vn->type == VNODE_DIR) {
		dir->nlink--;
		vn->nlink = 0;	// its "." goes with it
	}
	if (vn->parent == dir && vn->name && d->namelen == strlen(vn->name) &&
	    memcmp(vn->name, d->name, d->namelen) == 0) {
		vn->parent = NULL;
		if (vn->nlink == 0 && !vn->unlinked_parent) {
			vn->unlinked_parent = dir;
			dir->refcount++;
		}
	}
	vn->ctime_ns = fs_now_ns();
	kfree(d);
}

bool dir_is_empty(struct vnode *dir)
{
	return dir->entries == NULL;
}

unsigned vnode_dtype(const struct vnode *vn)
{
	switch (vn->type) {
	case VNODE_DIR:
		return DT_DIR;
	case VNODE_SYMLINK:
		return DT_LNK;
	case VNODE_CHR:
		return DT_CHR;
	case VNODE_FIFO:
		return DT_FIFO;
	case VNODE_BLK:
		return DT_BLK;
	case VNODE_SOCK:
		return DT_SOCK;
	default:
		return DT_REG;
	}
}

// Where a readdir at position 'pos' starts in the list: where the last
// one stopped when that is still the first entry at or past 'pos' (a
// directory read in chunks: each getdents64 continues at once), nothing
// when 'pos' is past the last entry, else the list's start.
static struct dirent_node *readdir_start(struct vnode *dir, uint64_t pos)
{
	struct dirent_node *d = dir->readdir_next;

	if (d && d->seq >= pos && (!d->prev || d->prev->seq < pos))
		return d;
	if (!dir->entries_tail || dir->entries_tail->seq < pos)
		return NULL;
	return dir->entries;
}

int vfs_readdir(struct vnode *dir, uint64_t *pos, dir_emit_fn emit, void *arg)
{
	uint64_t flags;

	if (dir->type != VNODE_DIR)
		return -ENOTDIR;
	flags = spin_lock_irqsave(&vfs_tree_lock);
	if (*pos == 0) {
		if (!emit(arg, ".", 1, dir->ino, DT_DIR, 1))
			goto out;
		*pos = 1;
	}
	if (*pos == 1) {
		uint64_t ino = dir->parent ? dir->parent->ino : dir->ino;
		if (!emit(arg, "..", 2, ino, DT_DIR, 2))
			goto out;
		*pos = 2;
	}
	for (struct dirent_node *d = readdir_start(dir, *pos); d; d = d->next) {
		if (d->seq < *pos)
			continue;
		if (!emit(arg, d->name, d->namelen, d->vn->ino, vnode_dtype(d->vn), d->seq + 1)) {
			dir->readdir_next = d;
			goto out;
		}
		*pos = d->seq + 1;
	}
	dir->readdir_next = NULL;
	// The listed entries are done: the computed ones follow.
	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	if (dir->ops && dir->ops->readdir)
		return dir->ops->readdir(dir, pos, emit, arg);
	return 0;
out:
	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	return 0;
}

// ---- paths ----

int vnode_path(struct vnode *vn, char *buf, size_t size)
{
	uint64_t flags = spin_lock_irqsave(&vfs_tree_lock);
	int rc = vnode_path_locked(vn, buf, size);

	spin_unlock_irqrestore(&vfs_tree_lock, flags);
	return rc;
}

int vnode_path_locked(struct vnode *vn, char *buf, size_t size)
{
	return vnode_path_from_locked(current_root_locked(), vn, buf, size, NULL);
}

int vnode_path_from_locked(struct vnode *root, struct vnode *vn, char *buf, size_t size,
			   bool *unreachable)
{
	struct vnode *top = vfs_root();
	size_t pos;
	int rc = 0;

	if (size < 2)
		return -ERANGE;
	if (unreachable)
		*unreachable = false;
	pos = size - 1;
	buf[pos] = 0;
	for (struct vnode *v = vn; v != root; v = v->parent) {
		// Outside 'root': the path from the tree's root.
		if (v == top) {
			if (unreachable)
				*unreachable = true;
			break;
		}
		size_t len;

		if (!v->parent || !v->name || (v->nlink == 0 && !v->computed)) {
			rc = -ENOENT;
			break;
		}
		len = strlen(v->name);
		if (len + 1 > pos) {
			rc = -ERANGE;
			break;
		}
		pos -= len;
		memcpy(buf + pos, v->name, len);
		buf[--pos] = '/';
	}
	if (rc)
		return rc;
	if (pos == size - 1)
		buf[--pos] = '/';	// the root itself
	memmove(buf, buf + pos, size - pos);
	return (int)(size - 1 - pos);
}

// ---- file data ----

// Makes room for page 'index' in the page array (vn->lock held).
static int grow_page_array(struct vnode *vn, uint64_t index)
{
	uint64_t want = vn->npages ? vn->npages : 8;
	void **pages;

	if (index < vn->npages)
		return 0;
	while (want <= index)
		want *= 2;
	pages = kzalloc(want * sizeof(void *));
	if (!pages)
		return -ENOMEM;
	if (vn->npages)
		memcpy(pages, vn->pages, vn->npages * sizeof(void *));
	kfree(vn->pages);
	vn->pages = pages;
	vn->npages = want;
	return 0;
}

// Puts a new zeroed page at 'index' (missing) and takes the tree's space
// for it unless the caller already did ('reserved'); vn->lock held.
static int add_page(struct vnode *vn, uint64_t index, bool reserved)
{
	uint64_t pa;
	int rc = grow_page_array(vn, index);

	if (rc < 0)
		return rc;
	if (!reserved && !space_take(1))
		return -ENOSPC;
	pa = frame_alloc_zeroed(0);
	if (!pa) {
		if (!reserved)
			space_give(1);
		return -ENOMEM;
	}
	frame_set_use(pa, FRAME_FILE);
	vn->pages[index] = phys_to_virt(pa);
	return 0;
}

// The page at 'index' in *out, allocated (zeroed) if missing and 'alloc'
// (else NULL for a hole), with a frame reference for the caller
// (vn->lock held).  -ENOSPC when the tree is full, -ENOMEM.
static int pin_page(struct vnode *vn, uint64_t index, bool alloc, void **out)
{
	void *page = index < vn->npages ? vn->pages[index] : NULL;

	if (!page && alloc) {
		int rc = add_page(vn, index, false);
		if (rc < 0)
			return rc;
		page = vn->pages[index];
	}
	if (page)
		frame_ref(virt_to_phys(page));
	*out = page;
	return 0;
}

// 'atime': update the access time (not for an O_NOATIME descriptor).
static long read_io(struct vnode *vn, uint64_t off, struct iobuf *b, size_t n, bool atime)
{
	size_t done = 0;
	uint64_t flags;

	if (vn->type == VNODE_DIR)
		return -EISDIR;
	if (vn->type != VNODE_REG)
		return -EINVAL;
	while (done < n) {
		uint64_t pos = off + done;
		size_t pgoff = pos & (PAGE_SIZE - 1);
		size_t chunk = PAGE_SIZE - pgoff;
		void *page;
		int rc;

		flags = spin_lock_irqsave(&vn->lock);
		if (pos >= vn->size) {
			spin_unlock_irqrestore(&vn->lock, flags);
			break;
		}
		if (chunk > n - done)
			chunk = n - done;
		if (chunk > vn->size - pos)
			chunk = vn->size - pos;
		pin_page(vn, pos >> PAGE_SHIFT, false, &page);
		spin_unlock_irqrestore(&vn->lock, flags);

		if (page) {
			rc = iobuf_put(b, done, (char *)page + pgoff, chunk);
			frame_unref(virt_to_phys(page));
		} else {
			rc = iobuf_zero(b, done, chunk);	// a hole
		}
		if (rc < 0)
			return done ? (long)done : rc;
		done += chunk;
	}
	if (!atime)
		return done;
	flags = spin_lock_irqsave(&vn->lock);
	vn->atime_ns = fs_now_ns();
	spin_unlock_irqrestore(&vn->lock, flags);
	return done;
}

long vnode_read_io(struct vnode *vn, uint64_t off, struct iobuf *b, size_t n)
{
	return read_io(vn, off, b, n, true);
}

long vnode_read_io_noatime(struct vnode *vn, uint64_t off, struct iobuf *b, size_t n)
{
	return read_io(vn, off, b, n, false);
}

long vnode_read(struct vnode *vn, uint64_t off, void *kbuf, size_t n)
{
	struct iobuf b = iobuf_kernel(kbuf);

	if (vn->ops && vn->ops->read)
		return vn->ops->read(vn, NULL, off, &b, n);
	return vnode_read_io(vn, off, &b, n);
}

// lseek's SEEK_DATA and SEEK_HOLE on a regular file, as tmpfs answers
// them (Linux's mapping_seek_hole_data): a page the file has is data, a
// page it lacks a hole, and so is its end.  The next data from off (off
// itself inside a data page), or the next hole (a page's start, or the
// size); -ENXIO at or past the end, or when no data follows.  A file
// whose data is made when read (vn->ops) is data throughout.
int64_t vnode_seek_data(struct vnode *vn, uint64_t off, bool hole)
{
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	uint64_t size = vn->size, pos = off;

	if (off >= size) {
		spin_unlock_irqrestore(&vn->lock, flags);
		return -ENXIO;
	}
	while (pos < size && !vn->ops) {
		uint64_t index = pos >> PAGE_SHIFT;
		bool present = index < vn->npages && vn->pages[index];

		if (present != hole)
			break;
		pos = (index + 1) << PAGE_SHIFT;
	}
	spin_unlock_irqrestore(&vn->lock, flags);
	if (hole)
		return (int64_t)(pos < size ? pos : size);
	return pos < size ? (int64_t)pos : -ENXIO;
}

long vnode_write_io(struct vnode *vn, uint64_t off, bool append, struct iobuf *b,
		    size_t n, uint64_t *end, uint64_t limit)
{
	size_t done = 0;
	uint64_t flags;
	long err = 0;

	if (vn->type == VNODE_DIR)
		return -EISDIR;
	if (vn->type != VNODE_REG)
		return -EINVAL;
	flags = spin_lock_irqsave(&vn->lock);
	if (append)
		off = vn->size;
	// A sealed memfd: no writes at all, or none past its end (shmem's
	// write_begin: EPERM).
	bool sealed = (vn->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) ||
		      ((vn->seals & F_SEAL_GROW) && n && off + n > vn->size);
	spin_unlock_irqrestore(&vn->lock, flags);
	if (sealed)
		return -EPERM;
	if (n && off >= limit) {
		signal_send_thread(current_thread(), SIGXFSZ, NULL);
		return -EFBIG;
	}
	if (n > limit - off)
		n = limit - off;
	if (off >= VNODE_MAX_FILE_SIZE)
		return n ? -EFBIG : 0;
	if (n > VNODE_MAX_FILE_SIZE - off)
		n = VNODE_MAX_FILE_SIZE - off;
	while (done < n) {
		uint64_t pos = off + done;
		size_t pgoff = pos & (PAGE_SIZE - 1);
		size_t chunk = PAGE_SIZE - pgoff;
		void *page;

		if (chunk > n - done)
			chunk = n - done;
		flags = spin_lock_irqsave(&vn->lock);
		err = pin_page(vn, pos >> PAGE_SHIFT, true, &page);
		spin_unlock_irqrestore(&vn->lock, flags);
		if (err < 0)
			break;		// a short write if some bytes went in
		err = iobuf_get(b, done, (char *)page + pgoff, chunk);
		frame_unref(virt_to_phys(page));
		if (err < 0)
			break;
		done += chunk;
		flags = spin_lock_irqsave(&vn->lock);
		if (pos + chunk > vn->size)
			vn->size = pos + chunk;
		vn->mtime_ns = vn->ctime_ns = fs_now_ns();
		spin_unlock_irqrestore(&vn->lock, flags);
	}
	if (end)
		*end = off + done;
	if (done == 0 && err < 0)
		return err;
	return done;
}

long vnode_write(struct vnode *vn, uint64_t off, const void *kbuf, size_t n)
{
	struct iobuf b = iobuf_kernel((void *)kbuf);

	return vnode_write_io(vn, off, false, &b, n, NULL, UINT64_MAX);
}

int vnode_truncate(struct vnode *vn, uint64_t size)
{
	uint64_t flags;

	if (vn->type == VNODE_DIR)
		return -EISDIR;
	if (vn->type != VNODE_REG)
		return -EINVAL;
	if (size > VNODE_MAX_FILE_SIZE)
		return -EFBIG;
	if (vn->ops)
		return 0;	// synthetic files have no data to cut
	// One truncation at a time: each takes its pages out of the mappings
	// before the next decides what to cut.
	mutex_lock(&vn->map_mutex);
	flags = spin_lock_irqsave(&vn->lock);
	if ((size < vn->size && (vn->seals & F_SEAL_SHRINK)) ||
	    (size > vn->size && (vn->seals & F_SEAL_GROW))) {
		spin_unlock_irqrestore(&vn->lock, flags);
		mutex_unlock(&vn->map_mutex);
		return -EPERM;
	}
	bool shrinks = size < vn->size;
	// Whatever lies past the smaller of the two sizes must read as zero
	// once the file is that long: drop whole pages, clear the partial
	// one.  (Even when growing: a failed write may have left bytes
	// beyond the old end.)
	uint64_t edge = size < vn->size ? size : vn->size;
	uint64_t keep = (edge + PAGE_SIZE - 1) >> PAGE_SHIFT;
	size_t tail = edge & (PAGE_SIZE - 1);

	free_pages_from(vn, keep);
	if (tail && keep - 1 < vn->npages && vn->pages[keep - 1])
		memset((char *)vn->pages[keep - 1] + tail, 0, PAGE_SIZE - tail);
	vn->size = size;
	vn->mtime_ns = vn->ctime_ns = fs_now_ns();
	spin_unlock_irqrestore(&vn->lock, flags);
	// Faults past the new end are SIGBUS from here on; the pages already
	// mapped there leave every mapping (their frames stay alive until
	// then: each entry holds a reference).
	if (shrinks)
		vm_unmap_file(vn, keep, UINT64_MAX, true);
	mutex_unlock(&vn->map_mutex);
	return 0;
}

// Zeroes [from, to) inside page 'index', if the page exists (vn->lock).
static void zero_in_page(struct vnode *vn, uint64_t index, size_t from, size_t to)
{
	if (index < vn->npages && vn->pages[index] && from < to)
		memset((char *)vn->pages[index] + from, 0, to - from);
}

int vnode_punch(struct vnode *vn, uint64_t off, uint64_t len)
{
	uint64_t end = off + len, flags, freed = 0;

	if (vn->type != VNODE_REG || vn->ops)
		return -EOPNOTSUPP;
	if (len == 0 || end < off)
		return 0;
	uint64_t first = (off + PAGE_SIZE - 1) >> PAGE_SHIFT, last = end >> PAGE_SHIFT;
	mutex_lock(&vn->map_mutex);
	flags = spin_lock_irqsave(&vn->lock);
	if (vn->seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)) {
		spin_unlock_irqrestore(&vn->lock, flags);
		mutex_unlock(&vn->map_mutex);
		return -EPERM;
	}
	if ((off >> PAGE_SHIFT) == ((end - 1) >> PAGE_SHIFT) && first > last) {
		// Within one page.
		zero_in_page(vn, off >> PAGE_SHIFT, off & (PAGE_SIZE - 1),
			     ((end - 1) & (PAGE_SIZE - 1)) + 1);
	} else {
		zero_in_page(vn, off >> PAGE_SHIFT, off & (PAGE_SIZE - 1),
			     (off & (PAGE_SIZE - 1)) ? PAGE_SIZE : 0);
		zero_in_page(vn, last, 0, end & (PAGE_SIZE - 1));
	}
	for (uint64_t i = first; i < last && i < vn->npages; i++) {
		if (vn->pages[i]) {
			frame_unref(virt_to_phys(vn->pages[i]));
			vn->pages[i] = NULL;
			freed++;
		}
	}
	space_give(freed);
	vn->mtime_ns = vn->ctime_ns = fs_now_ns();
	spin_unlock_irqrestore(&vn->lock, flags);
	if (first < last)
		vm_unmap_file(vn, first, last, false);
	mutex_unlock(&vn->map_mutex);
	return 0;
}

bool vnode_page_resident(struct vnode *vn, uint64_t index)
{
	uint64_t flags = spin_lock_irqsave(&vn->lock);
	bool in = index < vn->npages && vn->pages[index];

	spin_unlock_irqrestore(&vn->lock, flags);
	return in;
}

uint64_t vnode_resident_pages(struct vnode *vn)
{
	uint64_t flags = spin_lock_irqsave(&vn->lock), n = 0;

	for (uint64_t i = 0; i < vn->npages; i++)
		n += vn->pages[i] != NULL;
	spin_unlock_irqrestore(&vn->lock, flags);
	return n;
}

int vnode_get_page(struct vnode *vn, uint64_t index, uint64_t *pa)
{
	uint64_t flags;
	void *page;

	if (vn->type != VNODE_REG || vn->ops)
		return -ENODEV;
	flags = spin_lock_irqsave(&vn->lock);
	if (index >= (vn->size + PAGE_SIZE - 1) >> PAGE_SHIFT) {
		spin_unlock_irqrestore(&vn->lock, flags);
		return -ENXIO;
	}
	int rc = pin_page(vn, index, true, &page);
	spin_unlock_irqrestore(&vn->lock, flags);
	if (rc < 0)
		return rc;
	*pa = virt_to_phys(page);
	return 0;
}

// Counts the holes among pages [first, last] (vn->lock held).
static uint64_t count_holes(struct vnode *vn, uint64_t first, uint64_t last)
{
	uint64_t holes = 0;

	for (uint64_t i = first; i <= last; i++)
		if (i >= vn->npages || !vn->pages[i])
			holes++;
	return holes;
}

int vnode_allocate(struct vnode *vn, uint64_t off, uint64_t len, bool keep_size)
{
	uint64_t flags, first, last, reserved, i;
	int rc = 0;

	if (vn->type != VNODE_REG)
		return vn->type == VNODE_DIR ? -EISDIR : -ENODEV;
	if (vn->ops)
		return -EOPNOTSUPP;	// synthetic files have no pages
	if (len == 0)
		return -EINVAL;
	if (len > VNODE_MAX_FILE_SIZE || off > VNODE_MAX_FILE_SIZE - len)
		return -EFBIG;
	first = off >> PAGE_SHIFT;
	last = (off + len - 1) >> PAGE_SHIFT;
	// All the space or none: a fallocate that fails for want of space
	// changes nothing.
	flags = spin_lock_irqsave(&vn->lock);
	if ((vn->seals & F_SEAL_GROW) && off + len > vn->size && !keep_size) {
		spin_unlock_irqrestore(&vn->lock, flags);
		return -EPERM;
	}
	reserved = count_holes(vn, first, last);
	bool room = space_take(reserved);
	spin_unlock_irqrestore(&vn->lock, flags);
	if (!room)
		return -ENOSPC;
	// One page per lock hold: zeroing pages must not keep interrupts
	// off for long.  A hole a writer fills meanwhile was paid by the
	// writer: its reserved page goes back below.
	for (i = first; i <= last && rc == 0; i++) {
		flags = spin_lock_irqsave(&vn->lock);
		if ((i >= vn->npages || !vn->pages[i]) && reserved) {
			rc = add_page(vn, i, true);
			if (rc == 0)
				reserved--;
		}
		spin_unlock_irqrestore(&vn->lock, flags);
	}
	space_give(reserved);
	if (rc < 0)
		return rc;	// -ENOMEM: the zero pages added so far stay
	flags = spin_lock_irqsave(&vn->lock);
	if (off + len > vn->size && !keep_size)
		vn->size = off + len;
	vn->mtime_ns = vn->ctime_ns = fs_now_ns();
	spin_unlock_irqrestore(&vn->lock, flags);
	return 0;
}

long vnode_readlink(struct vnode *vn, char *buf, size_t size)
{
	size_t len;

	if (vn->type != VNODE_SYMLINK)
		return -EINVAL;
	if (vn->ops && vn->ops->target) {
		uint64_t flags = spin_lock_irqsave(&vfs_tree_lock);
		long rc = vn->ops->target(vn, buf, size);

		spin_unlock_irqrestore(&vfs_tree_lock, flags);
		return rc;
	}
	len = vn->size;
	if (len > size)
		len = size;
	memcpy(buf, vn->target, len);
	return len;
}
