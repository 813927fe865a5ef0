/* TCP Vegas, paper variant where the kernel's hooks allow (000 section 2.2; see
 * tl_vegas_family.h for what differs). Simulator: crates/tcplab/src/cc/vegas.rs. */
#define TL_NAME tl_vegas
#define TL_RULE TL_RULE_VEGAS
#define TL_RTT_MIN 0
#include "tl_vegas_family.h"
