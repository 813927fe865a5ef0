//! The simulated world and its event loop.
//!
//! Packets follow precomputed source routes: a flow's forward path carries data, its
//! reverse path carries ACKs, and a packet's `hop` indexes the next link. Every drop is
//! recorded with its cause, and at the end of the run every packet is accounted for.

mod accounting;
mod build;
mod drop_log;
mod interrupt;
mod lanes;
pub mod link;
mod prefetch;
mod records;
mod routes;
mod trace;
mod udp;
mod wifi;
mod wire_stamps;

use crate::config::TapPoint;
use crate::net::{DropCause, DropCounts, FlowId, LinkId, Packet, PacketKind};
use crate::record::stream::SeriesBuffer;
use crate::record::{RunRecords, SeriesSink};
use crate::sim::{Scheduler, Time};
use crate::tcp::{TcpReceiver, TcpSender};
use crate::wifi::WifiTimer;
use crate::{parse_scenario, ConfigError, Scenario};
use link::Link;
use thiserror::Error;

pub use accounting::ConservationReport;
pub use drop_log::DropLog;
pub use interrupt::{InterruptHook, POLL_EVENTS, POLL_INTERVAL};
pub use udp::UdpFlow;

/// Why a run could not produce records.
#[derive(Debug, Error)]
pub enum RunError {
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A packet-accounting violation: a bug in the engine, reported rather than hidden.
    #[error("conservation violated (engine bug, please report): {0}")]
    Conservation(String),
    /// Output the scenario asks for (pcap traces) could not be written.
    #[error("output: {0}")]
    Output(String),
    /// The interrupt hook ([`World::interrupt_with`]) asked the run to stop.
    #[error("the run was interrupted")]
    Interrupted,
}

/// Something that happens at a point in simulated time.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// A link finished serialising its current packet and packets wait in its queue.
    /// (A link whose queue is empty when a transmission starts schedules nothing.)
    LinkDone(LinkId),
    /// A packet reached the end of a link.
    Arrive(Packet),
    /// A sender's retransmission timer event, scheduled for the given time.
    RtoTimer(FlowId, Time),
    /// A paced sender's next slot, scheduled for the given time.
    PaceTimer(FlowId, Time),
    /// A receiver's delayed-ACK timer event.
    DelAckTimer(FlowId, Time),
    FlowStart(FlowId),
    FlowStop(FlowId),
    /// A CBR source's next datagram, for the on period of the given generation.
    CbrSend(FlowId, u32),
    Sample,
    MeasureStart,
    /// A wireless MAC timer.
    Wifi(WifiTimer),
}

/// A TCP connection: its sender and receiver and their counters (its routes are kept in
/// the world's routes table only).
pub struct Flow {
    pub name: String,
    pub src_name: String,
    pub dst_name: String,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub start: Time,
    pub data_drops: DropCounts,
    pub ack_drops: DropCounts,
    /// Data drops, matched to the sender's loss responses to score loss classification.
    pub drop_log: DropLog,
    pub data_sent: u64,
    pub data_arrived: u64,
    pub acks_sent: u64,
    pub acks_arrived: u64,
    bytes_at_measure_start: u64,
}

