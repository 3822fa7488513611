"""Which addresses may send the appliance a call ([sip] allowed_peers).

    peers = PeerFilter(("192.168.1.10", "10.0.0.0/24"))
    peers.allows("192.168.1.10:5060")      # pjsip's "host:port" (IPv6 as "[::1]:5060")

Calls from anyone else are refused with 403; the log names the address,
never the caller's number.
"""

from __future__ import annotations

import ipaddress


def host_of(address: str) -> str:
    """The host part of pjsip's "host:port", "[v6]:port" or a bare address."""
    address = address.strip()
    if address.startswith("["):
        return address[1:].split("]", 1)[0]
    if address.count(":") == 1:
        return address.split(":", 1)[0]
    return address


class PeerFilter:
    def __init__(self, allowed: tuple[str, ...] | list[str]):
        self.networks = tuple(ipaddress.ip_network(peer, strict=False) for peer in allowed)

    def allows(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(host_of(address))
        except ValueError:
            return False
        if ip.version == 6 and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return any(ip.version == net.version and ip in net for net in self.networks)
