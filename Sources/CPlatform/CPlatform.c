#ifdef __linux__
#define _GNU_SOURCE
#include <sys/socket.h>
#include "CPlatform.h"

int mock_accept_nonblocking(int fd, struct sockaddr *address, unsigned int *length) {
    return accept4(fd, address, (socklen_t *)length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}
#endif
