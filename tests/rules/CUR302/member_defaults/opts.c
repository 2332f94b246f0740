/* The application's options: the control buffer's size comes from its caller. */
#include "sock.h"

void sock_opts_init(struct sock_opts *opts, uint32_t ctrl_bytes)
{
    opts->ctrl_bytes = ctrl_bytes;
}
