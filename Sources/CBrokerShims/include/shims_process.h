#pragma once
/* Process limits Swift's Glibc module makes awkward to reach (RLIMIT_NOFILE is an enum of a private type). */

/* Raises the soft open-files limit (RLIMIT_NOFILE) to the hard limit. Returns the soft limit now in force,
   or -1 when it cannot be read (errno says why); a failed raise leaves the old limit, which is returned. */
long long broker_raise_open_files_limit(void);
