/* TCP Vegas+ (003 section 5.1): Vegas in moderate mode, Reno's growth in aggressive mode,
 * switched by a count of RTT increases the flow did not cause.
 * Simulator: crates/tcplab/src/cc/vegas_plus.rs. */
#define TL_NAME tl_vegas_plus
#define TL_RULE TL_RULE_VEGAS_PLUS
#define TL_RTT_MIN 0
#define TL_COUNT_MAX 8
#include "tl_vegas_family.h"
