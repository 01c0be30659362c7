// A stand-in for the part of macOS's C library that mock-backend calls, so that the Darwin branches
// compile on Linux (scripts/check-darwin.sh). Every type, function and constant is declared as the
// macOS SDK declares it (xnu bsd/sys/*.h, bsd/netinet/in.h, bsd/net/if.h; Libc include/*.h): the
// 64-bit sizes, BSD field orders and the `sa_len` bytes, Darwin's constant values. Nothing here is
// Linux's: a call only Glibc has (accept4, epoll_wait, MSG_NOSIGNAL...) must fail to compile.
// Add a declaration only after checking it against Apple's header it comes from.
#ifndef MOCK_DARWIN_STANDIN_H
#define MOCK_DARWIN_STANDIN_H

// sys/_types.h, i386/_types.h, arm/_types.h
typedef signed char __int8_t;
typedef unsigned char __uint8_t;
typedef short __int16_t;
typedef unsigned short __uint16_t;
typedef int __int32_t;
typedef unsigned int __uint32_t;
typedef long long __int64_t;
typedef unsigned long long __uint64_t;
typedef long __darwin_time_t;
typedef __int32_t __darwin_suseconds_t;
typedef __uint32_t __darwin_socklen_t;
typedef __SIZE_TYPE__ size_t;
typedef long ssize_t;
typedef __uint32_t u_int32_t;

// sys/socket.h
typedef __darwin_socklen_t socklen_t;
typedef __uint8_t sa_family_t;
struct sockaddr {
    __uint8_t sa_len;
    sa_family_t sa_family;
    char sa_data[14];
};
#define _SS_MAXSIZE 128
#define _SS_ALIGNSIZE (sizeof(__int64_t))
#define _SS_PAD1SIZE (_SS_ALIGNSIZE - sizeof(__uint8_t) - sizeof(sa_family_t))
#define _SS_PAD2SIZE (_SS_MAXSIZE - sizeof(__uint8_t) - sizeof(sa_family_t) - _SS_PAD1SIZE - _SS_ALIGNSIZE)
struct sockaddr_storage {
    __uint8_t ss_len;
    sa_family_t ss_family;
    char __ss_pad1[_SS_PAD1SIZE];
    __int64_t __ss_align;
    char __ss_pad2[_SS_PAD2SIZE];
};
#define SOCK_STREAM 1
#define SOL_SOCKET 0xffff
#define SO_REUSEADDR 0x0004
#define SO_SNDTIMEO 0x1005
#define SO_RCVTIMEO 0x1006
#define SO_NOSIGPIPE 0x1022
#define SO_LINGER 0x0080
struct linger {
    int l_onoff;
    int l_linger;
};
#define AF_UNSPEC 0
#define AF_INET 2
#define AF_INET6 30
#define SOMAXCONN 128
#define SHUT_WR 1
int socket(int, int, int);
int setsockopt(int, int, int, const void *, socklen_t);
int bind(int, const struct sockaddr *, socklen_t);
int listen(int, int);
int accept(int, struct sockaddr *__restrict, socklen_t *__restrict);
int connect(int, const struct sockaddr *, socklen_t);
int getsockname(int, struct sockaddr *__restrict, socklen_t *__restrict);
ssize_t recv(int, void *, size_t, int);
ssize_t send(int, const void *, size_t, int);
int shutdown(int, int);

// netinet/in.h, netinet6/in6.h, netinet/tcp.h
typedef __uint16_t in_port_t;
typedef __uint32_t in_addr_t;
struct in_addr {
    in_addr_t s_addr;
};
struct sockaddr_in {
    __uint8_t sin_len;
    sa_family_t sin_family;
    in_port_t sin_port;
    struct in_addr sin_addr;
    char sin_zero[8];
};
struct in6_addr {
    union {
        __uint8_t __u6_addr8[16];
        __uint16_t __u6_addr16[8];
        __uint32_t __u6_addr32[4];
    } __u6_addr;
};
struct sockaddr_in6 {
    __uint8_t sin6_len;
    sa_family_t sin6_family;
    in_port_t sin6_port;
    __uint32_t sin6_flowinfo;
    struct in6_addr sin6_addr;
    __uint32_t sin6_scope_id;
};
extern const struct in6_addr in6addr_any;
extern const struct in6_addr in6addr_loopback;
#define INADDR_ANY (u_int32_t)0x00000000
#define INET6_ADDRSTRLEN 46
#define IPPROTO_TCP 6
#define IPPROTO_IPV6 41
#define IPV6_V6ONLY 27
#define TCP_NODELAY 0x01

