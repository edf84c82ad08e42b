#include "shims_process.h"

#include <sys/resource.h>

long long broker_raise_open_files_limit(long long wanted) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (limit.rlim_max != RLIM_INFINITY && wanted > 0 && (rlim_t)wanted > limit.rlim_max) {
        struct rlimit higher = {(rlim_t)wanted, (rlim_t)wanted};
        if (setrlimit(RLIMIT_NOFILE, &higher) == 0) limit = higher;
    }
    if (limit.rlim_cur != limit.rlim_max) {
        struct rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
    }
    return limit.rlim_cur == RLIM_INFINITY ? (long long)1 << 40 : (long long)limit.rlim_cur;
}
