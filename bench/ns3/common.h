// What the ns-3 benchmark programs (dumbbell.cc, wlan.cc) share: tcplab's TCP profiles as
// ns-3 configuration, point-to-point links with DropTail queues in packets, the counting
// of delivered packets the way tcplab counts `packets_delivered`, per-flow transmission
// counters, and the peak memory.
#pragma once

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace bench
{

/// Packets seen by `MacRx` larger than this carry payload. A pure ACK is at most 20 + 60
/// bytes at the IP layer, plus the 2-byte PPP header of point-to-point devices (82 with
/// timestamps and three SACK blocks); the smallest data packet is 1040.
constexpr uint32_t kMaxPureAckBytes = 100;

/// Packets delivered, counted like tcplab's `packets_delivered`: data packets that reach a
/// receiver, and everything that reaches a sender (pure ACKs plus one SYN-ACK per flow,
/// which `AcksDelivered` subtracts).
struct Delivered
{
    uint64_t data = 0;
    uint64_t received_by_senders = 0;

    uint64_t AcksDelivered(uint64_t flows) const
    {
        return received_by_senders >= flows ? received_by_senders - flows : 0;
    }
};

inline Delivered g_delivered;

/// Trace sink for the devices of receivers (`MacRx`).
inline void
OnReceiverRx(ns3::Ptr<const ns3::Packet> p)
{
    if (p->GetSize() > kMaxPureAckBytes)
    {
        g_delivered.data++;
    }
}

/// Trace sink for the devices of senders (`MacRx`).
inline void
OnSenderRx(ns3::Ptr<const ns3::Packet>)
{
    g_delivered.received_by_senders++;
}

/// TCP as configured in one of tcplab's stack profiles (docs/scenario.md, `[tcp]`).
///
/// `ns2` (tcplab's default): NewReno with RFC 6582 recovery, 1000-byte segments, initial
/// window 2, an ACK for every segment, min RTO 200 ms, no limited transmit; timestamps off
/// so data packets carry a 40-byte header (1040 bytes at the IP layer).
///
/// `linux`: what tcplab's `linux` profile sets where ns-3 has a counterpart: 1448-byte
/// segments with timestamps (1500 bytes at the IP layer), initial window 10, delayed ACKs
/// (every second segment, 40 ms timer), min RTO 200 ms, PRR recovery (ns-3's default),
/// limited transmit (ns-3's default; with SACK, Linux's pipe lets SACKed segments release
/// new ones the same way). Reno flows use TcpLinuxReno, whose congestion avoidance counts
/// the segments an ACK covers as Linux does (ns-3's TcpNewReno grows once per ACK, which
/// halves its growth under delayed ACKs). ns-3 has no RACK-TLP, D-SACK, undo, quick-ack or
/// Linux RTO estimator: see docs/performance.md.
///
/// `segmentSize`, when not 0, replaces the profile's segment size (the payload bytes of a full
/// segment, tcplab's `[tcp] mss`).
inline void
ConfigureTcp(uint32_t socketBuffer,
             bool sack,
             const std::string& stack = "ns2",
             uint32_t segmentSize = 0)
{
    using namespace ns3;
    const bool isLinux = stack == "linux";
    if (!isLinux && stack != "ns2")
    {
        NS_FATAL_ERROR("unknown stack " << stack << " (ns2 or linux)");
    }
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(isLinux ? TcpLinuxReno::GetTypeId() : TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(isLinux ? TcpPrrRecovery::GetTypeId()
                                         : TcpClassicRecovery::GetTypeId()));
    if (segmentSize == 0)
    {
        segmentSize = isLinux ? 1448 : 1000;
    }
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(isLinux ? 10 : 2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(isLinux ? 2 : 1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout",
                       TimeValue(MilliSeconds(isLinux ? 40 : 200)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(socketBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(socketBuffer));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(isLinux));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(isLinux));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
}

/// ns-3's congestion control for one of tcplab's `cc` names under a stack profile.
inline ns3::TypeId
CongestionControl(const std::string& cc, const std::string& stack)
{
    using namespace ns3;
    if (cc == "newreno" || cc == "reno")
    {
        return stack == "linux" ? TcpLinuxReno::GetTypeId() : TcpNewReno::GetTypeId();
    }
    if (cc == "vegas")
    {
        return TcpVegas::GetTypeId();
    }
    if (cc == "cubic")
    {
        // ns-3's defaults are tcp_cubic's: beta 0.7, C 0.4, fast convergence, HyStart on.
        return TcpCubic::GetTypeId();
    }
    if (cc == "bbr")
    {
        // BBR v1 (ns-3's port of tcp_bbr.c); it turns pacing on for its own socket.
        return TcpBbr::GetTypeId();
    }
    NS_FATAL_ERROR("no ns-3 congestion control for cc " << cc);
}

/// Per-flow counters from a sender socket's traces, counted as tcplab counts them: a
/// retransmission is a data segment sent below the highest sequence already sent
/// (tcplab's `seq < snd_max`); loss episodes are entries into CA_LOSS (retransmission
/// timeouts; a backed-off timeout in CA_LOSS is not a new entry), recoveries entries into
/// CA_RECOVERY (fast retransmits).
struct FlowCounters
{
    uint64_t segments = 0;
    uint64_t retransmissions = 0;
    uint64_t loss_episodes = 0;
    uint64_t recoveries = 0;
    uint64_t retransmissions_in_loss = 0; // sent while in CA_LOSS (after a timeout)
    uint64_t data_drops = 0;              // data packets dropped by a full bottleneck queue
    uint64_t drops_in_recovery = 0;       // ... of which dropped while the flow was in recovery
    ns3::TcpSocketState::TcpCongState_t state = ns3::TcpSocketState::CA_OPEN;
    bool sent_any = false;
    ns3::SequenceNumber32 high{0};
    // The socket's latest state, for the periodic samples (SampleFlows).
    bool connected = false;
    uint32_t cwnd = 0;             // bytes
    double srtt = 0;               // seconds; 0 before the first RTT sample
    ns3::SequenceNumber32 acked{0}; // highest cumulative ACK received
    double pacing_bps = 0;         // the socket's pacing rate (used only if pacing is on)
};

inline std::vector<FlowCounters> g_flows;
inline std::ofstream* g_trace = nullptr;
/// Whether the periodic samples (SampleFlows) are taken: their trace sinks are connected only then.
inline bool g_sampling = false;

inline void
OnFlowTx(uint32_t flow, ns3::Ptr<const ns3::Packet> p, const ns3::TcpHeader& h,
     ns3::Ptr<const ns3::TcpSocketBase>)
{
    uint32_t len = p->GetSize();
    if (len == 0)
    {
        return;
    }
    FlowCounters& c = g_flows[flow];
    c.segments++;
    ns3::SequenceNumber32 seq = h.GetSequenceNumber();
    if (c.sent_any && seq < c.high)
    {
        c.retransmissions++;
        if (c.state == ns3::TcpSocketState::CA_LOSS)
        {
            c.retransmissions_in_loss++;
        }
    }
    if (!c.sent_any || seq + len > c.high)
    {
        c.high = seq + len;
    }
    c.sent_any = true;
}

inline void
OnFlowCongState(uint32_t flow, ns3::TcpSocketState::TcpCongState_t old,
            ns3::TcpSocketState::TcpCongState_t now)
{
    using S = ns3::TcpSocketState;
    g_flows[flow].state = now;
    if (now == S::CA_LOSS && old != S::CA_LOSS)
    {
        g_flows[flow].loss_episodes++;
    }
    if (now == S::CA_RECOVERY && old != S::CA_RECOVERY)
    {
        g_flows[flow].recoveries++;
    }
    if (g_trace)
    {
        *g_trace << ns3::Simulator::Now().GetSeconds() << " " << flow << " state " << int(now)
                 << "\n";
    }
}

inline void
OnFlowCwnd(uint32_t flow, uint32_t, uint32_t now)
{
    g_flows[flow].cwnd = now;
    if (g_trace)
    {
        *g_trace << ns3::Simulator::Now().GetSeconds() << " " << flow << " cwnd " << now << "\n";
    }
}

inline void
OnFlowRto(uint32_t flow, ns3::Time, ns3::Time now)
{
    *g_trace << ns3::Simulator::Now().GetSeconds() << " " << flow << " rto " << now.GetSeconds()
             << "\n";
}

inline void
OnFlowSrtt(uint32_t flow, ns3::Time, ns3::Time now)
{
    g_flows[flow].srtt = now.GetSeconds();
}

inline void
OnFlowAck(uint32_t flow, ns3::SequenceNumber32, ns3::SequenceNumber32 now)
{
    g_flows[flow].acked = now;
}

inline void
OnFlowPacingRate(uint32_t flow, ns3::DataRate, ns3::DataRate now)
{
    g_flows[flow].pacing_bps = double(now.GetBitRate());
}

/// Connects the counters and the latest-state fields of flow `flow` (`g_flows` sized
/// beforehand) to its sender socket, and, with `g_trace` open, its cwnd, state and RTO
/// traces as `time flow kind value` lines. Called once the socket exists (its application
/// has started), before the handshake completes.
inline void
ConnectFlowTraces(uint32_t flow, ns3::Ptr<ns3::Socket> socket)
{
    using namespace ns3;
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(socket);
    NS_ABORT_MSG_IF(!s, "flow " << flow << " has no TCP socket yet");
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnFlowTx, flow));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnFlowCongState, flow));
    // Only what is asked for: a sink more costs time in the benchmark's ns-3 runs.
    if (g_trace || g_sampling)
    {
        s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnFlowCwnd, flow));
    }
    if (g_trace)
    {
        s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnFlowRto, flow));
    }
    if (g_sampling)
    {
        s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnFlowSrtt, flow));
        s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnFlowAck, flow));
        s->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&OnFlowPacingRate, flow));
    }
    g_flows[flow].connected = true;
}

