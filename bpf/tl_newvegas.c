/* TCP NewVegas (000 section 2.4): thresholds +1 when the RTT grew while the window did
 * not, -1 towards alpha0 otherwise, alpha0/beta0 again after a loss.
 * Simulator: crates/tcplab/src/cc/newvegas.rs. */
#define TL_NAME tl_newvegas
#define TL_RULE TL_RULE_THRESHOLD
#define TL_RTT_MIN 0
#define TL_INCREASE 1
#define TL_SCALE_NUM 0
#define TL_SCALE_DEN 1
#include "tl_vegas_family.h"
