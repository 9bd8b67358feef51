//! Which network addresses the service's own requests may reach — the crawler's fetches and
//! webhook deliveries alike. Library sites and portals are public; a start URL, a link, a
//! webhook URL or a redirect that leads to a private, loopback or link-local address is refused
//! (unless the operator allows private networks), so that the service cannot be used to probe
//! the network it runs in. Names are checked after resolution, by the resolver the HTTP client connects
//! with, so a public name that resolves to a private address is refused too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether `ip` is private, loopback, link-local or otherwise not a public unicast address.
/// An IPv6 address that embeds an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo) is
/// judged by the IPv4 address it reaches as well.
fn is_non_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_non_public_v4(v4),
        IpAddr::V6(v6) => {
            is_non_public_v6_range(v6) || embedded_v4(v6).into_iter().any(is_non_public_v4)
        }
    }
}

fn is_non_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments 192.0.0.0/24
        || (a == 198 && (b == 18 || b == 19)) // benchmarking 198.18.0.0/15
        || a >= 240 // reserved
}

/// IPv6 ranges that are not public whatever follows the prefix.
fn is_non_public_v6_range(v6: Ipv6Addr) -> bool {
    let s = v6.segments();
    v6.is_loopback()
        || v6.is_unspecified()
        || v6.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (s[0] & 0xffc0) == 0xfec0 // deprecated site-local fec0::/10
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) // local-use NAT64 64:ff9b:1::/48
        || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation 2001:db8::/32
        || (s[0] & 0xfff0) == 0x3ff0 // documentation 3fff::/20
        || (s[0] == 0x2001 && s[1] == 0x0002 && s[2] == 0) // benchmarking 2001:2::/48
        || (s[0] == 0x2001 && (s[1] & 0xfff0) == 0x0010) // deprecated ORCHID 2001:10::/28
        || (s[0] == 0x0100 && s[1..4] == [0, 0, 0]) // discard-only 100::/64
}

/// The IPv4 addresses an IPv6 address embeds and reaches: IPv4-mapped `::ffff:a.b.c.d`,
/// IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`, 6to4 `2002:AABB:CCDD::/48`, and
/// Teredo `2001:0:SSSS:SSSS:…:CCCC:CCCC` (its server, and its client with every bit flipped).
fn embedded_v4(v6: Ipv6Addr) -> Vec<Ipv4Addr> {
    let s = v6.segments();
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match s {
        [0, 0, 0, 0, 0, 0xffff, high, low]
        | [0, 0, 0, 0, 0, 0, high, low]
        | [0x64, 0xff9b, 0, 0, 0, 0, high, low] => vec![v4(high, low)],
        [0x2002, high, low, ..] => vec![v4(high, low)],
        [
            0x2001,
            0,
            server_high,
            server_low,
            _,
            _,
            client_high,
            client_low,
        ] => vec![v4(server_high, server_low), v4(!client_high, !client_low)],
        _ => Vec::new(),
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A host name resolved only to addresses the crawler may not reach.
#[derive(Debug, thiserror::Error)]
#[error("`{host}` resolves to {ip}, a private, loopback or link-local address")]
pub struct NonPublicAddress {
    pub host: String,
    pub ip: IpAddr,
}

/// The HTTP client's resolver: the system resolver, with non-public addresses removed unless
/// they are allowed. A name with no public address fails with [`NonPublicAddress`].
#[derive(Debug, Clone, Copy)]
pub struct CheckedResolver {
    pub allow_private: bool,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let allow_private = self.allow_private;
        Box::pin(async move {
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|e| -> BoxError { Box::new(e) })?
                .collect();
            let addrs = filter_addresses(&host, resolved, allow_private)
                .map_err(|e| -> BoxError { Box::new(e) })?;
            Ok::<Addrs, BoxError>(Box::new(addrs.into_iter()))
        })
    }
}

/// Keeps the addresses the crawler may reach; fails when none is left.
pub fn filter_addresses(
    host: &str,
    resolved: Vec<SocketAddr>,
    allow_private: bool,
) -> Result<Vec<SocketAddr>, NonPublicAddress> {
    if allow_private {
        return Ok(resolved);
    }
    let first_refused = resolved.iter().find(|a| is_non_public(a.ip())).copied();
    let allowed: Vec<SocketAddr> = resolved
        .into_iter()
        .filter(|a| !is_non_public(a.ip()))
        .collect();
    match (allowed.is_empty(), first_refused) {
        (true, Some(refused)) => Err(NonPublicAddress {
            host: host.to_string(),
            ip: refused.ip(),
        }),
        _ => Ok(allowed),
    }
}

/// The refusal of `url` when its host is a literal non-public address (such an address never
/// reaches [`CheckedResolver`]); `None` when it is a name, a public address, or allowed.
pub fn literal_non_public(url: &url::Url, allow_private: bool) -> Option<NonPublicAddress> {
    if allow_private {
        return None;
    }
    let ip = match url.host()? {
        url::Host::Ipv4(ip) => IpAddr::V4(ip),
        url::Host::Ipv6(ip) => IpAddr::V6(ip),
        url::Host::Domain(_) => return None,
    };
    is_non_public(ip).then(|| NonPublicAddress {
        host: url.host_str().unwrap_or_default().to_string(),
        ip,
    })
}

