/* The access bits of each kind of buffer, chosen once for the whole transport. */
#ifndef STAGING_ACCESS_H
#define STAGING_ACCESS_H

/* Scratch buffers are faulted in on demand (IBV_ACCESS_ON_DEMAND): nothing is pinned. */
#define SCRATCH_ACCESS (1 << 6)
/* Headers are written by the NIC (IBV_ACCESS_LOCAL_WRITE): pinned, marked MADV_DONTFORK. */
#define HEADER_ACCESS (1 << 0)

#endif
