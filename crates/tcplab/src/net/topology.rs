//! Expands a topology (preset or custom) into named nodes and one-way links.

use crate::config::{
    ChainSpec, CustomSpec, DirectionSpec, DumbbellSpec, JitterSpec, LinkSpec, LossSpec, QueueSpec,
    Rate, Seconds, StarSpec, Topology, WlanSpec,
};
use std::collections::HashMap;

/// One direction of a link, fully resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectedLink {
    pub name: String,
    pub from: usize,
    pub to: usize,
    pub rate: Rate,
    pub delay: Seconds,
    pub buffer: u32,
    pub buffer_bytes: Option<u64>,
    pub queue: QueueSpec,
    pub loss: Option<LossSpec>,
    pub jitter: Option<JitterSpec>,
    /// Token-bucket slack of the transmitter (0: none), and the document path that set it
    /// (a reverse direction inherits the forward one's).
    pub burst: Seconds,
    pub burst_field: String,
    /// Whether this link's queue goes into the time series.
    pub monitor: bool,
    /// Document path of the spec this direction came from (for error messages).
    pub field: String,
}

/// A hop over a wireless BSS: from one interface to another of the same BSS.
#[derive(Clone, Debug, PartialEq)]
pub struct WirelessEdge {
    pub name: String,
    pub from: usize,
    pub to: usize,
    /// Index into [`Graph::wlans`].
    pub bss: usize,
    /// Interfaces within the BSS (0 is the access point).
    pub tx: u16,
    pub rx: u16,
}

/// The nodes and interface queues of one BSS.
#[derive(Clone, Debug, PartialEq)]
pub struct WlanLayout {
    pub spec: WlanSpec,
    /// Node of each interface: the AP first, then the stations.
    pub nodes: Vec<usize>,
    /// Each interface's queue, described as a directed link so that it is built by the
    /// same function as a link's queue.
    pub queues: Vec<DirectedLink>,
}

/// Named nodes and directed hops. Hop ids number the wired links first, then the
/// wireless edges: `0..links.len()` and `links.len()..edge_count()`.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub nodes: Vec<String>,
    pub links: Vec<DirectedLink>,
    pub wireless: Vec<WirelessEdge>,
    pub wlans: Vec<WlanLayout>,
    /// Node index by name (the first node of that name), so that looking up the ends of
    /// thousands of flows does not scan thousands of names each time.
    index: HashMap<String, usize>,
}

impl Graph {
    /// Number of hops, wired and wireless.
    pub fn edge_count(&self) -> usize {
        self.links.len() + self.wireless.len()
    }

    /// The (from, to) nodes of hop `e`.
    pub fn edge_ends(&self, e: usize) -> (usize, usize) {
        match self.links.get(e) {
            Some(l) => (l.from, l.to),
            None => {
                let w = &self.wireless[e - self.links.len()];
                (w.from, w.to)
            }
        }
    }

    pub fn node(&self, name: &str) -> Option<usize> {
        match self.index.get(name) {
            Some(&i) => Some(i),
            // Nodes pushed onto `nodes` directly are not indexed.
            None if self.index.len() < self.nodes.len() => {
                self.nodes.iter().position(|n| n == name)
            }
            None => None,
        }
    }

    fn add_node(&mut self, name: String) -> usize {
        let i = self.nodes.len();
        self.index.entry(name.clone()).or_insert(i);
        self.nodes.push(name);
        i
    }

    /// Adds both directions of `spec` between `a` and `b`.
    fn add_duplex(&mut self, a: usize, b: usize, spec: &LinkSpec, monitor: bool, field: &str) {
        let fwd = DirectedLink {
            name: format!("{}->{}", self.nodes[a], self.nodes[b]),
            from: a,
            to: b,
            rate: spec.rate,
            delay: spec.delay,
            buffer: spec.buffer,
            buffer_bytes: spec.buffer_bytes,
            queue: spec.queue.clone(),
            loss: spec.loss.clone(),
            jitter: spec.jitter.clone(),
            burst: spec.burst.unwrap_or(Seconds(0.0)),
            burst_field: format!("{field}.burst"),
            monitor,
            field: field.to_string(),
        };
        let r = spec.reverse.clone().unwrap_or_default();
        let rev = reverse_of(&fwd, &r, &self.nodes, field);
        self.links.push(fwd);
        self.links.push(rev);
    }
}