/// Resolves `host` and fails when it reaches a non-public address and those are not allowed.
/// Used to refuse a library before its crawl starts (and a webhook when it is registered);
/// every request is checked again by [`CheckedResolver`].
pub async fn check_host(host: &str, allow_private: bool) -> Result<(), NonPublicAddress> {
    if allow_private {
        return Ok(());
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return if is_non_public(ip) {
            Err(NonPublicAddress {
                host: host.to_string(),
                ip,
            })
        } else {
            Ok(())
        };
    }
    // A name that does not resolve now is not refused here: the fetch reports it.
    let Ok(resolved) = tokio::net::lookup_host((bare, 0)).await else {
        return Ok(());
    };
    match resolved.map(|a| a.ip()).find(|ip| is_non_public(*ip)) {
        Some(ip) => Err(NonPublicAddress {
            host: host.to_string(),
            ip,
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_loopback_and_link_local_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ] {
            assert!(is_non_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "8.8.8.8",
            "93.184.216.34",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert!(!is_non_public(ip.parse().unwrap()), "{ip}");
        }
    }

    fn refused(ips: &[&str]) {
        for ip in ips {
            assert!(is_non_public(ip.parse().unwrap()), "{ip} should be refused");
        }
    }

    fn allowed(ips: &[&str]) {
        for ip in ips {
            assert!(
                !is_non_public(ip.parse().unwrap()),
                "{ip} should be allowed"
            );
        }
    }

    #[test]
    fn ipv6_loopback_in_every_spelling_is_refused() {
        refused(&["::1", "0:0:0:0:0:0:0:1", "0000::0001", "::0.0.0.1"]);
    }

    #[test]
    fn ipv4_mapped_addresses_are_judged_by_their_ipv4_address() {
        refused(&[
            "::ffff:127.0.0.1",
            "::ffff:7f00:1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:0.0.0.0",
        ]);
        allowed(&["::ffff:8.8.8.8"]);
    }

    #[test]
    fn ipv4_compatible_addresses_are_judged_by_their_ipv4_address() {
        refused(&[
            "::127.0.0.1",
            "::7f00:1",
            "::10.0.0.1",
            "::192.168.0.1",
            "::169.254.169.254",
        ]);
    }

    #[test]
    fn nat64_well_known_prefix_is_judged_by_its_ipv4_address() {
        refused(&[
            "64:ff9b::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
        ]);
        allowed(&["64:ff9b::8.8.8.8"]);
    }

    #[test]
    fn nat64_local_use_prefix_is_refused() {
        refused(&[
            "64:ff9b:1::1",
            "64:ff9b:1:7f00:1::",
            "64:ff9b:1:ffff::8.8.8.8",
        ]);
    }

    #[test]
    fn six_to_four_addresses_are_judged_by_their_ipv4_address() {
        // 2002:AABB:CCDD::/48 belongs to the IPv4 address AA.BB.CC.DD.
        refused(&[
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2002:c0a8:101::1",
            "2002::1",
        ]);
        allowed(&["2002:808:808::1"]);
    }

    #[test]
    fn teredo_addresses_are_judged_by_their_server_and_client_ipv4_addresses() {
        // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC, the client's address with every bit flipped.
        // Client 127.0.0.1 (flipped 80ff:fffe) behind the public server 8.8.8.8:
        refused(&["2001:0:808:808:8000:ffff:80ff:fffe"]);
        // Client 8.8.8.8 (flipped f7f7:f7f7) behind the private server 10.0.0.1:
        refused(&["2001:0:a00:1:8000:ffff:f7f7:f7f7"]);
        // Both public:
        allowed(&["2001:0:808:808:8000:ffff:f7f7:f7f7"]);
    }

    #[test]
    fn unique_local_addresses_are_refused() {
        refused(&["fc00::1", "fd12:3456:789a::1", "fdff:ffff::1"]);
        allowed(&["fe00::1"]);
    }

    #[test]
    fn link_local_and_site_local_addresses_are_refused() {
        refused(&["fe80::1", "fe80::1:2:3:4", "febf:ffff::1", "fec0::1"]);
    }

    #[test]
    fn documentation_benchmarking_and_discard_ranges_are_refused() {
        refused(&[
            "2001:db8::1",
            "2001:db8:ffff::1",
            "3fff::1",
            "2001:2::1",
            "100::1",
            "ff02::1",
            "::",
        ]);
        allowed(&["2001:db9::1", "2001:4860:4860::8888", "2606:4700::1111"]);
    }

    #[test]
    fn resolved_private_addresses_are_dropped_and_none_left_is_an_error() {
        let addrs = |list: &[&str]| -> Vec<SocketAddr> {
            list.iter()
                .map(|a| SocketAddr::new(a.parse().unwrap(), 80))
                .collect()
        };
        let err = filter_addresses("intranet", addrs(&["10.0.0.5", "::1"]), false).unwrap_err();
        assert_eq!(err.ip, "10.0.0.5".parse::<IpAddr>().unwrap());
        let kept = filter_addresses("mixed", addrs(&["10.0.0.5", "8.8.8.8"]), false).unwrap();
        assert_eq!(kept, addrs(&["8.8.8.8"]));
        let all = filter_addresses("intranet", addrs(&["10.0.0.5"]), true).unwrap();
        assert_eq!(all.len(), 1);
    }

    #[tokio::test]
    async fn localhost_is_refused_by_name_and_by_address() {
        assert!(check_host("127.0.0.1", false).await.is_err());
        assert!(check_host("[::1]", false).await.is_err());
        assert!(check_host("localhost", false).await.is_err());
        assert!(check_host("localhost", true).await.is_ok());
    }
}
