package httpserve

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// trustedProxies are the load balancers (--trusted-proxies) whose
// X-Forwarded-For header names the client a connection's request is for.
// From anyone else the header is ignored: a client cannot name itself
// another client to get another share.
type trustedProxies []netip.Prefix

// parseTrustedProxies reads CIDRs or single addresses.
func parseTrustedProxies(list []string) (trustedProxies, error) {
	var t trustedProxies
	for _, s := range list {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				return nil, fmt.Errorf("--trusted-proxies %q: want an address or a CIDR (10.0.0.0/8, 2001:db8::/32)", s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		t = append(t, p.Masked())
	}
	return t, nil
}

func (t trustedProxies) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peer is the client a connection from addr is counted as, and whether
// addr is a trusted proxy's.
func (t trustedProxies) peer(addr net.Addr) (client string, proxy bool) {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String(), false
	}
	return clientKey(ap.Addr()), t.contains(ap.Addr())
}

// forwardedClient is the client a trusted proxy's request is for: the
// right-most X-Forwarded-For entry that is not a trusted proxy (each proxy
// appends the address it was reached from; what lies left of the first
// untrusted entry the client wrote itself). All entries trusted: the
// left-most. No header, or an entry that is not an address (no trusted
// proxy writes one): the proxy itself (peer).
func (t trustedProxies) forwardedClient(header []string, peer string) string {
	var entries []string
	for _, h := range header {
		entries = append(entries, strings.Split(h, ",")...)
	}
	client := peer
	for i := len(entries) - 1; i >= 0; i-- {
		a, ok := forwardedAddr(strings.TrimSpace(entries[i]))
		if !ok {
			return peer
		}
		client = clientKey(a)
		if !t.contains(a) {
			break
		}
	}
	return client
}

// forwardedAddr reads an X-Forwarded-For entry: an address, perhaps with
// a port or IPv6 brackets.
func forwardedAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr(), true
	}
	return netip.Addr{}, false
}

// clientKey names the client at a: an IPv4 address, or an IPv6 /64 (one
// host usually has a whole /64 to pick addresses from).
func clientKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}
