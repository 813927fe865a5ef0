//! Semantic checks beyond types that the document alone decides: ranges, names that must
//! be unique or defined in it. What needs the engine (the nodes a topology expands to, the
//! routes between them, the algorithms and their parameters, the WLAN's rates) is checked
//! where the world is built from it: validation is building the world (world/build.rs).

use super::error::name_list;
use super::flows::{FlowSpec, StartSpec, Traffic};
use super::schema::*;
use super::{ConfigError, Seconds};

type Check = Result<(), ConfigError>;

fn err(field: impl Into<String>, msg: impl Into<String>) -> ConfigError {
    ConfigError::new(field, msg)
}

fn finite_in(field: &str, v: f64, lo: f64, hi: f64, what: &str) -> Check {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(err(field, format!("{v} is not allowed; {what}")))
    }
}

pub fn validate(s: &Scenario) -> Check {
    let sim = &s.simulation;
    let dur = sim.duration.0;
    finite_in(
        "simulation.duration",
        dur,
        1e-9,
        1e7,
        "must be a positive number of seconds up to 1e7",
    )?;
    finite_in(
        "simulation.sample_interval",
        sim.sample_interval.0,
        0.0,
        dur,
        "must be between 0 (off) and the duration",
    )?;
    if sim.sample_interval.0 > 0.0 && sim.sample_interval.0 < 1e-6 {
        return Err(err(
            "simulation.sample_interval",
            format!(
                "{} s is too fine; use at least 1 us, or 0 to turn series off",
                sim.sample_interval.0
            ),
        ));
    }
    if let Some([a, b]) = sim.measure {
        finite_in(
            "simulation.measure[0]",
            a.0,
            0.0,
            dur,
            "the window must start within the run",
        )?;
        finite_in(
            "simulation.measure[1]",
            b.0,
            0.0,
            dur,
            "the window must end within the run",
        )?;
        if b.0 <= a.0 {
            return Err(err(
                "simulation.measure",
                format!(
                    "[{}, {}] is empty; the end must be after the start",
                    a.0, b.0
                ),
            ));
        }
    }
    validate_topology(&s.topology)?;
    validate_tcp("tcp", &s.tcp)?;
    if s.flows.is_empty() {
        return Err(err("flows", "at least one [[flows]] entry is required"));
    }
    super::traces::validate_pcap(&sim.pcap)?;
    for (i, f) in s.flows.iter().enumerate() {
        let field = format!("flows[{i}]");
        validate_flow(&field, f, dur, &s.tcp)?;
        if f.src == f.dst {
            return Err(err(
                format!("{field}.dst"),
                format!(
                    "{:?} is also the source; a flow needs two different nodes",
                    f.dst
                ),
            ));
        }
    }
    super::unique::unique_flow_names(&s.flows)
}

