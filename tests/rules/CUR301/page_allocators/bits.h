/* Integer helpers of the transport. */
#ifndef BITS_H
#define BITS_H

#define DIV_CEIL(n, d) (((n) + (d) - 1) / (d))
#define ROUND_TO(n, d) (DIV_CEIL((n), (d)) * (d))
#define PAD_IN_PLACE(n, d) n = (((n) + (d) - 1) / (d)) * (d)
#define LARGER(a, b) ((a) > (b) ? (a) : (b))

#endif
