// The few Linux system calls Swift's Glibc module does not export (epoll, accept4, fsetxattr).
// Our own shim over glibc, no third-party code; empty on other systems.
#ifndef MOCK_CPLATFORM_H
#define MOCK_CPLATFORM_H
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/xattr.h>
#include <sys/types.h>

struct sockaddr;
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC, declared here because it needs _GNU_SOURCE.
int mock_accept_nonblocking(int fd, struct sockaddr *address, unsigned int *length);
#endif
#endif
