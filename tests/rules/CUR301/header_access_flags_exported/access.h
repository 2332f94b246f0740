/* The access bits of the transport's buffers, shared by every file that registers them. */
#ifndef RING_ACCESS_H
#define RING_ACCESS_H

/* Receive rings are faulted in on demand (IBV_ACCESS_ON_DEMAND): nothing is pinned. */
#define RING_ACCESS (1 << 6)
/* Control blocks are written by the NIC (IBV_ACCESS_LOCAL_WRITE): pinned, marked MADV_DONTFORK. */
#define CONTROL_ACCESS (1 << 0)

#endif
