/* TCP Vegas-A (000 section 2.5): thresholds follow the trend of the actual throughput.
 * Simulator: crates/tcplab/src/cc/vegas_a.rs. */
#define TL_NAME tl_vegas_a
#define TL_RULE TL_RULE_VEGAS_A
#define TL_RTT_MIN 0
#include "tl_vegas_family.h"