pub struct World {
    pub now: Time,
    sched: Scheduler<Event>,
    pub links: Vec<Link>,
    /// Wireless hops: hop ids from `links.len()` on.
    wifi: wifi::Wireless,
    pub flows: Vec<Flow>,
    /// UDP flows, with ids after the TCP flows'.
    pub udp_flows: Vec<UdpFlow>,
    end: Time,
    sample_interval: Time,
    measure: [Time; 2],
    seed: u64,
    next_uid: u32,
    packets_delivered: u64,
    /// Per link: bytes of the transmissions that end by the start of the measurement window.
    link_bytes_at_measure_start: Vec<u64>,
    link_area_at_measure_start: Vec<u128>,
    /// The routes of every flow (TCP, then UDP), read on every arrival.
    routes: routes::Routes,
    /// Scheduler lanes of wired arrivals: one per distinct transmission + delay.
    arrival_lanes: lanes::ArrivalLanes,
    /// Sampled series, kept in memory or streamed to a sink.
    series: SeriesBuffer,
    /// Whether the scenario keeps the per-event log (its rows go to `series`).
    event_log: bool,
    prefetch: prefetch::Prefetch,
    cc_vars: Vec<(&'static str, f64)>,
    traces: trace::Traces,
    /// Asked between events whether to stop (see [`World::interrupt_with`]).
    interrupt: Option<interrupt::Interrupt>,
}

/// Parses, builds and runs a scenario document; `seed` overrides the document's.
/// A scenario that asks for pcap traces needs [`run_scenario_with_output`].
pub fn run_scenario(text: &str, seed: Option<u64>) -> Result<RunRecords, RunError> {
    build_world(text, seed, None)?.run()
}

/// As [`run_scenario`], writing the files the scenario asks for (pcap traces) under
/// `out_dir`.
pub fn run_scenario_with_output(
    text: &str,
    seed: Option<u64>,
    out_dir: &std::path::Path,
) -> Result<RunRecords, RunError> {
    build_world(text, seed, Some(out_dir))?.run()
}

/// Validates a scenario document: parses it and builds its world without running it (the
/// checks that need the engine are those of building, so there is no second validator).
/// Returns the parsed scenario, whose [`Scenario::to_toml`] is its canonical form.
pub fn validate_scenario(text: &str) -> Result<Scenario, ConfigError> {
    let scenario = parse_scenario(text)?;
    World::build(&scenario)?;
    Ok(scenario)
}

/// Parses a scenario document and builds its world, ready to [`World::run`]; `seed`
/// overrides the document's, and pcap traces are opened under `out_dir` if given.
pub fn build_world(
    text: &str,
    seed: Option<u64>,
    out_dir: Option<&std::path::Path>,
) -> Result<World, RunError> {
    let mut scenario: Scenario = parse_scenario(text)?;
    if let Some(s) = seed {
        scenario.simulation.seed = s;
    }
    let mut world = World::build(&scenario)?;
    if let Some(dir) = out_dir {
        world.open_traces(dir)?;
    }
    Ok(world)
}

impl World {
    fn schedule(&mut self, at: Time, ev: Event) {
        self.sched.schedule(at, ev);
    }

    /// Runs to the end of the scenario and returns its records.
    pub fn run(mut self) -> Result<RunRecords, RunError> {
        self.check_traces_opened()?;
        self.advance_to(self.end);
        if self.interrupt.as_ref().is_some_and(|i| i.requested) {
            return Err(RunError::Interrupted);
        }
        for f in 0..self.flows.len() as FlowId {
            self.record_losses(f); // (every call that makes one is flushed; for safety)
        }
        self.finish_traces()?;
        self.check_conservation()?;
        let series = std::mem::replace(&mut self.series, SeriesBuffer::in_memory())
            .finish()
            .map_err(|e| RunError::Output(format!("time series: {e}")))?;
        Ok(self.into_records(series))
    }

    /// Hands the sampled series (flows, queues, algorithm and queue variables, AP queue)
    /// to `sink` in chunks of about `chunk_rows` rows while the run goes on, instead of
    /// keeping them: the records [`run`](Self::run) returns then hold no series rows.
    pub fn stream_series(&mut self, sink: Box<dyn SeriesSink>, chunk_rows: usize) {
        self.series.stream_to(sink, chunk_rows);
    }

    /// Lets `hook` stop the run: it is asked between events, about every
    /// [`POLL_INTERVAL`] of wall time, and once it returns true the run stops and
    /// [`run`](Self::run) returns [`RunError::Interrupted`] (for Ctrl-C).
    pub fn interrupt_with(&mut self, hook: InterruptHook) {
        self.interrupt = Some(interrupt::Interrupt::new(hook));
    }

    /// Names of the wired link directions, indexed by link id (the `link` column of the
    /// queue series).
    pub fn link_names(&self) -> Vec<String> {
        self.links.iter().map(|l| l.name.clone()).collect()
    }

