/* Trace sinks: a struct of their own whose field is also named `prepare`, filled by a
   positional initializer (not read by the graph). Its functions take four arguments, the
   memory operations' three: a call through it passing four is never a backend's `prepare`. */
#include <stdio.h>
#include <stdlib.h>

struct trace_sink {
    const char *name;
    void (*prepare)(const char *tag, void *buf, size_t len, int level);
};

static void print_prepare(const char *tag, void *buf, size_t len, int level)
{
    fprintf(stderr, "%d %s %p %zu\n", level, tag, buf, len);
}

static struct trace_sink sinks[] = {
    { "stderr", print_prepare },
};

void trace_header(int level)
{
    long *hdr = malloc(2 * sizeof(long));
    if (hdr == NULL)
        return;
    sinks[0].prepare("hdr", hdr, 2 * sizeof(long), level); // ok: CUR301, CUR302 (four arguments)
    free(hdr);
}
