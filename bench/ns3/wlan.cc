// ns-3 counterpart of tcplab's `wlan` topology preset (paper 004's set-up), for the
// benchmark suite's scenario (d).
//
//   w_i ))) 802.11a ((( ap --wired-- h0          (i = 0 .. stations-1)
//
// Stations and the AP form one infrastructure BSS on 802.11a without QoS (plain DCF, so no
// aggregation and no block acknowledgements), at a constant data rate. ns-3 sends control
// responses (MAC ACKs) at the highest rate of the BSS basic rate set not above the rate of
// the frame they answer; for 802.11a its basic set is the mandatory rates 6, 12 and
// 24 Mb/s, so ACKs of 54 Mb/s DATA go at 24 Mb/s, tcplab's default `mac.basic_rate`. The
// program reports the rate of the AP's MAC ACKs and bench/run.py checks it against the
// scenario's basic rate (`--basicRate` also sets the RTS/CTS rate). The AP
// stands at the origin and the stations on a circle around it at `distance` metres,
// evenly spaced, as tcplab places them. Path loss is log-distance anchored at the Friis
// loss at 1 m for tcplab's carrier frequency (exponent 2: free space, tcplab's default),
// with tcplab's transmit power, noise floor and carrier-sense threshold, so every node
// hears every other one far above the carrier-sense threshold.
//
// The AP reaches the wired host h0 over a point-to-point link with DropTail queues in
// packets. The traffic-control layer is removed everywhere, so the device queues are the
// only queues. The Wi-Fi queues hold the frame in service (ns-3 keeps an MPDU in its queue
// until it is acknowledged or dropped), so their limit is tcplab's limit plus one, and
// their MSDU lifetime is made long enough never to expire a frame.
//
// Each station runs one BulkSend over NewReno to its own PacketSink on h0, with the TCP
// settings of dumbbell.cc. Stations must associate with the AP before they can send
// (beacons, association request and response): the applications start at `--warmup`
// and run for `--duration` seconds, and goodput is over those seconds.
//
// Counted the same way as tcplab's `packets_delivered` and as dumbbell.cc:
//   data packets  = packets carrying payload that reach h0,
//   ack packets   = packets that stations pass up to IP (pure ACKs and one SYN-ACK per
//                   flow, which is subtracted).
// Also reported, for the comparison in docs/performance.md: per-flow goodput, packets
// dropped at the AP (queue full, retry limit) and at the stations, retransmission
// timeouts (entries into TCP's loss state), DATA transmissions and
// failed attempts, and the rate of the last MAC ACK the AP sent (a check of the basic rate).
//
// Prints one JSON object on stdout, with the peak resident set size (VmHWM) at the end.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include "common.h"

#include <cmath>
#include <cstdint>
#include <iostream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace bench;

namespace
{

/// bench::kMaxPureAckBytes for an MSDU in the Wi-Fi MAC, which carries an 8-byte LLC/SNAP
/// header.
constexpr uint32_t kMaxPureAckMsduBytes = kMaxPureAckBytes + 8;

/// What this program counts besides the delivered packets (bench::g_delivered).
struct Counters
{
    uint64_t associated = 0;
    uint64_t timeouts = 0;
    // Packets dropped at the AP and at the stations, by kind and reason: queue full (the
    // traffic-control layer's drops, or the MAC's failed enqueues) or the retry limit.
    uint64_t ap_ack_overflow = 0;
    uint64_t ap_ack_retry = 0;
    uint64_t ap_other = 0;
    uint64_t sta_data_overflow = 0;
    uint64_t sta_data_retry = 0;
    uint64_t sta_other = 0;
    // DATA frames put on the air (first attempts and retries) and failed attempts.
    uint64_t data_attempts = 0;
    uint64_t data_failures = 0;
    // Mode of the last MAC ACK the AP sent (the first ones answer management frames,
    // which go at the lowest rate).
    std::string ap_ack_mode;
};

Counters g_counters;

/// A sender entered the loss state: its retransmission timer expired (an RTO that backs
/// off again without leaving the state is not counted again).
void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_counters.timeouts++;
    }
}

void
OnAssoc(Mac48Address)
{
    g_counters.associated++;
}

