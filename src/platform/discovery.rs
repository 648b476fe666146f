//! Finding phones nearby, behind one trait so that each platform plugs in
//! what works there.
//!
//! - Desktops and Android: libp2p's own mDNS, inside the swarm
//!   ([`SwarmMdns`]); on Android it receives only while the Wi-Fi multicast
//!   lock is held, which a running discovery holds.
//! - iOS: raw multicast sockets need an entitlement that Apple grants
//!   rarely, so libp2p's mDNS is off there and the system's Bonjour
//!   (DNS-SD) announces and browses instead, for the very records libp2p's
//!   mDNS uses (service `_p2p._udp`, one TXT string `dnsaddr=<address>` per
//!   address), so iPhones and Android phones find each other.
//!
//! Joining by the host's ticket (QR code or link) needs no discovery and
//! works everywhere, also where a Wi-Fi network blocks multicast.

use std::fmt;
use std::sync::Arc;

use super::PlatformError;
use super::multicast::Multicast;
use crate::net::seen;

/// The DNS-SD service type libp2p's mDNS announces (its records live under
/// `_p2p._udp.local`); iOS's `NSBonjourServices` must list it.
pub const SERVICE: &str = "_p2p._udp";

/// The key of libp2p's TXT strings: `dnsaddr=/ip4/…/tcp/…/p2p/<peer>`.
const DNSADDR: &str = "dnsaddr=";

/// This phone, as it is announced: its peer id (base58) and the addresses
/// it listens on, without the `/p2p/<peer>` suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Announcement {
    pub peer: String,
    pub addrs: Vec<String>,
}

/// A change among the phones nearby, from a backend that runs outside the
/// swarm (the swarm's own mDNS reports to the network node directly).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nearby {
    /// `peer` is reachable at `addrs` (each ending in `/p2p/<peer>`).
    Found { peer: String, addrs: Vec<String> },
    /// `peer` is no longer announced.
    Lost { peer: String },
}

/// Receives [`Nearby`] changes, on the backend's thread.
pub type NearbySink = Arc<dyn Fn(Nearby) + Send + Sync>;

/// How a platform finds phones nearby (see the module documentation).
/// Shared by whoever needs discovery (the nearby list, a hosted room):
/// each [`start`](Self::start) is a discovery of its own.
pub trait Discovery: Send + Sync {
    /// Whether the network node should run libp2p's mDNS in its swarm.
    fn swarm_mdns(&self) -> bool;

    /// Starts announcing `me` and looking for others, reporting to
    /// `nearby`, until the returned [`Discovering`] is dropped.
    fn start(&self, me: &Announcement, nearby: NearbySink) -> Result<Discovering, PlatformError>;
}

/// A running discovery: it announces and looks until this is dropped, so
/// that no path (an error, a closed screen) can leave it running.
#[must_use = "discovery stops when this is dropped"]
pub struct Discovering {
    _running: Box<dyn Send>,
}

impl Discovering {
    /// A discovery kept running by `running`, which stops it when dropped.
    pub fn new(running: impl Send + 'static) -> Discovering {
        Discovering {
            _running: Box::new(running),
        }
    }
}

impl fmt::Debug for Discovering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Discovering")
    }
}

/// libp2p's mDNS in the swarm, receiving while a multicast hold is taken:
/// a running discovery is that hold (the swarm reports its finds to the
/// network node directly, so `nearby` never hears from it).
pub struct SwarmMdns {
    multicast: Multicast,
}

impl SwarmMdns {
    pub fn new(multicast: Multicast) -> SwarmMdns {
        SwarmMdns { multicast }
    }
}

impl Discovery for SwarmMdns {
    fn swarm_mdns(&self) -> bool {
        true
    }

    fn start(&self, _: &Announcement, _: NearbySink) -> Result<Discovering, PlatformError> {
        Ok(Discovering::new(self.multicast.hold()?))
    }
}

impl fmt::Debug for SwarmMdns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SwarmMdns")
            .field("holds", &self.multicast.holds())
            .finish()
    }
}

