//! Which network addresses the crawler may reach. Library sites are public; a start URL, a link
//! or a redirect that leads to a private, loopback or link-local address is refused (unless the
//! operator allows private networks), so that the service cannot be used to probe the network
//! it runs in. Names are checked after resolution, by the resolver the HTTP client connects
//! with, so a public name that resolves to a private address is refused too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether `ip` is private, loopback, link-local or otherwise not a public unicast address.
pub(super) fn is_non_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_non_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_non_public_v4(v4);
            }
            let first = v6.segments()[0];
            v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (first & 0xffc0) == 0xfec0 // deprecated site-local fec0::/10
                || is_nat64_of_non_public(v6)
        }
    }
}

fn is_non_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT 100.64.0.0/10
        || (a == 198 && (b == 18 || b == 19)) // benchmarking 198.18.0.0/15
        || a >= 240 // reserved
}

/// `64:ff9b::a.b.c.d` reaches the IPv4 address `a.b.c.d` through NAT64.
fn is_nat64_of_non_public(v6: Ipv6Addr) -> bool {
    let s = v6.segments();
    if s[..6] != [0x64, 0xff9b, 0, 0, 0, 0] {
        return false;
    }
    let v4 = Ipv4Addr::new(
        (s[6] >> 8) as u8,
        (s[6] & 0xff) as u8,
        (s[7] >> 8) as u8,
        (s[7] & 0xff) as u8,
    );
    is_non_public_v4(v4)
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
pub(crate) struct CheckedResolver {
    pub(crate) allow_private: bool,
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
pub(crate) fn filter_addresses(
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

/// Resolves `host` and fails when it reaches a non-public address and those are not allowed.
/// Used to refuse a library before its crawl starts; every request is checked again by
/// [`CheckedResolver`].
pub(super) async fn check_host(host: &str, allow_private: bool) -> Result<(), NonPublicAddress> {
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
