#ifndef C_BROKER_SHIMS_H
#define C_BROKER_SHIMS_H
/* Thin C wrappers for what Swift cannot call: variadic functions, function-like macros, and system calls
   Swift's Glibc module leaves out (epoll). One header per library, so each driver owns its own part. */
#include "shims_curl.h"
#include "shims_epoll.h"
#include "shims_mhd.h"
#include "shims_pq.h"
#include "shims_process.h"
#include "shims_sqlite.h"
#endif