    /// Processes every event up to and including `t` (at most the end of the run), or
    /// up to the event after which the interrupt hook asked to stop.
    pub fn advance_to(&mut self, t: Time) {
        let t = t.min(self.end);
        while let Some(due) = self.sched.due(t) {
            let ev = self.sched.take(
                due,
                self.prefetch.enabled.then_some(|ev: &Event, ahead| {
                    let (routes, links, flows) = (&self.routes, &self.links, &self.flows);
                    prefetch::state_of(ev, ahead, routes, links, flows, &self.arrival_lanes)
                }),
            );
            self.now = due.at();
            self.dispatch(ev);
            if let Some(interrupt) = &mut self.interrupt {
                if interrupt.poll(self.sched.events_processed()) {
                    return;
                }
            }
        }
        self.now = t;
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.sched.events_processed()
    }

    /// Handles `ev`. (A packet is handled where the event holds it: a copy per event was
    /// a thirtieth of the event loop's cost.)
    fn dispatch(&mut self, mut ev: Event) {
        match ev {
            Event::LinkDone(l) => self.link_done(l),
            Event::Arrive(ref mut p) => self.arrive(p),
            Event::RtoTimer(f, at) => {
                let now = self.now;
                self.flows[f as usize].sender.on_timer(at, now);
                self.flush_sender(f);
            }
            Event::PaceTimer(f, at) => self.pace_timer(f, at),
            Event::DelAckTimer(f, at) => {
                let now = self.now;
                self.flows[f as usize].receiver.on_timer(at, now);
                self.flush_receiver(f);
            }
            Event::FlowStart(f) => match self.udp_index(f) {
                Some(u) => self.udp_start(u),
                None => {
                    let now = self.now;
                    self.flows[f as usize].sender.start(now);
                    self.flush_sender(f);
                }
            },
            Event::FlowStop(f) => match self.udp_index(f) {
                Some(u) => self.udp_stop(u),
                None => {
                    let now = self.now;
                    self.flows[f as usize].sender.stop(now);
                }
            },
            Event::CbrSend(f, generation) => {
                if let Some(u) = self.udp_index(f) {
                    self.udp_send(u, generation)
                }
            }
            Event::Sample => self.sample(),
            Event::MeasureStart => self.snapshot_measure_start(),
            Event::Wifi(t) => self.wifi_timer(t),
        }
    }

    /// A paced sender's next slot (out of line: the dispatch of flows that do not pace
    /// stays as it was).
    #[inline(never)]
    fn pace_timer(&mut self, f: FlowId, at: Time) {
        let now = self.now;
        self.flows[f as usize].sender.on_pace_timer(at, now);
        self.flush_sender(f);
    }

    #[inline(never)]
    fn schedule_pace(&mut self, f: FlowId, at: Time) {
        self.sched.schedule_timer(at, Event::PaceTimer(f, at));
    }

    /// Sends what the sender queued and schedules the timer it asked for.
    fn flush_sender(&mut self, f: FlowId) {
        // Before the packets go out: a drop of a retransmission is not its own cause.
        self.record_losses(f);
        let flow = &mut self.flows[f as usize];
        if let Some(at) = flow.sender.take_timer_request() {
            self.sched.schedule_timer(at, Event::RtoTimer(f, at));
        }
        if let Some(at) = flow.sender.take_pace_request() {
            self.schedule_pace(f, at);
        }
        let mut out = std::mem::take(&mut self.flows[f as usize].sender.outbox);
        self.flows[f as usize].data_sent += out.len() as u64;
        let first = self.first_link(f, PacketKind::Data);
        for p in &mut out {
            self.inject(p, first);
        }
        out.clear();
        self.flows[f as usize].sender.outbox = out;
    }

    /// Moves the loss responses the sender made since the last call into the `losses`
    /// table (streamed with the series), each with its true cause from the drop log,
    /// then prunes the log.
    fn record_losses(&mut self, f: FlowId) {
        if !self.flows[f as usize].sender.losses.is_empty() {
            self.move_losses(f);
        }
        let flow = &mut self.flows[f as usize];
        flow.drop_log.prune(flow.sender.snd_una());
    }

