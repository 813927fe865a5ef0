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

/// Answers many path queries on one graph without a full search per query, so that
/// building a world with thousands of flows stays linear in the number of flows.
///
/// Paths are those of [`RouteTree`] (breadth-first, the first link in link order wins
/// ties). When the graph is a tree (every preset is: dumbbell, chain, star), the path is
/// the unique one and is found by climbing from both ends to their common ancestor, in
/// time proportional to its length. Otherwise a breadth-first search stops as soon as it
/// reaches the destination and reuses its scratch arrays across queries.
pub struct Router {
    adjacency: Vec<Vec<usize>>,
    tree: Option<RootedTree>,
    /// `seen[n] == stamp` marks nodes visited by the current search.
    seen: Vec<u32>,
    stamp: u32,
    via: Vec<usize>,
    frontier: VecDeque<usize>,
}

/// The graph as a tree rooted at node 0.
struct RootedTree {
    parent: Vec<usize>,
    depth: Vec<u32>,
    /// Link from a node to its parent, and from its parent to it.
    up: Vec<usize>,
    down: Vec<usize>,
}

impl RootedTree {
    /// The tree, if the graph is one: connected, and every neighbouring pair joined by
    /// exactly one link in each direction.
    fn of(g: &Graph, adjacency: &[Vec<usize>]) -> Option<Self> {
        let n = g.nodes.len();
        if n == 0 || g.edge_count() != 2 * (n - 1) {
            return None;
        }
        const NONE: usize = usize::MAX;
        let mut parent = vec![NONE; n];
        let mut depth = vec![0u32; n];
        let mut up = vec![NONE; n];
        let mut down = vec![NONE; n];
        parent[0] = 0;
        let mut frontier = VecDeque::from([0usize]);
        let mut reached = 1;
        while let Some(a) = frontier.pop_front() {
            for &l in &adjacency[a] {
                let b = g.edge_ends(l).1;
                if parent[b] == NONE {
                    parent[b] = a;
                    depth[b] = depth[a] + 1;
                    down[b] = l;
                    reached += 1;
                    frontier.push_back(b);
                } else if b != parent[a] || a == 0 {
                    return None; // a second path to b: a cycle or parallel links
                }
            }
        }
        if reached != n {
            return None;
        }
        for l in 0..g.edge_count() {
            let (from, to) = g.edge_ends(l);
            if parent[from] == to {
                up[from] = l;
            }
        }
        up.iter().skip(1).all(|&l| l != NONE).then_some(RootedTree {
            parent,
            depth,
            up,
            down,
        })
    }

    fn path(&self, src: usize, dst: usize) -> Vec<u32> {
        let (mut a, mut b) = (src, dst);
        let mut climb = Vec::new();
        let mut descend = Vec::new();
        while self.depth[a] > self.depth[b] {
            climb.push(self.up[a] as u32);
            a = self.parent[a];
        }
        while self.depth[b] > self.depth[a] {
            descend.push(self.down[b] as u32);
            b = self.parent[b];
        }
        while a != b {
            climb.push(self.up[a] as u32);
            a = self.parent[a];
            descend.push(self.down[b] as u32);
            b = self.parent[b];
        }
        climb.extend(descend.iter().rev());
        climb
    }
}

impl Router {
    pub fn new(g: &Graph) -> Self {
        let adjacency = adjacency(g);
        let tree = RootedTree::of(g, &adjacency);
        let n = g.nodes.len();
        Router {
            adjacency,
            tree,
            seen: vec![0; n],
            stamp: 0,
            via: vec![usize::MAX; n],
            frontier: VecDeque::new(),
        }
    }