fn validate_link(field: &str, l: &LinkSpec) -> Check {
    finite_in(
        &format!("{field}.rate"),
        l.rate.0,
        1.0,
        1e13,
        "a rate must be positive (1 b/s to 10 Tb/s)",
    )?;
    finite_in(
        &format!("{field}.delay"),
        l.delay.0,
        0.0,
        100.0,
        "a delay must be between 0 and 100 s",
    )?;
    if l.buffer == 0 {
        return Err(err(
            format!("{field}.buffer"),
            "0 is not allowed; a queue holds at least 1 packet",
        ));
    }
    if l.buffer_bytes == Some(0) {
        return Err(err(
            format!("{field}.buffer_bytes"),
            "0 is not allowed; omit it for no byte limit",
        ));
    }
    if let Some(loss) = &l.loss {
        validate_loss(&format!("{field}.loss"), loss)?;
    }
    if let Some(j) = &l.jitter {
        super::jitter::validate_jitter(&format!("{field}.jitter"), j)?;
    }
    if let Some(b) = l.burst {
        validate_burst(&format!("{field}.burst"), b)?;
    }
    super::queues::validate_queue(&format!("{field}.queue"), &l.queue, l.buffer)?;
    if let Some(r) = &l.reverse {
        let rf = format!("{field}.reverse");
        if let Some(rate) = r.rate {
            finite_in(
                &format!("{rf}.rate"),
                rate.0,
                1.0,
                1e13,
                "a rate must be positive (1 b/s to 10 Tb/s)",
            )?;
        }
        if let Some(d) = r.delay {
            finite_in(
                &format!("{rf}.delay"),
                d.0,
                0.0,
                100.0,
                "a delay must be between 0 and 100 s",
            )?;
        }
        if r.buffer == Some(0) {
            return Err(err(
                format!("{rf}.buffer"),
                "0 is not allowed; a queue holds at least 1 packet",
            ));
        }
        if let Some(loss) = &r.loss {
            validate_loss(&format!("{rf}.loss"), loss)?;
        }
        if let Some(j) = &r.jitter {
            super::jitter::validate_jitter(&format!("{rf}.jitter"), j)?;
        }
        if let Some(b) = r.burst {
            validate_burst(&format!("{rf}.burst"), b)?;
        }
        let (queue, queue_field) = match &r.queue {
            Some(q) => (q, format!("{rf}.queue")),
            None => (&l.queue, format!("{field}.queue")),
        };
        super::queues::validate_queue(&queue_field, queue, r.buffer.unwrap_or(l.buffer))?;
    }
    Ok(())
}

/// The most draws a loss model may discard before its first packet (`skip`): enough for
/// any handshake, small enough that building a link stays instant.
const MAX_LOSS_SKIP: u64 = 1_000_000;

/// A transmitter's token-bucket slack: 0 to 10 s of the link's rate.
fn validate_burst(field: &str, burst: Seconds) -> Check {
    finite_in(
        field,
        burst.0,
        0.0,
        10.0,
        "a token-bucket slack must be between 0 and 10 s of the link's rate",
    )
}

fn validate_loss(field: &str, loss: &LossSpec) -> Check {
    let prob = |name: &str, v: f64| {
        finite_in(
            &format!("{field}.{name}"),
            v,
            0.0,
            1.0,
            "a probability must be between 0 and 1",
        )
    };
    match loss {
        LossSpec::Bernoulli(b) => {
            prob("p", b.p)?;
            match b.skip {
                Some(n) if n > MAX_LOSS_SKIP => Err(err(
                    format!("{field}.skip"),
                    format!("{n} draws is too many; allowed: 0 to {MAX_LOSS_SKIP}"),
                )),
                _ => Ok(()),
            }
        }
        LossSpec::GilbertElliott(GilbertElliottSpec {
            p,
            r,
            loss_good,
            loss_bad,
            mean_loss,
            mean_burst,
            ..
        }) => {
            let by_means = mean_loss.is_some() || mean_burst.is_some();
            let by_chain = p.is_some() || r.is_some() || loss_good.is_some() || loss_bad.is_some();
            if by_means && by_chain {
                return Err(err(
                    field,
                    "give either p and r (with optional loss_good, loss_bad) or mean_loss and mean_burst, not both",
                ));
            }
            if by_means {
                let (Some(l), Some(b)) = (mean_loss, mean_burst) else {
                    let missing = if mean_loss.is_none() {
                        "mean_loss"
                    } else {
                        "mean_burst"
                    };
                    return Err(err(
                        format!("{field}.{missing}"),
                        "missing; mean_loss and mean_burst go together",
                    ));
                };
                finite_in(
                    &format!("{field}.mean_burst"),
                    *b,
                    1.0,
                    1e9,
                    "a mean burst is at least 1 packet",
                )?;
                // p = l / (b (1 - l)) must be a probability.
                let hi = b / (1.0 + b);
                return finite_in(
                    &format!("{field}.mean_loss"),
                    *l,
                    0.0,
                    hi,
                    &format!("with mean_burst {b} the mean loss can be 0 to {hi} (b / (1 + b))"),
                );
            }
            let (Some(p), Some(r)) = (p, r) else {
                let missing = if p.is_none() { "p" } else { "r" };
                return Err(err(
                    format!("{field}.{missing}"),
                    "missing; give p (good -> bad) and r (bad -> good), or mean_loss and mean_burst",
                ));
            };
            prob("p", *p)?;
            prob("r", *r)?;
            if *p + *r == 0.0 {
                return Err(err(
                    format!("{field}.r"),
                    "p and r cannot both be 0 (the chain would never move)",
                ));
            }
            prob("loss_good", loss_good.unwrap_or(0.0))?;
            prob("loss_bad", loss_bad.unwrap_or(1.0))
        }
    }
}

