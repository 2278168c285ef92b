// The Linux calls Swift's Glibc module leaves out: epoll, eventfd, accept4,
// renameat2 and posix_spawn's closefrom (GNU extensions) and mallopt.
// BlogSockets wraps the socket ones, PublicFolder swaps pages in with
// renameat2, blogd sets the allocator's mmap threshold at start, the
// tests' process spawner closes what children must not inherit.
#ifndef BLOGD_CLINUX_H
#define BLOGD_CLINUX_H

#include <spawn.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4(2): the new socket comes with `flags` (SOCK_NONBLOCK,
/// SOCK_CLOEXEC) already set, saving two fcntl calls per connection.
int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` come
/// from mmap and go back to the system when freed. Setting it also stops
/// glibc from raising the threshold after the first large free, which is
/// how a 16 MiB scrypt buffer would otherwise stay resident for good.
int clinux_set_mmap_threshold(int bytes);

/// malloc_trim(0): gives the memory malloc keeps free back to the system
/// (tests that measure the resident size use it to leave out what other
/// code freed).
int clinux_malloc_trim(void);

/// setpriority for the calling thread only (Linux keeps a nice value per
/// thread): `nice` from 0 to 19, higher yields the CPU to other threads.
int clinux_set_thread_nice(int nice);

/// renameat2(from, to, RENAME_EXCHANGE): swaps two existing names
/// atomically. Returns 0, or -1 with errno (ENOENT when `to` does not
/// exist, EINVAL where the file system cannot exchange).
int clinux_rename_exchange(const char *from, const char *to);

/// open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode): a new file with
/// no name in `folder`, to be linked in once written. Returns the
/// descriptor, or -1 with errno (EOPNOTSUPP where the file system cannot).
int clinux_open_tmpfile(const char *folder, unsigned int mode);

/// posix_spawn_file_actions_addclosefrom_np: the child closes every
/// descriptor from `from` up before it runs, whether close-on-exec or not.
int clinux_spawn_close_from(posix_spawn_file_actions_t *actions, int from);

/// An open file description lock (F_OFD_SETLK, a GNU extension) on the
/// one byte at `offset`: `exclusive` 1 to take it, 0 to let it go.
/// Returns 0, or -1 with errno (EAGAIN or EACCES: another holder). Such a
/// lock belongs to the open file description, not the process: threads
/// that each open the file exclude each other as processes do.
int clinux_ofd_lock(int fd, long long offset, int exclusive);

/// Marks a folder as the top of a hierarchy (ext4's FS_TOPDIR_FL): its
/// sub-folders are spread over the block groups. 0, or -1 with errno.
int clinux_mark_topdir(const char *path);

#endif
