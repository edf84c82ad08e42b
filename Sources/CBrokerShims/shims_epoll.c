#include "shims_epoll.h"

#include <errno.h>
#include <sys/epoll.h>

int broker_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int broker_epoll_watch(int epfd, int fd, int interest, int watched) {
    struct epoll_event event = {0};
    event.events = ((interest & BROKER_EPOLL_IN) ? EPOLLIN : 0) | ((interest & BROKER_EPOLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = fd;
    if (watched) {
        if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event) == 0) return 0;
        if (errno != ENOENT) return -1;
        return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
    }
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event) == 0) return 0;
    if (errno != EEXIST) return -1;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &event);
}

int broker_epoll_forget(int epfd, int fd) {
    struct epoll_event unused = {0};
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &unused);
}

int broker_epoll_wait(int epfd, int *fds, int *ready, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int index = 0; index < count; index++) {
        uint32_t flags = events[index].events;
        fds[index] = events[index].data.fd;
        ready[index] = ((flags & EPOLLIN) ? BROKER_EPOLL_IN : 0) | ((flags & EPOLLOUT) ? BROKER_EPOLL_OUT : 0)
            | ((flags & (EPOLLERR | EPOLLHUP)) ? BROKER_EPOLL_ERROR : 0);
    }
    return count;
}