fn validate_topology(t: &Topology) -> Check {
    match t {
        Topology::Dumbbell(DumbbellSpec {
            pairs,
            bottleneck,
            access,
            pair_access,
        }) => {
            positive("topology.pairs", *pairs)?;
            validate_link("topology.bottleneck", bottleneck)?;
            validate_link("topology.access", access)?;
            validate_overrides(pair_access, *pairs)
        }
        Topology::Chain(ChainSpec {
            hops,
            pairs,
            hop,
            access,
            pair_access,
        }) => {
            positive("topology.hops", *hops)?;
            positive("topology.pairs", *pairs)?;
            validate_link("topology.hop", hop)?;
            validate_link("topology.access", access)?;
            validate_overrides(pair_access, *pairs)
        }
        Topology::Star(StarSpec {
            senders,
            bottleneck,
            access,
        }) => {
            positive("topology.senders", *senders)?;
            validate_link("topology.bottleneck", bottleneck)?;
            validate_link("topology.access", access)
        }
        Topology::Wlan(w) => super::wlan::validate_wlan(w, validate_link),
        Topology::Custom(CustomSpec { nodes, links }) => {
            if nodes.len() < 2 {
                return Err(err("topology.nodes", "a network needs at least two nodes"));
            }
            let mut names = std::collections::HashSet::with_capacity(nodes.len());
            for (i, n) in nodes.iter().enumerate() {
                if n.is_empty() {
                    return Err(err(
                        format!("topology.nodes[{i}]"),
                        "a node name cannot be empty",
                    ));
                }
                if !names.insert(n.as_str()) {
                    return Err(err(
                        format!("topology.nodes[{i}]"),
                        format!("{n:?} is named twice; node names must be unique"),
                    ));
                }
            }
            for (i, l) in links.iter().enumerate() {
                let f = format!("topology.links[{i}]");
                for (j, end) in l.between.iter().enumerate() {
                    if !names.contains(end.as_str()) {
                        return Err(err(
                            format!("{f}.between[{j}]"),
                            format!("no node named {end:?}; nodes are {}", name_list(nodes)),
                        ));
                    }
                }
                if l.between[0] == l.between[1] {
                    return Err(err(
                        format!("{f}.between"),
                        "a link must join two different nodes",
                    ));
                }
                validate_link(&f, &l.link)?;
            }
            super::unique::unique_links(links)
        }
    }
}

fn positive(field: &str, v: u32) -> Check {
    if v == 0 {
        Err(err(field, "0 is not allowed; at least 1 is required"))
    } else if v > 1_000_000 {
        Err(err(field, format!("{v} is more than the 1000000 allowed")))
    } else {
        Ok(())
    }
}

