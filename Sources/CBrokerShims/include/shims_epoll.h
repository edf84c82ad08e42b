#pragma once
/* Linux epoll, which Swift's Glibc module does not export (the libcurl driver's event loop). */
#include <stdint.h>

/* What a descriptor is watched for, and what it is ready for. */
enum broker_epoll_interest {
    BROKER_EPOLL_IN = 1,
    BROKER_EPOLL_OUT = 2,
    /* Only ever reported: an error or hang-up on the descriptor. */
    BROKER_EPOLL_ERROR = 4,
};

/* epoll_create1(EPOLL_CLOEXEC): a new epoll instance, or -1 with errno. */
int broker_epoll_create(void);
/* Watches `fd` for `interest` (BROKER_EPOLL_IN | BROKER_EPOLL_OUT), level-triggered, adding it or changing
   what it was watched for; 0, or -1 with errno. `watched` says which is likely (non-zero: already watched),
   so the usual case takes one system call; a wrong guess costs a second. */
int broker_epoll_watch(int epfd, int fd, int interest, int watched);
/* Stops watching `fd`; 0, or -1 with errno (ENOENT when it was not watched, or closed already). */
int broker_epoll_forget(int epfd, int fd);
/* epoll_wait for up to `capacity` ready descriptors, each stored in `fds` with its readiness (BROKER_EPOLL_*)
   in `ready`; returns how many, 0 on timeout, or -1 with errno (EINTR included). */
int broker_epoll_wait(int epfd, int *fds, int *ready, int capacity, int timeout_ms);