void
OnApDrop(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    bool ack = mpdu->GetHeader().IsData() && mpdu->GetPacket()->GetSize() <= kMaxPureAckMsduBytes;
    if (ack && reason == WIFI_MAC_DROP_FAILED_ENQUEUE)
    {
        g_counters.ap_ack_overflow++;
    }
    else if (ack && reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
    {
        g_counters.ap_ack_retry++;
    }
    else
    {
        g_counters.ap_other++;
    }
}

void
OnStaDrop(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    bool data = mpdu->GetHeader().IsData() && mpdu->GetPacket()->GetSize() > kMaxPureAckMsduBytes;
    if (data && reason == WIFI_MAC_DROP_FAILED_ENQUEUE)
    {
        g_counters.sta_data_overflow++;
    }
    else if (data && reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
    {
        g_counters.sta_data_retry++;
    }
    else
    {
        g_counters.sta_other++;
    }
}

/// A packet the traffic-control layer could not hand to a full device queue (with no
/// queue disc installed, a full Wi-Fi queue stops the device queue and the layer drops):
/// the queue overflow of tcplab's interface queues.
void
OnApQueueFull(Ptr<const Packet> p)
{
    if (p->GetSize() <= kMaxPureAckBytes)
    {
        g_counters.ap_ack_overflow++;
    }
    else
    {
        g_counters.ap_other++;
    }
}

void
OnStaQueueFull(Ptr<const Packet> p)
{
    if (p->GetSize() > kMaxPureAckBytes)
    {
        g_counters.sta_data_overflow++;
    }
    else
    {
        g_counters.sta_other++;
    }
}

void
OnDataFailed(Mac48Address)
{
    g_counters.data_failures++;
}

void
OnPsduTxBegin(bool isAp, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& h = psdu->GetHeader(0);
        if (h.IsData())
        {
            g_counters.data_attempts++;
        }
        else if (isAp && h.IsAck())
        {
            g_counters.ap_ack_mode = txVector.GetMode().GetUniqueName();
        }
    }
}

/// ns-3's name of an 802.11a OFDM rate given in Mb/s, or "" if there is none.
std::string
OfdmModeName(uint32_t mbps)
{
    for (uint32_t r : {6, 9, 12, 18, 24, 36, 48, 54})
    {
        if (r == mbps)
        {
            return "OfdmRate" + std::to_string(mbps) + "Mbps";
        }
    }
    return "";
}

[[noreturn]] void
Fail(const std::string& what)
{
    std::cerr << "wlan: " << what << std::endl;
    std::exit(2);
}

/// Connects a trace source, failing loudly if the name does not exist (TraceConnect
/// returns false rather than complaining, so a misspelt source would count nothing).
template <typename Callback>
void
Trace(Ptr<Object> object, const std::string& source, Callback cb)
{
    if (!object->TraceConnectWithoutContext(source, cb))
    {
        Fail("no trace source " + source + " on " + object->GetInstanceTypeId().GetName());
    }
}

/// The Wi-Fi MAC of a device.
Ptr<WifiMac>
MacOf(Ptr<NetDevice> d)
{
    return DynamicCast<WifiNetDevice>(d)->GetMac();
}

} // namespace

