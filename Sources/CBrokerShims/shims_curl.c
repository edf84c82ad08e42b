#include "shims_curl.h"