// arpa/inet.h, netdb.h, ifaddrs.h
const char *inet_ntop(int, const void *, char *, socklen_t);
struct addrinfo {
    int ai_flags;
    int ai_family;
    int ai_socktype;
    int ai_protocol;
    socklen_t ai_addrlen;
    char *ai_canonname;
    struct sockaddr *ai_addr;
    struct addrinfo *ai_next;
};
#define AI_PASSIVE 0x00000001
int getaddrinfo(const char *__restrict, const char *__restrict, const struct addrinfo *__restrict,
                struct addrinfo **__restrict);
void freeaddrinfo(struct addrinfo *);
struct ifaddrs {
    struct ifaddrs *ifa_next;
    char *ifa_name;
    unsigned int ifa_flags;
    struct sockaddr *ifa_addr;
    struct sockaddr *ifa_netmask;
    struct sockaddr *ifa_dstaddr;
    void *ifa_data;
};
int getifaddrs(struct ifaddrs **);
void freeifaddrs(struct ifaddrs *);

// sys/time.h, sys/resource.h, sys/syslimits.h
struct timeval {
    __darwin_time_t tv_sec;
    __darwin_suseconds_t tv_usec;
};
typedef __darwin_suseconds_t suseconds_t;
typedef __uint64_t rlim_t;
struct rlimit {
    rlim_t rlim_cur;
    rlim_t rlim_max;
};
#define RLIMIT_NOFILE 8
#define OPEN_MAX 10240
int getrlimit(int, struct rlimit *);
int setrlimit(int, const struct rlimit *);

// poll.h
struct pollfd {
    int fd;
    short events;
    short revents;
};
typedef unsigned int nfds_t;
#define POLLIN 0x0001
#define POLLOUT 0x0004
#define POLLERR 0x0008
#define POLLHUP 0x0010
#define POLLNVAL 0x0020
int poll(struct pollfd *, nfds_t, int);

// sys/fcntl.h (fcntl and open are variadic: the Swift overlay in Darwin.swift wraps them)
#define O_RDONLY 0x0000
#define O_NONBLOCK 0x00000004
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_FULLFSYNC 51
#define FD_CLOEXEC 1

// unistd.h, stdlib.h, string.h
int close(int);
int pipe(int[2]);
ssize_t read(int, void *, size_t);
ssize_t write(int, const void *, size_t);
int fsync(int);
char *getenv(const char *);
char *strerror(int);

// sys/_types/_timespec.h, sys/stat.h (the 64-bit-inode layout, _DARWIN_FEATURE_64_BIT_INODE)
struct timespec {
    __darwin_time_t tv_sec;
    long tv_nsec;
};
struct stat {
    __int32_t st_dev;
    __uint16_t st_mode;
    __uint16_t st_nlink;
    __uint64_t st_ino;
    __uint32_t st_uid;
    __uint32_t st_gid;
    __int32_t st_rdev;
    struct timespec st_atimespec;
    struct timespec st_mtimespec;
    struct timespec st_ctimespec;
    struct timespec st_birthtimespec;
    __int64_t st_size;
    __int64_t st_blocks;
    __int32_t st_blksize;
    __uint32_t st_flags;
    __uint32_t st_gen;
    __int32_t st_lspare;
    __int64_t st_qspare[2];
};
int stat(const char *, struct stat *);
int fstat(int, struct stat *);

// sys/errno.h (errno itself is `*__error()`; the overlay makes it a variable)
extern int *__error(void);
#define EINTR 4
#define ENOMEM 12
#define EACCES 13
#define ENFILE 23
#define EMFILE 24
#define EAGAIN 35
#define EWOULDBLOCK EAGAIN
#define EADDRINUSE 48
#define EADDRNOTAVAIL 49
#define ECONNABORTED 53
#define ECONNRESET 54
#define ENOBUFS 55

// sys/signal.h (SIG_IGN is a cast the importer skips: the overlay defines it)
typedef void (*sig_t)(int);
#define SIGINT 2
#define SIGPIPE 13
#define SIGTERM 15
void (*signal(int, void (*)(int)))(int);

#endif
