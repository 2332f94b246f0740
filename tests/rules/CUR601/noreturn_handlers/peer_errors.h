#pragma once
#include <cstddef>

// raises a std::system_error for the caller to handle
[[noreturn]] void throw_copy_error(int err, const char *what);

// ends the process at once
void fail_fast(const char *why) __attribute__((noreturn));