/// The TXT record announcing `me` the way libp2p's mDNS does: one
/// `dnsaddr=<address>/p2p/<peer>` string per address, in DNS wire format
/// (each string after its length byte). An address too long for one
/// string (255 bytes) is left out.
pub fn txt_record(me: &Announcement) -> Vec<u8> {
    let mut record = Vec::new();
    for addr in &me.addrs {
        let entry = format!("{DNSADDR}{addr}/p2p/{}", me.peer);
        if let Ok(len) = u8::try_from(entry.len()) {
            record.push(len);
            record.extend_from_slice(entry.as_bytes());
        }
    }
    record
}

/// The phone a TXT record in DNS wire format announces, read the way
/// libp2p's mDNS reads it: the `dnsaddr=<address>/p2p/<peer>` strings, all
/// for the peer of the first one. Other strings, addresses of another
/// peer, and a record cut short are skipped; `None` if no address is left.
/// (libp2p announces one TXT record per address, Bonjour one record with
/// every address: either way each record reads on its own.)
pub fn txt_peer(record: &[u8]) -> Option<Nearby> {
    let mut peer: Option<&str> = None;
    let mut addrs: Vec<String> = Vec::new();
    let mut rest = record;
    while let Some((&len, tail)) = rest.split_first() {
        let Some((entry, tail)) = tail.split_at_checked(usize::from(len)) else {
            break;
        };
        rest = tail;
        let Some(addr) = std::str::from_utf8(entry)
            .ok()
            .and_then(|e| e.strip_prefix(DNSADDR))
        else {
            continue;
        };
        let Some((bare, id)) = addr.rsplit_once("/p2p/") else {
            continue;
        };
        if bare.is_empty() || id.is_empty() || id.contains('/') || *peer.get_or_insert(id) != id {
            continue;
        }
        if !addrs.iter().any(|a| a == addr) {
            addrs.push(addr.to_owned());
        }
    }
    Some(Nearby::Found {
        peer: peer?.to_owned(),
        addrs,
    })
}

/// What a DNS-SD browser (Bonjour) knows about the service instances it
/// found, kept apart from the system calls so that it is tested on Linux.
/// `Q` is the handle of the TXT query running for an instance.
///
/// Instances are named at random by libp2p, so the peer is learnt from the
/// TXT records; libp2p announces one record per address, so an instance's
/// addresses are gathered across records and reported whenever one is new.
/// libp2p names every answer anew (each phone answers every query, about
/// one a second), so an instance that names a peer an older one named
/// takes its place: otherwise each old name's expiry would report the
/// phone lost while its newer name still stands. An iPhone's instance is
/// named by its peer id and keeps that name, so none takes its place.
/// Anyone on the Wi-Fi can announce instances and records, so both lists
/// are bounded ([`seen`]): an instance whose records named its peer is kept,
/// the oldest other one makes room for a new one.
#[derive(Debug)]
pub struct Browsed<Q> {
    /// Our own instance name, which browsing also finds.
    own: String,
    /// Oldest first.
    instances: Vec<Instance<Q>>,
}

#[derive(Debug)]
struct Instance<Q> {
    name: String,
    query: Option<Q>,
    peer: Option<String>,
    addrs: Vec<String>,
    /// The network interfaces browsing found it on (Bonjour reports an
    /// instance on each): it is lost once lost on all of them.
    interfaces: Vec<u32>,
}

/// What to do about an instance browsing found.
#[derive(Debug, PartialEq, Eq)]
pub enum Find<Q> {
    /// Nothing: it is ourselves or known already, or every instance kept
    /// has named its peer (it is tried again when found again).
    Skip,
    /// Start its TXT query, after stopping `stop`, the query of the
    /// instance it pushed out.
    Query { stop: Option<Q> },
}

impl<Q: PartialEq> Browsed<Q> {
    pub fn new(own: &str) -> Browsed<Q> {
        Browsed {
            own: own.to_owned(),
            instances: Vec::new(),
        }
    }

    fn named(&mut self, name: &str) -> Option<&mut Instance<Q>> {
        self.instances.iter_mut().find(|i| i.name == name)
    }