    /// The loss responses of [`World::record_losses`] into the table. (Out of line: most
    /// calls, one per ACK, find none.)
    #[inline(never)]
    fn move_losses(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        let rows = &mut self.series.rows.losses;
        for rec in flow.sender.losses.drain(..) {
            let cause = flow.drop_log.cause_of(&rec);
            records::push_loss(rows, f, &rec, cause);
        }
        self.series.after_rows();
    }

    fn flush_receiver(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if let Some(at) = flow.receiver.take_timer_request() {
            self.sched.schedule_timer(at, Event::DelAckTimer(f, at));
        }
        if let Some(at) = flow.receiver.take_read_request() {
            self.sched.schedule_timer(at, Event::DelAckTimer(f, at));
        }
        let mut out = std::mem::take(&mut self.flows[f as usize].receiver.outbox);
        self.flows[f as usize].acks_sent += out.len() as u64;
        let first = self.first_link(f, PacketKind::Ack);
        for p in &mut out {
            self.inject(p, first);
        }
        out.clear();
        self.flows[f as usize].receiver.outbox = out;
    }

    /// The first link of the route that packets of `kind` of flow `f` take (every flow's
    /// routes were checked to exist when the world was built).
    fn first_link(&self, f: FlowId, kind: PacketKind) -> LinkId {
        let first = self.routes.hop(f, kind, 0);
        first.expect("routes are checked when the world is built")
    }

    /// Puts a packet leaving an endpoint onto `first`, the first link of its path (numbered
    /// where it waits in the endpoint's outbox, which saves a copy).
    fn inject(&mut self, p: &mut Packet, first: LinkId) {
        p.uid = self.next_uid;
        self.next_uid = self.next_uid.wrapping_add(1);
        p.hop = 1;
        if self.traces.active() {
            self.traces.sent(p, self.now);
        }
        self.log_event("send", p, first as i64, "");
        self.link_send(first, p);
    }

    /// Appends to the event log, when the scenario keeps one.
    fn log_event(&mut self, event: &'static str, p: &Packet, link: i64, cause: &'static str) {
        if !self.event_log {
            return;
        }
        let t = self.now.as_secs_f64();
        let (flow, kind, seq, ack) = (p.flow, p.kind.name(), p.seq, p.ack);
        let log = &mut self.series.rows.events;
        log.push(
            t,
            event,
            flow,
            kind,
            seq,
            ack,
            link,
            cause,
            p.retransmit(),
            p.size,
        );
        self.series.after_event();
    }

    /// Offers a packet to a link. Every arrival passes through the queue, even at an
    /// idle link (which then takes it straight back), so an AQM sees every arrival and
    /// idle period, as in NS-2. (The packet is passed by reference down to its copy into
    /// the scheduler: a copy per call was a tenth of the cost of a hop.)
    fn link_send(&mut self, l: LinkId, p: &Packet) {
        if self.is_wireless(l) {
            return self.wifi_send(l, *p);
        }
        let now = self.now;
        if self.traces.active() {
            self.capture(l, TapPoint::Entry, p, now);
        }
        let link = &mut self.links[l as usize];
        if let Some(limits) = link.fifo {
            // A plain FIFO: the packet's start is known now (world/link.rs).
            let (tx, lane) = self.arrival_lanes.get(link, p);
            match link.admit_fifo(limits, p, tx, now) {
                Err(cause) => self.drop_packet(*p, l, cause),
                Ok(start)
                    if start == now
                        || link.backlog.held.is_empty() && self.arrival_lanes.exclusive(lane) =>
                {
                    self.transmit(l, p, start, tx, lane)
                }
                Ok(start) => {
                    // Its arrival would be out of order in a lane that other links use:
                    // the packet is sent at its start.
                    link.backlog.held.push_back(*p);
                    if !link.done_pending {
                        link.done_pending = true;
                        self.sched.schedule(start, Event::LinkDone(l));
                    }
                }
            }
            return;
        }
        if now >= link.busy_until && !link.done_pending {
            // The transmitter is free and nothing waits (packets wait only with a
            // `LinkDone` pending). The queue stays empty, so its length integral needs no
            // update. If the transmitter fell idle at `busy_until` and the queue has not
            // been asked since, it is asked now, with that time, as a `LinkDone` there
            // would have.
            let idle_since = link.idle_unseen.then_some(link.busy_until);
            link.idle_unseen = false;
            match link.queue.offer_idle(*p, idle_since, now) {
                Ok(Some(next)) => {
                    let (tx, lane) = self.arrival_lanes.get(link, &next);
                    self.transmit(l, &next, now, tx, lane)
                }
                // No discipline holds back an arrival at an idle link.
                Ok(None) => debug_assert!(false, "{} held a packet back", link.queue.kind()),
                Err(cause) => self.drop_packet(*p, l, cause),
            }
            return;
        }
        link.account_queue(now);
        if let Err(cause) = link.queue.enqueue(*p, now) {
            self.drop_packet(*p, l, cause);
            return;
        }
        // The packet waits for the transmitter.
        link.note_queue_len();
        if !link.done_pending {
            link.done_pending = true;
            link.idle_unseen = false;
            let at = link.busy_until;
            self.sched.schedule(at, Event::LinkDone(l));
        }
    }

