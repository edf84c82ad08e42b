#include "shims_sqlite.h"