fn validate_overrides(o: &[AccessOverride], pairs: u32) -> Check {
    if o.len() > pairs as usize {
        return Err(err(
            "topology.pair_access",
            format!(
                "{} entries for {pairs} pairs; give at most one per pair",
                o.len()
            ),
        ));
    }
    for (i, a) in o.iter().enumerate() {
        if let Some(r) = a.rate {
            finite_in(
                &format!("topology.pair_access[{i}].rate"),
                r.0,
                1.0,
                1e13,
                "a rate must be positive",
            )?;
        }
        if let Some(d) = a.delay {
            finite_in(
                &format!("topology.pair_access[{i}].delay"),
                d.0,
                0.0,
                100.0,
                "a delay must be between 0 and 100 s",
            )?;
        }
        if let Some(d) = a.receiver_delay {
            finite_in(
                &format!("topology.pair_access[{i}].receiver_delay"),
                d.0,
                0.0,
                100.0,
                "a delay must be between 0 and 100 s",
            )?;
        }
        if let Some(j) = &a.jitter {
            super::jitter::validate_jitter(&format!("topology.pair_access[{i}].jitter"), j)?;
        }
    }
    Ok(())
}

fn validate_tcp(field: &str, t: &TcpOptions) -> Check {
    if let Some(m) = t.mss {
        finite_in(
            &format!("{field}.mss"),
            m as f64,
            1.0,
            65_495.0,
            "the payload must be 1 to 65495 bytes",
        )?;
    }
    if let Some(h) = t.header_bytes {
        finite_in(
            &format!("{field}.header_bytes"),
            h as f64,
            0.0,
            1000.0,
            "headers must be 0 to 1000 bytes",
        )?;
    }
    if let Some(q) = t.pacing_quantum {
        finite_in(
            &format!("{field}.pacing_quantum"),
            q as f64,
            1.0,
            64.0,
            "must be 1 to 64 segments",
        )?;
    }
    if let Some(q) = t.quickack {
        finite_in(
            &format!("{field}.quickack"),
            q as f64,
            0.0,
            1000.0,
            "must be 0 to 1000 segments",
        )?;
    }
    if t.rwnd == Some(0) {
        return Err(err(
            format!("{field}.rwnd"),
            "0 is not allowed; the advertised window is at least 1 packet",
        ));
    }
    if let Some(w) = t.initial_cwnd {
        finite_in(
            &format!("{field}.initial_cwnd"),
            w,
            1.0,
            1e6,
            "must be 1 to 1e6 packets",
        )?;
    }
    if let Some(w) = t.initial_ssthresh {
        finite_in(
            &format!("{field}.initial_ssthresh"),
            w,
            2.0,
            1e9,
            "must be at least 2 packets",
        )?;
    }
    for (name, v) in [
        ("delack_timeout", t.delack_timeout),
        ("min_rto", t.min_rto),
        ("max_rto", t.max_rto),
        ("initial_rto", t.initial_rto),
    ] {
        if let Some(v) = v {
            finite_in(
                &format!("{field}.{name}"),
                v.0,
                1e-6,
                3600.0,
                "must be between 1 us and 3600 s",
            )?;
        }
    }
    if let Some(g) = t.clock_granularity {
        finite_in(
            &format!("{field}.clock_granularity"),
            g.0,
            0.0,
            10.0,
            "must be between 0 and 10 s",
        )?;
    }
    if let (Some(lo), Some(hi)) = (t.min_rto, t.max_rto) {
        if hi.0 < lo.0 {
            return Err(err(
                format!("{field}.max_rto"),
                format!("{} s is below min_rto {} s", hi.0, lo.0),
            ));
        }
    }
    if let Some(l) = &t.ack_latency {
        super::jitter::validate_delay(&format!("{field}.ack_latency"), l, 1.0)?;
    }
    if let Some(l) = &t.app_read {
        super::jitter::validate_delay(&format!("{field}.app_read"), l, 1.0)?;
    }
    if let Some(size) = t.rcv_truesize {
        finite_in(
            &format!("{field}.rcv_truesize"),
            f64::from(size),
            64.0,
            1_048_576.0,
            "must be 64 to 1048576 bytes of receive memory per segment",
        )?;
    }
    if let Some(d) = t.dupack_threshold {
        finite_in(
            &format!("{field}.dupack_threshold"),
            d as f64,
            1.0,
            1000.0,
            "must be 1 to 1000",
        )?;
    }
    Ok(())
}

