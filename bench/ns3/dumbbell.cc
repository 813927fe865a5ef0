// ns-3 counterpart of tcplab's `dumbbell` topology preset, for the benchmark suite.
//
//   s_i --access-- r0 ==bottleneck== r1 --access-- d_i      (i = 0 .. flows-1)
//
// Every link is point-to-point with a DropTail queue limited in packets (the packet being
// serialised is not counted, as in tcplab); the traffic-control layer is removed so that
// the device queue is the only queue. Each sender runs a BulkSend application over TCP
// configured as one of tcplab's stack profiles (common.h, ConfigureTcp): with `ns2`,
// NewReno with classic (RFC 6582) recovery, 1000-byte segments and no TCP options on data
// packets (timestamps off), so that a data packet is 1040 bytes at the IP layer like
// tcplab's 1000-byte payload + 40-byte header; with `linux`, 1448-byte segments with
// timestamps (1500 bytes), IW10, delayed ACKs and PRR. `--cc` gives each flow's congestion
// control (newreno, vegas, cubic or bbr); `--segmentSize` replaces the profile's segment
// size (tcplab's `[tcp] mss`).
//
// For the kernel conformance matrix (bench/bbr_side_by_side.py): `--loss` drops data packets
// arriving over the bottleneck with that probability (tcplab's `loss = { model =
// "bernoulli", applies_to = "data" }`, which also draws after the packet has used the link),
// `--starts` gives each flow's start time, and `--samples=FILE` writes every flow's cwnd,
// smoothed RTT, bytes acknowledged and pacing rate every `--sampleInterval` seconds
// (common.h, SampleFlows).
//
// Counted the same way as tcplab's `packets_delivered`:
//   data packets  = packets carrying payload that reach a receiver d_i,
//   ack packets   = pure ACKs that reach a sender s_i (the one SYN-ACK per flow is
//                   subtracted; senders receive nothing else).
// Goodput is the bytes the PacketSink applications received, over the run time, in total
// and per flow; retransmissions, loss episodes (RTO) and recoveries per flow come from the
// sender sockets' traces (common.h, FlowCounters). `--trace=FILE` writes every flow's cwnd,
// congestion state and RTO changes as `time flow kind value` lines.
//
// Prints one JSON object on stdout, with the peak resident set size (VmHWM) at the end.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "common.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace bench;

/// Bernoulli loss of data packets (anything larger than a pure ACK), one draw per data packet;
/// installed as the receive error model at the far end of the bottleneck.
class DataLossModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bench::DataLossModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<DataLossModel>();
        return tid;
    }

    void SetProbability(double p)
    {
        m_p = p;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        return p->GetSize() > kMaxPureAckBytes && m_draw->GetValue() < m_p;
    }

    void DoReset() override
    {
    }

    double m_p = 0;
    Ptr<UniformRandomVariable> m_draw = CreateObject<UniformRandomVariable>();
};

/// Seconds per flow from a comma-separated list (empty: none).
static std::vector<double>
ParseStarts(const std::string& list)
{
    std::vector<double> out;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');)
    {
        out.push_back(std::stod(item));
    }
    return out;
}

/// Source address of each flow's sender, for attributing bottleneck drops to flows.
static std::vector<Ipv4Address> g_senderAddress;

/// Trace sink of the traffic-control layer's `TcDrop` at the router before the bottleneck: a
/// data packet lost (with no queue disc, a full device queue stops the device's transmit
/// queue and the layer drops what arrives; the packet carries its IP header), charged to
/// its flow.
static void
OnBottleneckDrop(Ptr<const Packet> p)
{
    if (p->GetSize() <= kMaxPureAckBytes)
    {
        return;
    }
    Ipv4Header ip;
    p->PeekHeader(ip);
    for (size_t i = 0; i < g_senderAddress.size() && i < g_flows.size(); i++)
    {
        if (g_senderAddress[i] == ip.GetSource())
        {
            g_flows[i].data_drops++;
            // Sent at most an access-link delay ago: the state it was sent in, nearly always.
            if (g_flows[i].state == TcpSocketState::CA_RECOVERY)
            {
                g_flows[i].drops_in_recovery++;
            }
        }
    }
}