int
main(int argc, char* argv[])
{
    // Defaults are tcplab's `wlan` defaults (004's set-up); bench/run.py passes every value
    // from bench/scenarios/d.toml.
    uint32_t stations = 16;
    double distance = 4.0;
    uint32_t apBuffer = 100;
    uint32_t stationBuffer = 10000;
    std::string wiredRate = "100Mbps";
    std::string wiredDelay = "100ms";
    uint32_t wiredBuffer = 1000;
    uint32_t dataMbps = 54;
    uint32_t basicMbps = 24;
    double slotUs = 9;
    double sifsUs = 16;
    double difsUs = 34;
    uint32_t cwMin = 15;
    uint32_t cwMax = 1023;
    uint32_t retryLimit = 7;
    bool rtsCts = false;
    double txPowerDbm = 20.0;
    double frequencyHz = 5.2e9;
    double pathLossExponent = 2.0;
    double noiseDbm = -96.0;
    double csThresholdDbm = -82.0;
    double duration = 100.0;
    double warmup = 1.0;
    bool sack = true;
    uint32_t socketBuffer = 1 << 24;
    uint32_t seed = 1;

    CommandLine cmd(__FILE__);
    cmd.AddValue("stations", "number of stations", stations);
    cmd.AddValue("distance", "distance of every station from the AP, m", distance);
    cmd.AddValue("apBuffer", "AP queue limit, packets, excluding the frame in service", apBuffer);
    cmd.AddValue("stationBuffer", "station queue limit, packets", stationBuffer);
    cmd.AddValue("wiredRate", "AP--h0 link rate", wiredRate);
    cmd.AddValue("wiredDelay", "AP--h0 one-way delay", wiredDelay);
    cmd.AddValue("wiredBuffer", "AP--h0 queue limit, packets", wiredBuffer);
    cmd.AddValue("dataRate", "DATA rate, Mb/s (an 802.11a rate)", dataMbps);
    cmd.AddValue("basicRate", "highest basic rate (MAC ACKs, RTS, CTS), Mb/s", basicMbps);
    cmd.AddValue("slot", "slot time, us", slotUs);
    cmd.AddValue("sifs", "SIFS, us", sifsUs);
    cmd.AddValue("difs", "DIFS, us (SIFS + a whole number of slots)", difsUs);
    cmd.AddValue("cwMin", "CWmin", cwMin);
    cmd.AddValue("cwMax", "CWmax", cwMax);
    cmd.AddValue("retryLimit", "transmission attempts of a frame before it is dropped", retryLimit);
    cmd.AddValue("rtsCts", "RTS/CTS before every DATA frame", rtsCts);
    cmd.AddValue("txPower", "transmit power, dBm", txPowerDbm);
    cmd.AddValue("frequency", "carrier frequency for the 1 m reference loss, Hz", frequencyHz);
    cmd.AddValue("pathLossExponent", "log-distance path-loss exponent", pathLossExponent);
    cmd.AddValue("noise", "noise floor in 20 MHz, dBm", noiseDbm);
    cmd.AddValue("csThreshold", "carrier-sense (CCA) sensitivity, dBm", csThresholdDbm);
    cmd.AddValue("duration", "simulated seconds of traffic", duration);
    cmd.AddValue("warmup", "seconds for association before the flows start", warmup);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("socketBuffer", "TCP send and receive buffer, bytes", socketBuffer);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.Parse(argc, argv);
    RngSeedManager::SetRun(seed);

    const std::string dataMode = OfdmModeName(dataMbps);
    const std::string basicMode = OfdmModeName(basicMbps);
    if (dataMode.empty() || basicMode.empty())
    {
        Fail("dataRate and basicRate must be 802.11a rates (6, 9, 12, 18, 24, 36, 48, 54)");
    }
    const double aifsnExact = (difsUs - sifsUs) / slotUs;
    const auto aifsn = static_cast<uint8_t>(std::lround(aifsnExact));
    if (std::abs(aifsnExact - aifsn) > 1e-9 || aifsn < 1)
    {
        Fail("DIFS must be SIFS plus a whole number of slots (ns-3 sets it by AIFSN)");
    }

    // TCP as in dumbbell.cc (tcplab's defaults).
    ConfigureTcp(socketBuffer, sack);

    // Retry limit: attempts of a frame (802.11 dot11ShortRetryLimit; ns-3 counts it per MAC).
    Config::SetDefault("ns3::WifiMac::FrameRetryLimit", UintegerValue(retryLimit));
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold",
                       UintegerValue(rtsCts ? 0 : 65535));

    NodeContainer staNodes(stations);
    NodeContainer apNode(1);
    NodeContainer wiredNode(1);

    // Positions: the AP at the origin, station k at angle 2 pi k / n, as tcplab.
    MobilityHelper mobility;
    Ptr<ListPositionAllocator> positions = CreateObject<ListPositionAllocator>();
    positions->Add(Vector(0, 0, 0));
    for (uint32_t k = 0; k < stations; k++)
    {
        double angle = 2 * std::numbers::pi * k / stations;
        positions->Add(Vector(distance * std::cos(angle), distance * std::sin(angle), 0));
    }
    mobility.SetPositionAllocator(positions);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(apNode);
    mobility.Install(staNodes);

    // Channel: log-distance loss with tcplab's reference (Friis at 1 m) and exponent.
    const double referenceLossDb =
        20 * std::log10(4 * std::numbers::pi * frequencyHz / 299792458.0);
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel",
                               "Exponent",
                               DoubleValue(pathLossExponent),
                               "ReferenceDistance",
                               DoubleValue(1.0),
                               "ReferenceLoss",
                               DoubleValue(referenceLossDb));
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("TxPowerStart", DoubleValue(txPowerDbm));
    phy.Set("TxPowerEnd", DoubleValue(txPowerDbm));
    // ns-3's noise floor is thermal noise in the channel width plus this noise figure.
    const double thermalDbm = -174.0 + 10 * std::log10(20e6);
    phy.Set("RxNoiseFigure", DoubleValue(noiseDbm - thermalDbm));
    phy.Set("CcaSensitivity", DoubleValue(csThresholdDbm));

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                 "DataMode",
                                 StringValue(dataMode),
                                 "ControlMode",
                                 StringValue(basicMode));

    WifiMacHelper mac;
    Ssid ssid("tcplab-bench");
    mac.SetType("ns3::StaWifiMac", "Ssid", SsidValue(ssid), "QosSupported", BooleanValue(false));
    NetDeviceContainer staDevices = wifi.Install(phy, mac, staNodes);
    mac.SetType("ns3::ApWifiMac", "Ssid", SsidValue(ssid), "QosSupported", BooleanValue(false));
    NetDeviceContainer apDevices = wifi.Install(phy, mac, apNode);

    NetDeviceContainer wifiDevices(apDevices, staDevices);
    for (uint32_t i = 0; i < wifiDevices.GetN(); i++)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(wifiDevices.Get(i));
        Ptr<WifiPhy> p = dev->GetPhy();
        p->SetSlot(MicroSeconds(slotUs));
        p->SetSifs(MicroSeconds(sifsUs));
        Ptr<Txop> txop = dev->GetMac()->GetTxop();
        txop->SetMinCw(cwMin);
        txop->SetMaxCw(cwMax);
        txop->SetAifsn(aifsn);
        Ptr<WifiMacQueue> queue = txop->GetWifiMacQueue();
        const uint32_t limit = (i == 0 ? apBuffer : stationBuffer) + 1; // + frame in service
        queue->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, limit));
        queue->SetMaxDelay(Seconds(warmup + duration + 1000));
        Ptr<WifiRemoteStationManager> manager = dev->GetRemoteStationManager();
        bool isAp = (i == 0);
        Trace(p, "PhyTxPsduBegin", MakeBoundCallback(&OnPsduTxBegin, isAp));
        Trace(manager, "MacTxDataFailed", MakeCallback(&OnDataFailed));
        Trace(dev->GetMac(), "DroppedMpdu", MakeCallback(isAp ? &OnApDrop : &OnStaDrop));
    }

    PointToPointHelper wired = LinkHelper(wiredRate, wiredDelay, wiredBuffer);
    NetDeviceContainer wiredDevices = wired.Install(apNode.Get(0), wiredNode.Get(0));

    InternetStackHelper stack;
    stack.Install(apNode);
    stack.Install(staNodes);
    stack.Install(wiredNode);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.0.0", "255.255.0.0");
    addresses.Assign(wifiDevices);
    addresses.SetBase("10.2.0.0", "255.255.255.252");
    Ipv4InterfaceContainer wiredIfs = addresses.Assign(wiredDevices);
    // Assigning addresses installs ns-3's default queue discs; remove them.
    TrafficControlHelper tc;
    tc.Uninstall(wifiDevices);
    tc.Uninstall(wiredDevices);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // tcplab has no ARP: fill every neighbour cache up front.
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    Trace(wiredDevices.Get(1), "MacRx", MakeCallback(&OnReceiverRx));
    Trace(apNode.Get(0)->GetObject<TrafficControlLayer>(), "TcDrop", MakeCallback(&OnApQueueFull));
    for (uint32_t i = 0; i < staDevices.GetN(); i++)
    {
        Ptr<WifiMac> m = MacOf(staDevices.Get(i));
        Trace(m, "MacRx", MakeCallback(&OnSenderRx));
        Trace(m, "Assoc", MakeCallback(&OnAssoc));
        Trace(staNodes.Get(i)->GetObject<TrafficControlLayer>(),
              "TcDrop",
              MakeCallback(&OnStaQueueFull));
    }

    const Ipv4Address sinkAddress = wiredIfs.GetAddress(1);
    ApplicationContainer sinks;
    ApplicationContainer sources;
    for (uint32_t i = 0; i < stations; i++)
    {
        const uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.Add(sink.Install(wiredNode.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(sinkAddress, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(1000));
        sources.Add(bulk.Install(staNodes.Get(i)));
    }
    sinks.Start(Seconds(0));
    sources.Start(Seconds(warmup));

    uint64_t associatedAtStart = 0;
    Simulator::Schedule(Seconds(warmup), [&associatedAtStart]() {
        associatedAtStart = g_counters.associated;
    });
    // The senders' sockets exist once their applications have started.
    Simulator::Schedule(Seconds(warmup) + NanoSeconds(1), [&staNodes]() {
        for (uint32_t i = 0; i < staNodes.GetN(); i++)
        {
            std::string path = "/NodeList/" + std::to_string(staNodes.Get(i)->GetId()) +
                               "/$ns3::TcpL4Protocol/SocketList/*/CongState";
            if (!Config::ConnectWithoutContextFailSafe(path, MakeCallback(&OnCongState)))
            {
                Fail("no TCP socket at " + path);
            }
        }
    });
    Simulator::Stop(Seconds(warmup + duration));
    Simulator::Run();

    uint64_t bytes = 0;
    std::ostringstream perFlow;
    for (uint32_t i = 0; i < sinks.GetN(); i++)
    {
        uint64_t b = DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
        bytes += b;
        perFlow << (i ? ", " : "") << b * 8.0 / duration;
    }
    uint64_t acks = g_delivered.AcksDelivered(stations);
    Ptr<WifiNetDevice> ap = DynamicCast<WifiNetDevice>(apDevices.Get(0));
    Ptr<Txop> apTxop = ap->GetMac()->GetTxop();
    std::cout << "{\"simulator\": \"ns-3\", \"flows\": " << stations
              << ", \"duration\": " << duration << ", \"sack\": " << (sack ? "true" : "false")
              << ", \"data_delivered\": " << g_delivered.data << ", \"acks_delivered\": " << acks
              << ", \"packets_delivered\": " << g_delivered.data + acks
              << ", \"bytes_delivered\": " << bytes
              << ", \"goodput_bps\": " << bytes * 8.0 / duration
              << ", \"flow_goodput_bps\": [" << perFlow.str() << "]"
              << ", \"timeouts\": " << g_counters.timeouts
              << ", \"events\": " << Simulator::GetEventCount()
              << ", \"wifi\": {\"associated_at_start\": " << associatedAtStart
              << ", \"ap_ack_drops_overflow\": " << g_counters.ap_ack_overflow
              << ", \"ap_ack_drops_retry\": " << g_counters.ap_ack_retry
              << ", \"ap_other_drops\": " << g_counters.ap_other
              << ", \"station_data_drops_overflow\": " << g_counters.sta_data_overflow
              << ", \"station_data_drops_retry\": " << g_counters.sta_data_retry
              << ", \"station_other_drops\": " << g_counters.sta_other
              << ", \"data_attempts\": " << g_counters.data_attempts
              << ", \"data_failures\": " << g_counters.data_failures
              << ", \"ap_ack_mode\": \"" << g_counters.ap_ack_mode << "\""
              << ", \"slot_us\": " << ap->GetPhy()->GetSlot().GetMicroSeconds()
              << ", \"sifs_us\": " << ap->GetPhy()->GetSifs().GetMicroSeconds()
              << ", \"aifsn\": " << +apTxop->GetAifsn() << ", \"cw_min\": " << apTxop->GetMinCw()
              << ", \"cw_max\": " << apTxop->GetMaxCw()
              << ", \"frame_retry_limit\": " << ap->GetMac()->GetFrameRetryLimit() << "}"
              << ", \"peak_rss_kib\": " << PeakRssKib() << "}" << std::endl;
    Simulator::Destroy();
    return 0;
}
