#ifndef ERRORS_H
#define ERRORS_H
#include <stdio.h>
#include <stdlib.h>

#define FATAL_ERROR(msg) do { fprintf(stderr, "fatal: %s\n", msg); abort(); } while (0)
#define LOG_ERROR(msg) fprintf(stderr, "error: %s\n", msg)

void die(const char *what, int rc);
void warn_only(const char *what, int rc);
void die_on_cma(int rc);
void die_on_timeout(int rc);
void quit(int status);
#endif