int
main(int argc, char* argv[])
{
    uint32_t flows = 2;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "23ms";
    uint32_t bottleneckBuffer = 100;
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    uint32_t accessBuffer = 1000;
    double duration = 200.0;
    bool sack = true;
    uint32_t socketBuffer = 1 << 22;
    uint32_t seed = 1;
    std::string stackProfile = "ns2";
    std::string ccList = "";
    std::string traceFile = "";
    uint32_t startOffsetNs = 0;
    uint32_t segmentSize = 0;
    double loss = 0;
    std::string startList = "";
    std::string samplesFile = "";
    double sampleInterval = 0.01;

    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of sender/receiver pairs", flows);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("bottleneckBuffer", "bottleneck queue limit, packets", bottleneckBuffer);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way delay", accessDelay);
    cmd.AddValue("accessBuffer", "access queue limit, packets", accessBuffer);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("socketBuffer", "TCP send and receive buffer, bytes", socketBuffer);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("stack", "tcplab stack profile to model: ns2 or linux", stackProfile);
    cmd.AddValue("cc", "comma-separated congestion control per flow (default newreno)", ccList);
    cmd.AddValue("trace", "file for cwnd, state and RTO traces (none if empty)", traceFile);
    cmd.AddValue("startOffsetNs",
                 "flow i starts at i times this many nanoseconds (a perturbation)",
                 startOffsetNs);
    cmd.AddValue("segmentSize", "payload bytes of a full segment (0: the profile's)", segmentSize);
    cmd.AddValue("loss", "probability of losing a data packet on the bottleneck", loss);
    cmd.AddValue("starts", "comma-separated start time of each flow, seconds", startList);
    cmd.AddValue("samples", "file for per-flow samples (none if empty)", samplesFile);
    cmd.AddValue("sampleInterval", "seconds between samples", sampleInterval);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    ConfigureTcp(socketBuffer, sack, stackProfile, segmentSize);
    std::vector<std::string> ccs;
    {
        std::stringstream list(ccList);
        for (std::string item; std::getline(list, item, ',');)
        {
            ccs.push_back(item);
        }
    }
    if (ccs.empty())
    {
        ccs.assign(flows, "newreno");
    }
    NS_ABORT_MSG_IF(ccs.size() != flows, "--cc names " << ccs.size() << " flows, not " << flows);
    std::vector<double> starts = ParseStarts(startList);
    if (starts.empty())
    {
        for (uint32_t i = 0; i < flows; i++)
        {
            starts.push_back(i * (startOffsetNs * 1e-9));
        }
    }
    NS_ABORT_MSG_IF(starts.size() != flows,
                    "--starts names " << starts.size() << " flows, not " << flows);
    NS_ABORT_MSG_IF(loss < 0 || loss >= 1, "--loss must be in [0, 1), not " << loss);
    std::ofstream trace;
    if (!traceFile.empty())
    {
        trace.open(traceFile);
        g_trace = &trace;
    }
    std::ofstream samples;
    if (!samplesFile.empty())
    {
        samples.open(samplesFile);
        g_sampling = true;
    }
    g_flows.assign(flows, FlowCounters{});

    NodeContainer routers(2);
    NodeContainer senders(flows);
    NodeContainer receivers(flows);
    InternetStackHelper stack;
    stack.Install(routers);
    stack.Install(senders);
    stack.Install(receivers);
    for (uint32_t i = 0; i < flows; i++)
    {
        Config::Set("/NodeList/" + std::to_string(senders.Get(i)->GetId()) +
                        "/$ns3::TcpL4Protocol/SocketType",
                    TypeIdValue(CongestionControl(ccs[i], stackProfile)));
    }

    PointToPointHelper bottleneck = LinkHelper(bottleneckRate, bottleneckDelay, bottleneckBuffer);
    PointToPointHelper access = LinkHelper(accessRate, accessDelay, accessBuffer);

    TrafficControlHelper tc;
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    auto connect = [&](PointToPointHelper& h, Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer d = h.Install(a, b);
        // Assigning addresses installs ns-3's default queue disc; remove it afterwards.
        Ipv4InterfaceContainer ifs = addresses.Assign(d);
        tc.Uninstall(d);
        addresses.NewNetwork();
        return std::make_pair(d, ifs);
    };

    auto [bd, bifs] = connect(bottleneck, routers.Get(0), routers.Get(1));
    if (loss > 0)
    {
        Ptr<DataLossModel> model = CreateObject<DataLossModel>();
        model->SetProbability(loss);
        bd.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(model));
    }
    NS_ABORT_MSG_IF(!routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
                        "TcDrop",
                        MakeCallback(&OnBottleneckDrop)),
                    "no TcDrop trace source");
    std::vector<Ipv4Address> receiverAddress;
    for (uint32_t i = 0; i < flows; i++)
    {
        auto [sd, sifs] = connect(access, senders.Get(i), routers.Get(0));
        sd.Get(0)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnSenderRx));
        auto [rd, rifs] = connect(access, routers.Get(1), receivers.Get(i));
        rd.Get(1)->TraceConnectWithoutContext("MacRx", MakeCallback(&OnReceiverRx));
        receiverAddress.push_back(rifs.GetAddress(1));
        g_senderAddress.push_back(sifs.GetAddress(0));
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    ApplicationContainer sinks;
    ApplicationContainer sources;
    for (uint32_t i = 0; i < flows; i++)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.Add(sink.Install(receivers.Get(i)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(receiverAddress[i], port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1000));
        sources.Add(bulk.Install(senders.Get(i)));
    }
    sinks.Start(Seconds(0));
    for (uint32_t i = 0; i < flows; i++)
    {
        Time start = NanoSeconds(int64_t(std::llround(starts[i] * 1e9)));
        sources.Get(i)->SetStartTime(start);
        // The socket exists once the application has started; only the SYN precedes.
        Simulator::Schedule(start + NanoSeconds(1), [&sources, i]() {
            ConnectFlowTraces(i, DynamicCast<BulkSendApplication>(sources.Get(i))->GetSocket());
        });
    }
    if (g_sampling)
    {
        Simulator::Schedule(Seconds(0),
                            &SampleFlows,
                            static_cast<std::ostream*>(&samples),
                            Seconds(sampleInterval));
    }

    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    uint64_t bytes = 0;
    std::string flowGoodput = "[";
    for (uint32_t i = 0; i < sinks.GetN(); i++)
    {
        uint64_t b = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
        bytes += b;
        std::ostringstream g;
        g.precision(12);
        g << b * 8.0 / duration;
        flowGoodput += (i ? ", " : "") + g.str();
    }
    flowGoodput += "]";
    uint64_t acks = g_delivered.AcksDelivered(flows);
    std::cout << "{\"simulator\": \"ns-3\", \"flows\": " << flows
              << ", \"duration\": " << duration << ", \"sack\": " << (sack ? "true" : "false")
              << ", \"data_delivered\": " << g_delivered.data << ", \"acks_delivered\": " << acks
              << ", \"packets_delivered\": " << g_delivered.data + acks
              << ", \"bytes_delivered\": " << bytes
              << ", \"goodput_bps\": " << bytes * 8.0 / duration
              << ", \"stack\": \"" << stackProfile << "\""
              << ", \"flow_goodput_bps\": " << flowGoodput
              << ", \"flow_segments_sent\": "
              << FlowArray([](const FlowCounters& c) { return c.segments; })
              << ", \"flow_retransmissions\": "
              << FlowArray([](const FlowCounters& c) { return c.retransmissions; })
              << ", \"flow_timeouts\": "
              << FlowArray([](const FlowCounters& c) { return c.loss_episodes; })
              << ", \"flow_recoveries\": "
              << FlowArray([](const FlowCounters& c) { return c.recoveries; })
              << ", \"flow_retransmissions_in_loss\": "
              << FlowArray([](const FlowCounters& c) { return c.retransmissions_in_loss; })
              << ", \"flow_data_drops\": "
              << FlowArray([](const FlowCounters& c) { return c.data_drops; })
              << ", \"flow_drops_in_recovery\": "
              << FlowArray([](const FlowCounters& c) { return c.drops_in_recovery; })
              << ", \"events\": " << Simulator::GetEventCount()
              << ", \"peak_rss_kib\": " << PeakRssKib() << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}
