//! End-of-run conservation: every packet a flow sent was delivered, dropped with a
//! cause, or is still in the network (queued, or on its way to the far end of a link:
//! a packet's arrival is scheduled when its transmission starts).

use super::{Event, RunError, World};
use crate::net::{Packet, PacketKind};

/// The packet balance of one flow and packet kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConservationReport {
    pub sent: u64,
    pub arrived: u64,
    pub dropped: u64,
    pub in_network: u64,
}

impl ConservationReport {
    pub fn holds(&self) -> bool {
        self.sent == self.arrived + self.dropped + self.in_network
    }
}

impl World {
    /// Packets of each flow (TCP, then UDP) still in the network: (data, acks).
    fn in_network(&self) -> Vec<(u64, u64)> {
        let mut counts = vec![(0u64, 0u64); self.flows.len() + self.udp_flows.len()];
        let mut count = |p: &Packet| {
            let c = &mut counts[p.flow as usize];
            if p.kind == PacketKind::Ack {
                c.1 += 1;
            } else {
                c.0 += 1;
            }
        };
        for l in &self.links {
            l.queue.for_each(&mut count);
            l.backlog.held.iter().for_each(&mut count);
        }
        self.wifi.for_each_packet(&mut count);
        for ev in self.sched.pending() {
            if let Event::Arrive(p) = ev {
                count(p);
            }
        }
        counts
    }

    /// Per flow: (data report, ack report).
    pub fn conservation(&self) -> Vec<(ConservationReport, ConservationReport)> {
        self.in_network()
            .into_iter()
            .zip(&self.flows)
            .map(|((data_net, ack_net), f)| {
                (
                    ConservationReport {
                        sent: f.data_sent,
                        arrived: f.data_arrived,
                        dropped: f.data_drops.total(),
                        in_network: data_net,
                    },
                    ConservationReport {
                        sent: f.acks_sent,
                        arrived: f.acks_arrived,
                        dropped: f.ack_drops.total(),
                        in_network: ack_net,
                    },
                )
            })
            .collect()
    }

    pub(super) fn check_conservation(&self) -> Result<(), RunError> {
        let in_network = self.in_network();
        for (f, r) in self
            .udp_flows
            .iter()
            .zip(self.udp_conservation(&in_network))
        {
            if !r.holds() {
                return Err(RunError::Conservation(format!(
                    "UDP flow {:?}: sent {} != arrived {} + dropped {} + in network {}",
                    f.name, r.sent, r.arrived, r.dropped, r.in_network
                )));
            }
        }
        for (f, (data, acks)) in self.flows.iter().zip(self.conservation()) {
            for (what, r) in [("data", &data), ("ack", &acks)] {
                if !r.holds() {
                    return Err(RunError::Conservation(format!(
                        "flow {:?} {what} packets: sent {} != arrived {} + dropped {} + in network {}",
                        f.name, r.sent, r.arrived, r.dropped, r.in_network
                    )));
                }
            }
            let s = &f.sender.stats;
            if s.segments_sent != f.data_sent || f.receiver.stats.packets_received != f.data_arrived
            {
                return Err(RunError::Conservation(format!(
                    "flow {:?}: endpoint counters disagree with the network's (sender {} vs {}, receiver {} vs {})",
                    f.name, s.segments_sent, f.data_sent, f.receiver.stats.packets_received, f.data_arrived
                )));
            }
        }
        Ok(())
    }
}