fn reverse_of(
    fwd: &DirectedLink,
    r: &DirectionSpec,
    nodes: &[String],
    field: &str,
) -> DirectedLink {
    DirectedLink {
        name: format!("{}->{}", nodes[fwd.to], nodes[fwd.from]),
        from: fwd.to,
        to: fwd.from,
        rate: r.rate.unwrap_or(fwd.rate),
        delay: r.delay.unwrap_or(fwd.delay),
        buffer: r.buffer.unwrap_or(fwd.buffer),
        buffer_bytes: r.buffer_bytes.or(fwd.buffer_bytes),
        queue: r.queue.clone().unwrap_or_else(|| fwd.queue.clone()),
        loss: r.loss.clone(),
        jitter: r.jitter.clone(),
        burst: r.burst.unwrap_or(fwd.burst),
        burst_field: match r.burst {
            Some(_) => format!("{field}.reverse.burst"),
            None => fwd.burst_field.clone(),
        },
        monitor: fwd.monitor,
        field: format!("{field}.reverse"),
    }
}

/// Builds the graph of a topology. Names: senders `s<i>`, routers `r<i>`, receivers `d<i>`.
pub fn expand(topology: &Topology) -> Graph {
    let mut g = Graph::default();
    match topology {
        Topology::Dumbbell(DumbbellSpec {
            pairs,
            bottleneck,
            access,
            pair_access,
        }) => {
            chain(
                &mut g,
                1,
                *pairs,
                bottleneck,
                access,
                pair_access,
                "topology.bottleneck",
            );
        }
        Topology::Chain(ChainSpec {
            hops,
            pairs,
            hop,
            access,
            pair_access,
        }) => {
            chain(
                &mut g,
                *hops,
                *pairs,
                hop,
                access,
                pair_access,
                "topology.hop",
            );
        }
        Topology::Star(StarSpec {
            senders,
            bottleneck,
            access,
        }) => {
            let r = g.add_node("r0".into());
            let d = g.add_node("d0".into());
            g.add_duplex(r, d, bottleneck, true, "topology.bottleneck");
            for i in 0..*senders {
                let s = g.add_node(format!("s{i}"));
                g.add_duplex(s, r, access, false, "topology.access");
            }
        }
        Topology::Wlan(spec) => wlan(&mut g, spec),
        Topology::Custom(CustomSpec { nodes, links }) => {
            for n in nodes {
                g.add_node(n.clone());
            }
            for (i, l) in links.iter().enumerate() {
                if let (Some(a), Some(b)) = (g.node(&l.between[0]), g.node(&l.between[1])) {
                    g.add_duplex(a, b, &l.link, l.monitor, &format!("topology.links[{i}]"));
                }
            }
        }
    }
    g
}

fn chain(
    g: &mut Graph,
    hops: u32,
    pairs: u32,
    hop: &LinkSpec,
    access: &LinkSpec,
    overrides: &[AccessOverrideRef],
    hop_field: &str,
) {
    let routers: Vec<usize> = (0..=hops).map(|i| g.add_node(format!("r{i}"))).collect();
    for w in routers.windows(2) {
        g.add_duplex(w[0], w[1], hop, true, hop_field);
    }
    let (first, last) = (routers[0], routers[hops as usize]);
    for i in 0..pairs {
        let o = overrides.get(i as usize);
        let mut sender_access = access.clone();
        let mut receiver_access = access.clone();
        if let Some(o) = o {
            if let Some(r) = o.rate {
                sender_access.rate = r;
            }
            if let Some(d) = o.delay {
                sender_access.delay = d;
            }
            if let Some(d) = o.receiver_delay {
                receiver_access.delay = d;
            }
            if let Some(j) = &o.jitter {
                sender_access.jitter = Some(j.clone());
            }
        }
        let s = g.add_node(format!("s{i}"));
        g.add_duplex(s, first, &sender_access, false, "topology.access");
        let d = g.add_node(format!("d{i}"));
        g.add_duplex(last, d, &receiver_access, false, "topology.access");
    }
}

