#include <cstdio>
#include <cstdlib>
#include <system_error>
#include "peer_errors.h"

void throw_copy_error(int err, const char *what)
{
    throw std::system_error(err, std::generic_category(), what);
}

void fail_fast(const char *why)
{
    std::fprintf(stderr, "fatal: %s\n", why);
    std::quick_exit(3);
}
