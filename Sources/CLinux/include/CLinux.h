// The Linux calls Swift's Glibc module leaves out: epoll, eventfd, and
// accept4 (a GNU extension). BlogSockets wraps them; nothing else uses this.
#ifndef BLOGD_CLINUX_H
#define BLOGD_CLINUX_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

/// accept4(2): the new socket comes with `flags` (SOCK_NONBLOCK,
/// SOCK_CLOEXEC) already set, saving two fcntl calls per connection.
int clinux_accept4(int fd, struct sockaddr *address, socklen_t *length, int flags);

#endif