/// `ack_latency` delays the ACK the delayed-ACK rule calls for and `app_read` decides when
/// that ACK may leave, so both need that rule (resolved through the stack profile: `linux`
/// has it on, `ns2` off). `written(key)` names the key as the document wrote it.
fn host_delays_need_delayed_acks(
    written: impl Fn(&str) -> String,
    flow: &str,
    merged: &TcpOptions,
) -> Check {
    let stack = merged.stack.unwrap_or_default();
    let delayed_ack = merged.delayed_ack.unwrap_or(stack.delays_acks());
    for (key, spec) in [
        ("ack_latency", &merged.ack_latency),
        ("app_read", &merged.app_read),
    ] {
        let delay = spec.as_ref().map_or(0.0, |l| l.max().0);
        if delay > 0.0 && !delayed_ack {
            return Err(err(
                written(key),
                format!(
                    "{} s needs delayed ACKs, which {flow} has off (stack {:?}); set \
                     delayed_ack = true or leave {key} out",
                    (delay * 1e9).round() / 1e9,
                    format!("{stack:?}").to_lowercase()
                ),
            ));
        }
    }
    Ok(())
}

fn validate_flow(field: &str, f: &FlowSpec, duration: f64, defaults: &TcpOptions) -> Check {
    if let Some(n) = &f.name {
        if n.is_empty() {
            return Err(err(
                format!("{field}.name"),
                "a name cannot be empty; omit it for the default",
            ));
        }
    }
    positive(&format!("{field}.count"), f.count)?;
    super::traffic::validate_traffic(field, f, duration)?;
    let latest_start = match &f.start {
        StartSpec::At(t) => {
            finite_in(
                &format!("{field}.start"),
                t.0,
                0.0,
                duration,
                "a flow must start within the run",
            )?;
            t.0
        }
        StartSpec::Uniform { uniform: [a, b] } => {
            finite_in(
                &format!("{field}.start.uniform[0]"),
                a.0,
                0.0,
                duration,
                "a flow must start within the run",
            )?;
            finite_in(
                &format!("{field}.start.uniform[1]"),
                b.0,
                0.0,
                duration,
                "a flow must start within the run",
            )?;
            if b.0 < a.0 {
                return Err(err(
                    format!("{field}.start.uniform"),
                    format!("[{}, {}] is reversed; write [low, high]", a.0, b.0),
                ));
            }
            b.0
        }
    };
    if let Some(stop) = f.stop {
        if !(stop.0.is_finite() && stop.0 > latest_start) {
            return Err(err(
                format!("{field}.stop"),
                format!("{} s is not after the start ({latest_start} s)", stop.0),
            ));
        }
    }
    let Traffic::Tcp(tcp) = &f.traffic else {
        return Ok(());
    };
    if tcp.bytes == Some(0) {
        return Err(err(
            format!("{field}.bytes"),
            "0 is not allowed; omit it for a bulk transfer",
        ));
    }
    validate_tcp(&format!("{field}.tcp"), &tcp.tcp)?;
    let merged = tcp.tcp.or(defaults);
    if let (Some(lo), Some(hi)) = (merged.min_rto, merged.max_rto) {
        if hi.0 < lo.0 {
            return Err(err(
                format!("{field}.tcp.max_rto"),
                format!("{} s is below min_rto {} s", hi.0, lo.0),
            ));
        }
    }
    // Blamed on the key the document wrote: the flow's own, or the scenario's.
    let own = &tcp.tcp;
    let written = |key: &str| {
        let set = match key {
            "ack_latency" => own.ack_latency.is_some(),
            _ => own.app_read.is_some(),
        };
        if set {
            format!("{field}.tcp.{key}")
        } else {
            format!("tcp.{key}")
        }
    };
    host_delays_need_delayed_acks(written, field, &merged)
}
