// What the ns-3 benchmark programs (dumbbell.cc, wlan.cc) share: tcplab's TCP defaults as
// ns-3 configuration, point-to-point links with DropTail queues in packets, the counting
// of delivered packets the way tcplab counts `packets_delivered`, and the peak memory.
#pragma once

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <string>

namespace bench
{

/// Packets at the IP layer larger than this carry payload (pure ACKs are at most 20 + 60).
constexpr uint32_t kMaxPureAckBytes = 80;

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

/// TCP as configured in tcplab's defaults: NewReno with RFC 6582 recovery, 1000-byte
/// segments, initial window 2, an ACK for every segment, min RTO 200 ms, no limited
/// transmit; timestamps off so data packets carry a 40-byte header.
inline void
ConfigureTcp(uint32_t socketBuffer, bool sack)
{
    using namespace ns3;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(socketBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(socketBuffer));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
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
