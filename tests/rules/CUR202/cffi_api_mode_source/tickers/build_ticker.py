"""cffi API-mode build of `tickers._ticker`: the C below is compiled into the extension."""

from cffi import FFI

ffibuilder = FFI()
ffibuilder.cdef("""
    typedef void (*tick_fn)(double now);
    void ticker_every(double seconds, tick_fn fn);
    void ticker_fire_now(tick_fn fn);
    void ticker_drain(void);
""")

SOURCE = r"""
#include <time.h>

typedef void (*tick_fn)(double now);

static tick_fn pending[16];
static int count;

void ticker_every(double seconds, tick_fn fn)
{
    if (count < 16)
        pending[count++] = fn;
    (void)seconds;
}

void ticker_fire_now(tick_fn fn)
{
    fn((double)time(NULL));
}

void ticker_drain(void)
{
    for (int i = 0; i < count; i++)
        pending[i]((double)time(NULL));
}
"""

ffibuilder.set_source("tickers._ticker", SOURCE)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
