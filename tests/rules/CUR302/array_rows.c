/* CUR302: a row of a multi-dimensional stack array is an address inside that array (each row
 * shares its pages with the others and with the thread's stack); an element read from an array
 * of pointers is a value whose memory the caller decides. */
#include <stdint.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

#define LANES 4
#define LANE_BYTES 4096

struct ibv_mr *lane_mrs[LANES];

int register_lanes(struct ibv_pd *pd)
{
    int access = IBV_ACCESS_LOCAL_WRITE;
    uint8_t lanes[LANES][LANE_BYTES];
    uint8_t *staged[LANES];
    uint8_t (*window)[LANE_BYTES] = malloc(sizeof(uint8_t[LANES][LANE_BYTES]));

    for (int i = 0; i < LANES; i++) {
        lane_mrs[i] = ibv_reg_mr(pd, lanes[i], LANE_BYTES, access);  // warning: CUR302 "stack array `lanes`"
        staged[i] = malloc(LANE_BYTES);
    }
    if (!ibv_reg_mr(pd, &lanes[1][0], LANE_BYTES, access))  // warning: CUR302
        return -1;
    for (int i = 0; i < LANES; i++)
        ibv_reg_mr(pd, staged[i], LANE_BYTES, access);  // ok: CUR302 (a pointer read from the array)
    return ibv_reg_mr(pd, window[2], LANE_BYTES, access) != NULL;  // ok: CUR302 (a pointer to rows)
}