/// `w_i ~ ap -- h0`: the stations and the AP share one BSS; the AP and `h0` are joined by
/// the wired link.
fn wlan(g: &mut Graph, spec: &WlanSpec) {
    let stations: Vec<usize> = (0..spec.stations)
        .map(|i| g.add_node(format!("w{i}")))
        .collect();
    let ap = g.add_node("ap".into());
    let h0 = g.add_node("h0".into());
    g.add_duplex(h0, ap, &spec.wired, true, "topology.wired");
    let bss = g.wlans.len();
    let queue =
        |node: usize, name: &str, buffer: u32, queue: QueueSpec, field: &str| DirectedLink {
            name: format!("{name}:wlan"),
            from: node,
            to: node,
            rate: spec.mac.rate,
            delay: Seconds(0.0),
            buffer,
            buffer_bytes: None,
            queue,
            loss: None,
            jitter: None,
            burst: Seconds(0.0),
            burst_field: format!("{field}.burst"),
            monitor: false,
            field: field.to_string(),
        };
    let mut queues = vec![queue(
        ap,
        "ap",
        spec.ap_buffer,
        spec.ap_queue.clone(),
        "topology.ap_queue",
    )];
    for (i, &s) in stations.iter().enumerate() {
        let name = &g.nodes[s];
        queues.push(queue(
            s,
            name,
            spec.station_buffer,
            QueueSpec::default(),
            "topology.station_buffer",
        ));
        let iface = i as u16 + 1;
        for (from, to, tx, rx) in [(s, ap, iface, 0), (ap, s, 0, iface)] {
            g.wireless.push(WirelessEdge {
                name: format!("{}~>{}", g.nodes[from], g.nodes[to]),
                from,
                to,
                bss,
                tx,
                rx,
            });
        }
    }
    let mut nodes = vec![ap];
    nodes.extend(&stations);
    g.wlans.push(WlanLayout {
        spec: spec.clone(),
        nodes,
        queues,
    });
}

type AccessOverrideRef = crate::config::AccessOverride;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dumbbell_has_expected_nodes_and_links() {
        let t = Topology::Dumbbell(crate::config::DumbbellSpec {
            pairs: 2,
            bottleneck: LinkSpec::new(10e6, 0.023, 100),
            access: LinkSpec::new(100e6, 0.001, 1000),
            pair_access: vec![crate::config::AccessOverride {
                delay: Some(Seconds(0.05)),
                jitter: Some(JitterSpec::Uniform(crate::config::jitter::UniformJitter {
                    max: Seconds(0.0008),
                })),
                ..Default::default()
            }],
        });
        let g = expand(&t);
        assert_eq!(g.nodes, vec!["r0", "r1", "s0", "d0", "s1", "d1"]);
        assert_eq!(g.links.len(), 2 * 5);
        let s0 = g.links.iter().find(|l| l.name == "s0->r0").unwrap();
        assert_eq!(s0.delay, Seconds(0.05));
        assert!(
            s0.jitter.is_some(),
            "the pair's jitter is on its sender's link"
        );
        let s1 = g.links.iter().find(|l| l.name == "s1->r0").unwrap();
        assert_eq!(s1.delay, Seconds(0.001));
        assert!(s1.jitter.is_none());
        for name in ["r0->s0", "r1->d0"] {
            let l = g.links.iter().find(|l| l.name == name).unwrap();
            assert!(l.jitter.is_none(), "{name}: only the sender's link jitters");
        }
        assert!(g.links.iter().find(|l| l.name == "r0->r1").unwrap().monitor);
    }

    #[test]
    fn node_lookup_by_name() {
        let mut g = expand(&Topology::Star(StarSpec {
            senders: 3,
            bottleneck: LinkSpec::new(10e6, 0.01, 100),
            access: LinkSpec::new(100e6, 0.001, 100),
        }));
        for (i, n) in g.nodes.clone().iter().enumerate() {
            assert_eq!(g.node(n), Some(i));
        }
        assert_eq!(g.node("s3"), None);
        // A node added directly to the list is still found.
        g.nodes.push("extra".into());
        assert_eq!(g.node("extra"), Some(g.nodes.len() - 1));
        assert_eq!(g.node("nowhere"), None);
    }
}
