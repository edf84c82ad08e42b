#pragma once
/* Process limits Swift's Glibc module makes awkward to reach (RLIMIT_NOFILE is an enum of a private type). */

/* Raises the soft open-files limit (RLIMIT_NOFILE) to the hard limit, or to `wanted` when that is higher and
   the process may raise its hard limit (root, CAP_SYS_RESOURCE). Returns the soft limit now in force, or -1
   when it cannot be read (errno says why); a refused raise leaves what could be had. */
long long broker_raise_open_files_limit(long long wanted);