    /// The transmitter of link `l` finished and packets wait: sends the next one.
    fn link_done(&mut self, l: LinkId) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        if link.fifo.is_some() {
            // The first held packet starts now, and the next one right after it.
            link.done_pending = false;
            link.catch_up(now);
            let Some(p) = link.backlog.held.pop_front() else {
                return;
            };
            let (tx, lane) = self.arrival_lanes.get(link, &p);
            self.transmit(l, &p, now, tx, lane);
            let link = &mut self.links[l as usize];
            if !link.backlog.held.is_empty() {
                link.done_pending = true;
                self.sched.schedule(now + tx, Event::LinkDone(l));
            }
            return;
        }
        link.done_pending = false;
        link.idle_unseen = false;
        link.account_queue(now);
        let Some(next) = link.queue.dequeue(now) else {
            return;
        };
        let (tx, lane) = self.arrival_lanes.get(link, &next);
        self.transmit(l, &next, now, tx, lane);
        let link = &mut self.links[l as usize];
        if !link.queue.is_empty() {
            link.done_pending = true;
            link.idle_unseen = false;
            let at = link.busy_until;
            self.sched.schedule(at, Event::LinkDone(l));
        }
    }

    /// Serialises `p` on link `l` from `start` (now, or when the packets ahead of it at a
    /// plain-FIFO link are sent), which takes `tx`, and schedules its arrival at the far
    /// end in `lane` ([`lanes::ArrivalLanes::get`]), or drops it if
    /// the link's loss model says so (the model draws once per transmission, in
    /// transmission order). A jittered link adds its extra delay to the arrival (one draw
    /// per packet not lost, in transmission order; net/jitter.rs), and the pcap exit
    /// capture is stamped with that arrival. Link counters and pcap exit captures count a transmission
    /// that ends by the end of the run, as when they were taken at its end.
    fn transmit(&mut self, l: LinkId, p: &Packet, start: Time, tx: Time, lane: u32) {
        let link = &mut self.links[l as usize];
        let done = start + tx;
        // (A plain-FIFO link may already be busy with packets behind this one.)
        link.busy_until = link.busy_until.max(done);
        link.idle_unseen = true;
        let counted = done <= self.end;
        if counted {
            link.stats.packets_sent += 1;
            link.stats.bytes_sent += p.size as u64;
            if done <= self.measure[0] {
                // Sent before the measurement window (which a snapshot at its start
                // would miss for packets already scheduled at a plain-FIFO link).
                self.link_bytes_at_measure_start[l as usize] += p.size as u64;
            }
        }
        if link.loss.as_mut().is_some_and(|m| m.drops(p)) {
            self.drop_packet(*p, l, DropCause::RandomLoss);
            return;
        }
        let mut arrive_at = done + link.delay;
        if let Some(jitter) = link.jitter.as_mut() {
            // In a lane of its own ([`lanes::ArrivalLanes::get`]), whose order it keeps.
            arrive_at = jitter.arrival(arrive_at);
        }
        if counted && self.traces.active() {
            self.capture(l, TapPoint::Exit, p, arrive_at);
        }
        self.sched.schedule_fifo(lane, arrive_at, Event::Arrive(*p));
    }

