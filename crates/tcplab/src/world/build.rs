//! Builds a world from a parsed scenario: the one place that checks what only the engine
//! can (nodes, routes, algorithms and their parameters, WLAN rates), so building without
//! running is validating (`tcplab validate`, [`crate::validate_scenario`]).

use super::link::Link;
use super::wifi::Wireless;
use super::{Event, Flow, World};
use crate::app::AppSchedule;
use crate::cc;
use crate::config::{name_list, FlowSpec, LossApplies, LossSpec, LossStream, Scenario, Traffic};
use crate::net::loss::GilbertElliott;
use crate::net::routing::Router;
use crate::net::topology::{expand, DirectedLink, Graph};
use crate::net::{DropCounts, Jitter, LinkId, LossModel, LossProcess, LossTarget};
use crate::queue::Queue;
use crate::record::stream::SeriesBuffer;
use crate::sim::{Drand48, RngStream, Scheduler, Time};
use crate::tcp::{TcpConfig, TcpReceiver, TcpSender};
use crate::ConfigError;

/// Builds the queue discipline of one link direction (or of a wireless interface).
pub(super) fn build_queue(l: &DirectedLink, seed: u64) -> Box<dyn Queue> {
    crate::queue::build(l, seed)
}

fn build_loss(l: &DirectedLink, seed: u64) -> Option<LossModel> {
    let spec = l.loss.as_ref()?;
    let mut rng = RngStream::new(seed, &format!("loss:{}", l.name));
    let (mut drand48, mut skip) = (None, 0);
    let (process, applies) = match spec {
        LossSpec::Bernoulli(b) => {
            if b.stream == Some(LossStream::Drand48) {
                drand48 = Some(Drand48::new(seed));
            }
            skip = b.skip.unwrap_or(0);
            (LossProcess::Bernoulli { p: b.p }, b.applies_to)
        }
        LossSpec::GilbertElliott(g) => {
            let (p, r, good, bad) = GilbertElliott::params_of(g);
            let chain = GilbertElliott::new(p, r, good, bad, &mut rng);
            (LossProcess::GilbertElliott(chain), g.applies_to)
        }
    };
    let target = match applies {
        LossApplies::Data => LossTarget::Data,
        LossApplies::Acks => LossTarget::Acks,
        LossApplies::Both => LossTarget::Both,
    };
    let mut model = LossModel {
        process,
        target,
        rng,
        drand48,
    };
    model.skip(skip);
    Some(model)
}

/// A flow's end nodes and its route from the source to the destination: where the names
/// of its `src` and `dst` are checked against the network and their connection found.
pub(super) fn endpoints(
    spec: &FlowSpec,
    field: &str,
    graph: &Graph,
    path: &mut dyn FnMut(usize, usize) -> Option<Vec<LinkId>>,
) -> Result<(usize, usize, Vec<LinkId>), ConfigError> {
    let node = |key: &str, name: &str| {
        graph.node(name).ok_or_else(|| {
            ConfigError::new(
                format!("{field}.{key}"),
                format!(
                    "no node named {name:?}; nodes are {}",
                    name_list(&graph.nodes)
                ),
            )
        })
    };
    let (src, dst) = (node("src", &spec.src)?, node("dst", &spec.dst)?);
    let fwd = path(src, dst).ok_or_else(|| {
        ConfigError::new(
            format!("{field}.dst"),
            format!(
                "no route from {:?} to {:?}; the links do not connect them",
                spec.src, spec.dst
            ),
        )
    })?;
    Ok((src, dst, fwd))
}

/// Schedules the start and stop events of an application's on periods.
pub(super) fn schedule_periods(sched: &mut Scheduler<Event>, app: &AppSchedule, id: u32) {
    for &(on, off) in &app.periods {
        sched.schedule(on, Event::FlowStart(id));
        if let Some(off) = off {
            sched.schedule(off, Event::FlowStop(id));
        }
    }
}