    /// Browsing found `name` on the network interface `interface`.
    pub fn found(&mut self, name: &str, interface: u32) -> Find<Q> {
        if name == self.own {
            return Find::Skip;
        }
        if let Some(instance) = self.named(name) {
            if !instance.interfaces.contains(&interface) {
                instance.interfaces.push(interface);
            }
            return Find::Skip;
        }
        let Ok(out) = seen::make_room(&mut self.instances, |i| i.peer.is_some()) else {
            return Find::Skip;
        };
        self.instances.push(Instance {
            name: name.to_owned(),
            query: None,
            peer: None,
            addrs: Vec::new(),
            interfaces: vec![interface],
        });
        Find::Query {
            stop: out.and_then(|i| i.query),
        }
    }

    /// The TXT query for `name` started (or failed: `None`, and the
    /// instance is forgotten, so that the next find tries again).
    pub fn querying(&mut self, name: &str, query: Option<Q>) {
        match query {
            Some(query) => {
                if let Some(instance) = self.named(name) {
                    instance.query = Some(query);
                }
            }
            None => self.instances.retain(|i| i.name != name),
        }
    }

    /// Browsing lost `name` on the network interface `interface`: once
    /// it is lost on every interface it was found on, its query to stop,
    /// and the loss to report if its peer was known.
    pub fn lost(&mut self, name: &str, interface: u32) -> (Option<Q>, Option<Nearby>) {
        match self.instances.iter().position(|i| i.name == name) {
            Some(at) => {
                let interfaces = &mut self.instances[at].interfaces;
                interfaces.retain(|&i| i != interface);
                if !interfaces.is_empty() {
                    return (None, None);
                }
                let instance = self.instances.remove(at);
                (
                    instance.query,
                    instance.peer.map(|peer| Nearby::Lost { peer }),
                )
            }
            None => (None, None),
        }
    }

    /// Forgets every instance, as when the browse behind them ended with
    /// their queries (the connection to the daemon was cut): the losses
    /// to report for the peers known. A browse started again finds those
    /// still there anew; the others would otherwise stay listed for ever.
    pub fn forget(&mut self) -> Vec<Nearby> {
        std::mem::take(&mut self.instances)
            .into_iter()
            .filter_map(|i| i.peer.map(|peer| Nearby::Lost { peer }))
            .collect()
    }

    /// A TXT record arrived for `query`: the query of another instance of
    /// the same peer to stop (this one takes its place and its addresses),
    /// and the change to report, if the record announced an address not
    /// known yet. A record naming another peer than the instance's earlier
    /// records is ignored.
    pub fn txt(&mut self, query: &Q, record: &[u8]) -> (Option<Q>, Option<Nearby>) {
        let Some(Nearby::Found { peer, addrs }) = txt_peer(record) else {
            return (None, None);
        };
        let Some(mut at) = self
            .instances
            .iter()
            .position(|i| i.query.as_ref() == Some(query))
        else {
            return (None, None);
        };
        let mut stop = None;
        match &self.instances[at].peer {
            Some(named) if *named != peer => return (None, None),
            Some(_) => {}
            None => {
                let other = self
                    .instances
                    .iter()
                    .position(|i| i.peer.as_ref() == Some(&peer));
                // An iPhone's instance, named by its peer id for as long
                // as its app runs, is the phone's own: another naming the
                // same peer is someone else's, which would take its place
                // and, withdrawn, report the phone lost, and Bonjour
                // would never report its own instance again. It goes.
                if other.is_some_and(|other| self.instances[other].name == peer) {
                    return (self.instances.remove(at).query, None);
                }
                if let Some(other) = other {
                    at -= usize::from(other < at);
                    let other = self.instances.remove(other);
                    stop = other.query;
                    self.instances[at].addrs = other.addrs;
                }
                self.instances[at].peer = Some(peer.clone());
            }
        }
        let instance = &mut self.instances[at];
        let mut new = false;
        for addr in addrs {
            new |= seen::learn(&mut instance.addrs, addr);
        }
        let found = new.then(|| Nearby::Found {
            peer,
            addrs: instance.addrs.clone(),
        });
        (stop, found)
    }
}