    fn drop_packet(&mut self, p: Packet, l: LinkId, cause: DropCause) {
        if self.traces.active() {
            self.traces.dropped(&p);
        }
        // Wireless hops count their drops in the MAC's records.
        if let Some(link) = self.links.get_mut(l as usize) {
            link.stats.drops.add(cause);
        }
        if let Some(u) = self.udp_index(p.flow) {
            self.udp_drop(u, cause);
        } else {
            let flow = &mut self.flows[p.flow as usize];
            match p.kind {
                PacketKind::Ack => flow.ack_drops.add(cause),
                _ => {
                    flow.data_drops.add(cause);
                    flow.drop_log.record(self.now, p.seq, cause);
                }
            }
        }
        self.log_event("drop", &p, l as i64, cause.name());
    }

    fn arrive(&mut self, p: &mut Packet) {
        if let Some(next) = self.routes.next(p) {
            p.hop += 1;
            self.link_send(next, p);
            return;
        }
        if let Some(u) = self.udp_index(p.flow) {
            return self.udp_arrive(u, *p);
        }
        let f = p.flow;
        self.packets_delivered += 1;
        if self.traces.active() {
            self.traces.delivered(p);
        }
        self.log_event("recv", p, -1, "");
        let now = self.now;
        let flow = &mut self.flows[f as usize];
        match p.kind {
            PacketKind::Ack => {
                flow.acks_arrived += 1;
                let options = match p.options_id() {
                    0 => None,
                    id => flow.receiver.options.take(id),
                };
                flow.sender.on_ack(now, p, options.as_ref());
                self.flush_sender(f);
            }
            _ => {
                flow.data_arrived += 1;
                flow.receiver.on_data(now, p);
                self.flush_receiver(f);
            }
        }
    }

    fn sample(&mut self) {
        let t = self.now.as_secs_f64();
        for (i, flow) in self.flows.iter().enumerate() {
            let st = flow.sender.state();
            let s = &mut self.series.rows.flow_series;
            s.time.push(t);
            s.flow.push(i as u32);
            s.cwnd.push(st.cwnd);
            s.ssthresh.push(st.ssthresh.min(1e9));
            s.srtt.push(st.srtt.as_secs_f64());
            s.in_flight.push(st.in_flight);
            s.bytes_delivered.push(flow.receiver.stats.bytes_delivered);
            self.cc_vars.clear();
            flow.sender.variables(&mut self.cc_vars);
            for &(name, value) in &self.cc_vars {
                let c = &mut self.series.rows.cc_series;
                c.time.push(t);
                c.flow.push(i as u32);
                c.name.push(name);
                c.value.push(value);
            }
        }
        for link in self.links.iter_mut().filter(|l| l.monitor) {
            link.catch_up(self.now);
            let q = &mut self.series.rows.queue_series;
            q.time.push(t);
            q.link.push(link.id);
            q.packets.push(link.queue_len() as u32);
            q.bytes.push(link.queue_bytes());
            self.cc_vars.clear();
            link.queue.variables(&mut self.cc_vars);
            for &(name, value) in &self.cc_vars {
                let v = &mut self.series.rows.queue_vars;
                v.time.push(t);
                v.link.push(link.id);
                v.name.push(name);
                v.value.push(value);
            }
        }
        self.wifi.sample(t, &mut self.series.rows.ap_queue);
        self.series.after_rows();
        let next = self.now + self.sample_interval;
        if next <= self.end {
            self.schedule(next, Event::Sample);
        }
    }

    fn snapshot_measure_start(&mut self) {
        let now = self.now;
        for f in &mut self.flows {
            f.bytes_at_measure_start = f.receiver.stats.bytes_delivered;
        }
        self.udp_snapshot_measure_start();
        for (i, l) in self.links.iter_mut().enumerate() {
            self.link_area_at_measure_start[i] = l.queue_area(now);
        }
    }
}
