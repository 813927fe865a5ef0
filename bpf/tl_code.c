/* CODE TCP (000 section 3.2): NewVegas whose thresholds rise by 2 and are scaled by
 * epsilon = 0.68 (eq. (19)) on a duplicate-ACK loss; the round's minimum RTT (000
 * section 4.5). Simulator: crates/tcplab/src/cc/code.rs. */
#define TL_NAME tl_code
#define TL_RULE TL_RULE_THRESHOLD
#define TL_RTT_MIN 1
#define TL_INCREASE 2
#define TL_SCALE_NUM 17
#define TL_SCALE_DEN 25
#include "tl_vegas_family.h"