/// With `g_sampling` set before the flows connect: writes one line per connected flow, `time flow cwnd_bytes srtt_s bytes_acked pacing_bps`,
/// every `interval` from now on (tcplab's sampled series and the kernel bed's 10 ms
/// tcp_info samples). Bytes acknowledged count from the first data byte: ns-3's initial
/// sequence number is 0, taken by the SYN.
inline void
SampleFlows(std::ostream* out, ns3::Time interval)
{
    const double now = ns3::Simulator::Now().GetSeconds();
    for (size_t i = 0; i < g_flows.size(); i++)
    {
        const FlowCounters& c = g_flows[i];
        if (!c.connected)
        {
            continue;
        }
        const uint32_t ack = c.acked.GetValue();
        *out << now << " " << i << " " << c.cwnd << " " << c.srtt << " " << (ack > 0 ? ack - 1 : 0)
             << " " << c.pacing_bps << "\n";
    }
    ns3::Simulator::Schedule(interval, &SampleFlows, out, interval);
}

/// A JSON array of one counter of every flow.
template <typename F>
std::string
FlowArray(F field)
{
    std::string out = "[";
    for (size_t i = 0; i < g_flows.size(); i++)
    {
        out += (i ? ", " : "") + std::to_string(field(g_flows[i]));
    }
    return out + "]";
}

/// Point-to-point link settings: rate, one-way delay and queue limit in packets.
inline ns3::PointToPointHelper
LinkHelper(const std::string& rate, const std::string& delay, uint32_t buffer)
{
    using namespace ns3;
    PointToPointHelper h;
    h.SetDeviceAttribute("DataRate", StringValue(rate));
    h.SetChannelAttribute("Delay", StringValue(delay));
    h.SetQueue("ns3::DropTailQueue<Packet>",
               "MaxSize",
               QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, buffer)));
    return h;
}

/// Peak resident set size of this process in KiB (Linux `VmHWM`), or -1.
inline long
PeakRssKib()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key)
    {
        if (key == "VmHWM:")
        {
            long kib = -1;
            status >> kib;
            return kib;
        }
        status.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return -1;
}

} // namespace bench
