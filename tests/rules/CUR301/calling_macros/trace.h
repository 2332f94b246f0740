/* Tracing helpers: each timed call goes through a macro that names the function it calls. */
#ifndef TRACE_H
#define TRACE_H

#include <stdint.h>

uint64_t trace_clock(void);
void trace_record(const char *what, uint64_t started);
void trace_note(const char *what, int count);

/* the innermost one calls the function with the arguments it is handed */
#define TRACE_CTX_TIMED(_ctx, _what, _fn, ...) \
    ({ \
        uint64_t _started = trace_clock(); \
        __typeof__(_fn(__VA_ARGS__)) _result = _fn(__VA_ARGS__); \
        trace_record((_what), _started); \
        (void)(_ctx); \
        _result; \
    })

#define TRACE_NAMED_CALL(_what, _fn, ...) \
    TRACE_CTX_TIMED(0, _what, _fn, ##__VA_ARGS__)

#define TRACE_CALL(_fn, ...) \
    TRACE_NAMED_CALL(#_fn, _fn, ##__VA_ARGS__)

/* only logs the name of the function the caller is about to call: calls nothing */
#define TRACE_ANNOUNCE(_fn, ...) \
    trace_note(#_fn, (int)sizeof((char[]){__VA_ARGS__}))

#endif
