//! Static routes: shortest paths in hops, computed once per source before the run.
//!
//! Each flow stores its forward and reverse paths as lists of link ids and every packet
//! carries its hop index, so forwarding is one array lookup (no per-packet hashing).

use super::topology::Graph;
use std::collections::VecDeque;

/// Breadth-first search tree from `src`: for every node, the link that reaches it.
pub struct RouteTree {
    src: usize,
    via: Vec<Option<usize>>,
}

impl RouteTree {
    pub fn new(g: &Graph, adjacency: &[Vec<usize>], src: usize) -> Self {
        let mut via = vec![None; g.nodes.len()];
        let mut seen = vec![false; g.nodes.len()];
        seen[src] = true;
        let mut frontier = VecDeque::from([src]);
        while let Some(n) = frontier.pop_front() {
            for &l in &adjacency[n] {
                let to = g.edge_ends(l).1;
                if !seen[to] {
                    seen[to] = true;
                    via[to] = Some(l);
                    frontier.push_back(to);
                }
            }
        }
        RouteTree { src, via }
    }

    /// Link ids from the source to `dst`, or `None` if `dst` is unreachable.
    pub fn path_to(&self, g: &Graph, dst: usize) -> Option<Vec<u32>> {
        let mut path = Vec::new();
        let mut n = dst;
        while n != self.src {
            let l = self.via[n]?;
            path.push(l as u32);
            n = g.edge_ends(l).0;
        }
        path.reverse();
        Some(path)
    }
}

/// Outgoing hops per node, in hop order (which makes equal-length paths deterministic).
pub fn adjacency(g: &Graph) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); g.nodes.len()];
    for e in 0..g.edge_count() {
        adj[g.edge_ends(e).0].push(e);
    }
    adj
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{LinkSpec, Topology};
    use crate::net::topology::expand;

    #[test]
    fn chain_path_crosses_every_hop() {
        let g = expand(&Topology::Chain(crate::config::ChainSpec {
            hops: 3,
            pairs: 1,
            hop: LinkSpec::new(1e6, 0.002, 10),
            access: LinkSpec::new(5e6, 0.002, 10),
            pair_access: vec![],
        }));
        let adj = adjacency(&g);
        let s = g.node("s0").unwrap();
        let d = g.node("d0").unwrap();
        let path = RouteTree::new(&g, &adj, s).path_to(&g, d).unwrap();
        let names: Vec<_> = path
            .iter()
            .map(|&l| g.links[l as usize].name.as_str())
            .collect();
        assert_eq!(
            names,
            vec!["s0->r0", "r0->r1", "r1->r2", "r2->r3", "r3->d0"]
        );
    }
}