impl World {
    /// Builds the world of a parsed scenario ([`crate::config::parse_scenario`]), checking
    /// everything the document alone cannot tell.
    pub fn build(s: &Scenario) -> Result<World, ConfigError> {
        let seed = s.simulation.seed;
        let graph = expand(&s.topology);
        let links: Vec<Link> = graph
            .links
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l, build_queue(l, seed)))
            .map(|(i, l, queue)| Link {
                id: i as u32,
                name: l.name.clone(),
                from: l.from as u32,
                to: l.to as u32,
                rate_bps: l.rate.0.round().max(1.0) as u64,
                delay: Time::from_secs_f64(l.delay.0),
                fifo: queue.plain_fifo(),
                queue,
                backlog: Default::default(),
                loss: build_loss(l, seed).map(Box::new),
                jitter: (l.jitter.as_ref())
                    .map(|j| Jitter::new(j, RngStream::new(seed, &format!("jitter:{}", l.name))))
                    .map(Box::new),
                busy_until: Time::ZERO,
                burst: Time::from_secs_f64(l.burst.0),
                done_pending: false,
                idle_unseen: false,
                monitor: l.monitor,
                stats: Default::default(),
            })
            .collect();
        if let Some((l, spec)) = links
            .iter()
            .zip(&graph.links)
            .find(|(l, _)| l.burst > Time::ZERO && l.fifo.is_none())
        {
            return Err(ConfigError::new(
                spec.burst_field.clone(),
                format!(
                    "a token-bucket slack needs a DropTail queue; link {} has {}",
                    l.name,
                    l.queue.kind()
                ),
            ));
        }
        let wifi = Wireless::build(&graph, seed)?;

        let mut router = Router::new(&graph);
        let mut path = |from: usize, to: usize| router.path(&graph, from, to);

        let mut flows = Vec::new();
        // Each flow's (forward, reverse) route, by flow id: kept only in the routes table.
        let mut flow_routes: Vec<(Vec<LinkId>, Vec<LinkId>)> = Vec::new();
        let mut sched = Scheduler::new();
        for (i, spec) in s.flows.iter().enumerate() {
            let Traffic::Tcp(tcp) = &spec.traffic else {
                continue; // CBR flows are built after the TCP flows (udp.rs)
            };
            let field = format!("flows[{i}]");
            let (src, dst, fwd) = endpoints(spec, &field, &graph, &mut path)?;
            let rev = path(dst, src).ok_or_else(|| {
                ConfigError::new(
                    format!("{field}.src"),
                    format!(
                        "no route from {:?} back to {:?}; the links do not connect them",
                        spec.dst, spec.src
                    ),
                )
            })?;
            wifi.check_route(&fwd, dst as u32, &format!("{field}.dst"))?;
            wifi.check_route(&rev, src as u32, &format!("{field}.src"))?;
            let cfg = TcpConfig::from_options(&tcp.tcp.or(&s.tcp));
            for k in 0..spec.count {
                let id = flows.len() as u32;
                let name = spec.flow_name(i, k);
                let mut cc = cc::build(&tcp.cc, &format!("{field}.cc"))?;
                cc.set_random_stream(RngStream::new(seed, &format!("cc:{name}")));
                let recovery = (tcp.recovery.or(cfg.recovery)).unwrap_or(cc.default_recovery());
                let mut rng = RngStream::new(seed, &format!("flow:{name}"));
                let app = AppSchedule::for_flow(spec, &mut rng);
                let sender =
                    TcpSender::new(id, src as u32, dst as u32, &cfg, cc, recovery, app.bytes);
                let total = sender.total_segments().map(|n| (n, sender.last_payload()));
                let mut receiver = TcpReceiver::new(id, dst as u32, src as u32, &cfg, total);
                receiver.set_random_stream(RngStream::new(seed, &format!("ack_latency:{name}")));
                receiver.set_read_stream(RngStream::new(seed, &format!("app_read:{name}")));
                schedule_periods(&mut sched, &app, id);
                flow_routes.push((fwd.clone(), rev.clone()));
                flows.push(Flow {
                    name,
                    src_name: spec.src.clone(),
                    dst_name: spec.dst.clone(),
                    sender,
                    receiver,
                    start: app.start(),
                    data_drops: DropCounts::default(),
                    ack_drops: DropCounts::default(),
                    drop_log: Default::default(),
                    data_sent: 0,
                    data_arrived: 0,
                    acks_sent: 0,
                    acks_arrived: 0,
                    bytes_at_measure_start: 0,
                });
            }
        }

        let (udp_flows, udp_routes) =
            super::udp::build_udp_flows(s, &graph, &mut path, flows.len() as u32, &mut sched)?;

        let mut taps = Vec::new();
        for (i, t) in s.simulation.pcap.iter().enumerate() {
            let link = graph.links.iter().position(|l| l.name == t.link);
            let link = link.ok_or_else(|| {
                let names: Vec<&str> = graph.links.iter().map(|l| l.name.as_str()).collect();
                ConfigError::new(
                    format!("simulation.pcap[{i}].link"),
                    format!(
                        "no link direction named {:?}; links are named \"a->b\", e.g. {}",
                        t.link,
                        names[..names.len().min(12)].join(", ")
                    ),
                )
            })?;
            taps.push((link as u32, t.clone()));
        }

        let end = Time::from_secs_f64(s.simulation.duration.0);
        let measure = match s.simulation.measure {
            Some([a, b]) => [Time::from_secs_f64(a.0), Time::from_secs_f64(b.0)],
            None => [Time::ZERO, end],
        };
        let sample_interval = Time::from_secs_f64(s.simulation.sample_interval.0);
        if sample_interval > Time::ZERO {
            sched.schedule(Time::ZERO, Event::Sample);
        }
        if measure[0] > Time::ZERO {
            sched.schedule(measure[0], Event::MeasureStart);
        }
        let n_links = links.len();
        let all_routes: Vec<(&[LinkId], &[LinkId])> = (flow_routes.iter())
            .map(|(f, r)| (&f[..], &r[..]))
            .chain(udp_routes.iter().map(|f| (&f[..], &[][..])))
            .collect();
        let routes = super::routes::Routes::new(&all_routes);
        let prefetch = super::prefetch::Prefetch::new(n_links, flows.len());
        Ok(World {
            now: Time::ZERO,
            sched,
            links,
            wifi,
            flows,
            udp_flows,
            end: measure[1].max(end).min(end),
            sample_interval,
            measure,
            seed,
            next_uid: 0,
            packets_delivered: 0,
            link_bytes_at_measure_start: vec![0; n_links],
            link_area_at_measure_start: vec![0; n_links],
            routes,
            arrival_lanes: super::lanes::ArrivalLanes::new(n_links),
            series: SeriesBuffer::in_memory(),
            event_log: s.simulation.event_log,
            prefetch,
            cc_vars: Vec::new(),
            traces: super::trace::Traces::requested(taps),
            interrupt: None,
        })
    }
}