    /// Link ids from `src` to `dst`, or `None` if `dst` is unreachable.
    pub fn path(&mut self, g: &Graph, src: usize, dst: usize) -> Option<Vec<u32>> {
        if let Some(t) = &self.tree {
            return Some(t.path(src, dst));
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        self.seen[src] = stamp;
        self.frontier.clear();
        self.frontier.push_back(src);
        'search: while let Some(n) = self.frontier.pop_front() {
            for &l in &self.adjacency[n] {
                let to = g.edge_ends(l).1;
                if self.seen[to] != stamp {
                    self.seen[to] = stamp;
                    self.via[to] = l;
                    if to == dst {
                        break 'search;
                    }
                    self.frontier.push_back(to);
                }
            }
        }
        if self.seen[dst] != stamp {
            return None;
        }
        let mut path = Vec::new();
        let mut n = dst;
        while n != src {
            let l = self.via[n];
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

    use crate::config::{ChainSpec, CustomLink, CustomSpec, DumbbellSpec, StarSpec, Topology as T};

    /// Every ordered pair of nodes gets the same path from `Router` as from a full
    /// breadth-first search.
    fn router_agrees_with_route_tree(g: &Graph) -> bool {
        let adj = adjacency(g);
        let mut router = Router::new(g);
        (0..g.nodes.len()).all(|s| {
            let tree = RouteTree::new(g, &adj, s);
            (0..g.nodes.len()).all(|d| router.path(g, s, d) == tree.path_to(g, d))
        })
    }

    fn custom(nodes: &[&str], links: &[(&str, &str)]) -> Graph {
        expand(&T::Custom(CustomSpec {
            nodes: nodes.iter().map(|n| n.to_string()).collect(),
            links: links
                .iter()
                .map(|(a, b)| CustomLink {
                    between: [a.to_string(), b.to_string()],
                    link: LinkSpec::new(1e6, 0.001, 10),
                    monitor: true,
                })
                .collect(),
        }))
    }

    #[test]
    fn router_matches_breadth_first_search_on_presets() {
        let access = LinkSpec::new(5e6, 0.002, 10);
        let hop = LinkSpec::new(1e6, 0.002, 10);
        for t in [
            T::Dumbbell(DumbbellSpec {
                pairs: 4,
                bottleneck: hop.clone(),
                access: access.clone(),
                pair_access: vec![],
            }),
            T::Chain(ChainSpec {
                hops: 3,
                pairs: 3,
                hop: hop.clone(),
                access: access.clone(),
                pair_access: vec![],
            }),
            T::Star(StarSpec {
                senders: 5,
                bottleneck: hop.clone(),
                access: access.clone(),
            }),
        ] {
            let g = expand(&t);
            assert!(Router::new(&g).tree.is_some(), "presets are trees");
            assert!(router_agrees_with_route_tree(&g));
        }
    }

    #[test]
    fn router_searches_graphs_with_cycles_and_parallel_links() {
        // A square with a diagonal: shortest paths tie, the first link in order wins.
        let cycle = custom(
            &["a", "b", "c", "d", "e"],
            &[
                ("a", "b"),
                ("b", "c"),
                ("c", "d"),
                ("d", "a"),
                ("a", "c"),
                ("d", "e"),
            ],
        );
        assert!(Router::new(&cycle).tree.is_none());
        assert!(router_agrees_with_route_tree(&cycle));
        let parallel = custom(&["a", "b", "c"], &[("a", "b"), ("a", "b"), ("b", "c")]);
        assert!(Router::new(&parallel).tree.is_none());
        assert!(router_agrees_with_route_tree(&parallel));
    }

    #[test]
    fn router_reports_unreachable_nodes() {
        let g = custom(&["a", "b", "c", "d"], &[("a", "b"), ("c", "d")]);
        let mut router = Router::new(&g);
        assert!(router.tree.is_none());
        assert_eq!(router.path(&g, 0, 3), None);
        assert_eq!(router.path(&g, 0, 1), Some(vec![0]));
        assert_eq!(router.path(&g, 3, 2), Some(vec![3]));
        assert_eq!(router.path(&g, 1, 0), Some(vec![1]));
        assert_eq!(router.path(&g, 2, 1), None);
    }

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
