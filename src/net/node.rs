//! A running node: the swarm plus, for every peer, the channel halves
//! ([`super::link`]), the flood guard and, for the peers the game needs,
//! redialling with backoff. The application drives it by awaiting
//! [`Node::next`] and calls [`Node::send`] and friends in between; nothing
//! here knows about games, so the same node serves the lobby and the log.

use std::collections::{HashMap, HashSet, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

use futures::StreamExt;
use libp2p::core::ConnectedPoint;
use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use libp2p::request_response::{self, InboundRequestId, OutboundFailure, OutboundRequestId};
use libp2p::swarm::dial_opts::{DialOpts, PeerCondition};
use libp2p::swarm::{ConnectionId, SwarmEvent};
use libp2p::{Multiaddr, PeerId, Swarm, TransportError, identify, mdns, ping};
use tokio::sync::mpsc::UnboundedReceiver;
use tracing::{debug, info, warn};

use super::backoff::Backoff;
use super::guard::{Flood, Guard, Limits};
use super::link::{Inbox, Outbox};
use super::seen;
use super::swarm::{self, Behaviour, BehaviourEvent, SwarmError};
use super::wire::{Ack, MAX_MESSAGE, Request};

/// How long a peer that sent garbage or flooded is kept away.
pub const BAN: Duration = Duration::from_secs(60);

/// How often the node looks at its redial timers.
const TICK: Duration = Duration::from_millis(50);
/// How long a batch that failed, or whose answer took nothing, waits
/// before it is sent again: at once, a peer answering so for ever (or one
/// keeping the connection's stream slots full) would have it sent once per
/// round trip.
const RESEND_PAUSE: Duration = Duration::from_millis(250);
/// How long a connection to a peer the application does not keep stays up
/// while the peer neither sends a batch nor takes one: a phone that looked
/// up the room and went on needs it no more, and a device on the Wi-Fi that
/// opens connections and stays quiet must not hold the swarm's slots.
pub const QUIET_LIMIT: Duration = Duration::from_secs(20);
/// How long a stranger has been quiet when it makes way for a new one once
/// the strangers' slots are full (see [`swarm::MAX_STRANGERS`]): a phone
/// still looking at the room asks twice a second.
pub const MAKE_WAY_AFTER: Duration = Duration::from_secs(5);
/// How long [`Node::start`] waits after a listener's last address event
/// before it counts the addresses complete, and at most in all.
const SETTLE_QUIET: Duration = Duration::from_millis(50);
const SETTLE_MAX: Duration = Duration::from_millis(500);

/// What a node is started with.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where to listen, e.g. `/ip4/0.0.0.0/tcp/0` on a phone, or
    /// `/ip4/127.0.0.1/tcp/0` in tests.
    pub listen: Vec<Multiaddr>,
    /// Whether to find and announce phones nearby by mDNS.
    pub mdns: bool,
    /// How much a peer may send before it counts as flooding.
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            listen: vec!["/ip4/0.0.0.0/tcp/0".parse().expect("a valid address")],
            mdns: true,
            limits: Limits::default(),
        }
    }
}

#[cfg(test)]
impl Config {
    /// A test's node: on loopback only, without mDNS, so it reaches
    /// nothing beyond this machine.
    pub(crate) fn loopback() -> Config {
        Config {
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().expect("a valid address")],
            mdns: false,
            ..Config::default()
        }
    }
}

/// What happened on the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// mDNS, or the platform's discovery ([`Node::hear`]), found `peer`
    /// nearby (its addresses are remembered for dialling).
    Discovered(PeerId),
    /// mDNS has not heard from `peer` for a while, or the platform's
    /// discovery lost it, and it is not connected (a connected peer is
    /// lost once its connection is down).
    Expired(PeerId),
    /// The first connection to `peer` is up.
    Connected(PeerId),
    /// The last connection to `peer` is down.
    Disconnected(PeerId),
    /// A message from `from`, in the order it was sent.
    Message { from: PeerId, bytes: Vec<u8> },
    /// `peer` was disconnected and banned for a while for `reason`.
    Banned { peer: PeerId, reason: String },
}

#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error(transparent)]
    Swarm(#[from] SwarmError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: Multiaddr,
        source: TransportError<std::io::Error>,
    },
    #[error("cannot listen on {addr}: {source}")]
    Listener {
        addr: Multiaddr,
        source: std::io::Error,
    },
    #[error("a message of {0} bytes is larger than the limit of {MAX_MESSAGE}")]
    TooLarge(usize),
    #[error("cannot draw a random session number: {0}")]
    Random(#[from] getrandom::Error),
}

/// What the node keeps about one peer.
#[derive(Debug)]
struct Peer {
    /// Addresses to dial, most recently learnt last, from what vouches for
    /// them: the peer itself (identify, over a connection its key
    /// secured), a dial that reached it, a ticket, the host's start, the
    /// address book.
    addrs: Vec<Multiaddr>,
    /// Addresses only mDNS named, dialled after those: any device on the
    /// Wi-Fi can answer mDNS for any peer id, so a flood of them must not
    /// push out the addresses above, nor be tried before them.
    sighted: Vec<Multiaddr>,
    /// The discovery lost the peer while it was connected: it is lost
    /// once the connection is down ([`Node::lost`]).
    unseen: bool,
    outbox: Outbox,
    in_flight: Option<OutboundRequestId>,
    /// No batch goes before this (see [`RESEND_PAUSE`]).
    resend_at: Option<Instant>,
    inbox: Inbox,
    guard: Guard,
    /// Set for peers the application wants connected.
    redial: Option<Backoff>,
    connections: usize,
    dialing: bool,
    /// Where in [`Peer::dial_addrs`] the next dial starts (see
    /// [`Peer::next_dial`]).
    dial_from: usize,
    banned_until: Option<Instant>,
    /// When the peer last sent a batch or took one, or a connection opened
    /// (see [`QUIET_LIMIT`]). What this node sends does not count: a batch
    /// sent again and again to a peer that never takes it is no sign of
    /// life.
    active_at: Instant,
}

impl Peer {
    fn new(session: u64, limits: Limits, now: Instant) -> Peer {
        Peer {
            addrs: Vec::new(),
            sighted: Vec::new(),
            unseen: false,
            outbox: Outbox::new(session),
            in_flight: None,
            resend_at: None,
            inbox: Inbox::default(),
            guard: Guard::new(limits, now),
            redial: None,
            connections: 0,
            dialing: false,
            dial_from: 0,
            banned_until: None,
            active_at: now,
        }
    }

    /// Keeps `addr` if the peer can be dialled there ([`dialable`]).
    fn learn(&mut self, addr: Multiaddr) {
        if let Some(addr) = dialable(addr) {
            self.sighted.retain(|a| *a != addr);
            seen::learn(&mut self.addrs, addr);
        }
    }

    /// Keeps the addresses the peer says it listens on (identify lists
    /// them in no particular order): of more than a peer keeps, those a
    /// phone on the same Wi-Fi most likely reaches (`ticket::likeliest`:
    /// a desktop's IPv6 and link-local addresses after its IPv4 ones),
    /// rather than whichever came last; the likeliest learnt last, so that
    /// an address learnt later pushes out the least likely.
    fn learn_all(&mut self, addrs: Vec<Multiaddr>) {
        const _: () = assert!(super::ticket::MAX_ADDRS == seen::MAX_ADDRS);
        let dialable = addrs.into_iter().filter_map(dialable).collect();
        for addr in super::ticket::likeliest(dialable).into_iter().rev() {
            self.learn(addr);
        }
    }

    /// Keeps `addr`, which only mDNS named, as [`Peer::learn`] does but
    /// apart (see [`Peer::sighted`]).
    fn sight(&mut self, addr: Multiaddr) {
        if let Some(addr) = dialable(addr)
            && !self.addrs.contains(&addr)
        {
            seen::learn(&mut self.sighted, addr);
        }
    }

    /// Every address to dial: those vouched for before those sighted,
    /// each newest first (the likeliest, and the one last reached).
    fn dial_addrs(&self) -> Vec<Multiaddr> {
        let vouched = self.addrs.iter().rev();
        vouched.chain(self.sighted.iter().rev()).cloned().collect()
    }

    /// The addresses the next dial tries: at most [`swarm::DIAL_ADDRS`] of
    /// [`Peer::dial_addrs`], from the first. Of a peer with more, each dial
    /// that starts ([`Peer::dialled`]) takes the next ones in turn, so that
    /// a redial does not meet the same unreachable ones again; once the
    /// peer is reached, the next dial starts from the first again.
    fn next_dial(&self) -> Vec<Multiaddr> {
        let most = usize::from(swarm::DIAL_ADDRS.get());
        let all = self.dial_addrs();
        if all.len() <= most {
            return all;
        }
        let start = self.dial_from % all.len();
        all.into_iter().cycle().skip(start).take(most).collect()
    }

    /// A dial of [`Peer::next_dial`]'s addresses started.
    fn dialled(&mut self) {
        self.dialing = true;
        let most = usize::from(swarm::DIAL_ADDRS.get());
        self.dial_from = match self.addrs.len() + self.sighted.len() {
            n if n > most => self.dial_from + most,
            _ => 0,
        };
    }

    fn banned(&self, now: Instant) -> bool {
        self.banned_until.is_some_and(|until| now < until)
    }

    /// A connection to the peer opened: whether it is taken (a banned
    /// peer's is not). Either way no dial is under way any more: a dial
    /// left marked would keep the peer from being dialled again once its
    /// ban is over.
    fn connected(&mut self, now: Instant) -> bool {
        self.dialing = false;
        if self.banned(now) {
            return false;
        }
        self.dial_from = 0;
        self.connections += 1;
        self.active_at = now;
        true
    }

    /// Whether the node is connected to the peer, dialling it or keeping
    /// it. A message merely queued does not count: one queued for a
    /// made-up peer would keep it for good.
    fn reached(&self) -> bool {
        self.connections > 0 || self.dialing || self.kept()
    }

    /// Whether the peer may be forgotten once the map is full: not
    /// [`Peer::reached`], nothing in flight. What is queued for it goes
    /// with it: a stranger that connects, asks, takes no answer and
    /// leaves, under a new identity each time, would otherwise keep its
    /// answers here for good. So does a ban: a made-up identity costs one
    /// handshake to get banned (a wrong identify protocol), and bans kept
    /// until they ran out would grow the map without bound in a flood of
    /// them; one that comes back after it was forgotten is a stranger
    /// again, as a fresh key is anyway.
    fn idle(&self) -> bool {
        !self.reached() && self.in_flight.is_none()
    }

    /// Whether the application keeps the peer ([`Node::keep`]).
    fn kept(&self) -> bool {
        self.redial.is_some()
    }

    /// Whether the peer is connected and not kept: its connections take
    /// the strangers' slots ([`swarm::MAX_STRANGERS`]).
    fn stranger(&self) -> bool {
        self.connections > 0 && !self.kept()
    }

    /// Whether the peer's connections may be closed (see [`QUIET_LIMIT`]).
    fn quiet(&self, now: Instant) -> bool {
        self.stranger() && now.duration_since(self.active_at) >= QUIET_LIMIT
    }
}

/// The most peers the node keeps state for before it forgets the idle ones.
/// Every device on the Wi-Fi can announce made-up peers by mDNS, and new
/// identities cost nothing, so the map must be bounded in total; a game or
/// a nearby-rooms list meets a few dozen real phones at most.
pub const MAX_PEERS: usize = 1024;

/// The most messages queued for a phone, and not taken by it, with which
/// this one still answers its questions ([`Node::answers`]): a phone that
/// takes its messages has them within moments and never has this many on
/// its way.
pub const MAX_UNTAKEN_ANSWERS: usize = 16;

/// The IP address in `addr`, if it has one.
pub(crate) fn ip_of(addr: &Multiaddr) -> Option<IpAddr> {
    addr.iter().find_map(|p| match p {
        Protocol::Ip4(ip) => Some(ip.into()),
        Protocol::Ip6(ip) => Some(ip.into()),
        _ => None,
    })
}

/// `addr` without its peer id, if the node can dial it: an IP address and
/// a TCP port, the only transport the node speaks. Anything else a peer
/// says of itself (up to 4 KiB each, in identify) would only be passed on
/// in the start and the address book, and could make the start too large
/// to send.
fn dialable(addr: Multiaddr) -> Option<Multiaddr> {
    let addr = without_p2p(addr);
    let mut parts = addr.iter();
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (
            Some(Protocol::Ip4(_) | Protocol::Ip6(_)),
            Some(Protocol::Tcp(_)),
            None
        )
    )
    .then_some(addr)
}

fn without_p2p(mut addr: Multiaddr) -> Multiaddr {
    if let Some(Protocol::P2p(_)) = addr.iter().last() {
        addr.pop();
    }
    addr
}

/// A phone found or lost by a discovery outside the node's swarm (the
/// platform's Bonjour on iOS, where libp2p's mDNS is off).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sighting {
    Found { peer: PeerId, addrs: Vec<Multiaddr> },
    Lost(PeerId),
}

/// A running node (see the module documentation).
pub struct Node {
    swarm: Swarm<Behaviour>,
    /// The session of the next channel this node starts to a peer: drawn
    /// at random at start and counted up for each, so that a peer the node
    /// forgot and meets again gets a new session, not numbers it has seen.
    next_session: u64,
    limits: Limits,
    peers: HashMap<PeerId, Peer>,
    /// The size of `peers` at which the idle ones are forgotten.
    forget_at: usize,
    events: VecDeque<Event>,
    listening: Vec<Multiaddr>,
    /// When each connection last answered a ping (or opened).
    heard: HashMap<ConnectionId, Instant>,
    /// The acknowledgements handed to libp2p and not yet written out: a
    /// node that disconnects before they are leaves their senders
    /// resending to a peer that is gone.
    answering: HashSet<InboundRequestId>,
    tick: tokio::time::Interval,
    /// What the platform's discovery finds, where it runs outside the
    /// swarm ([`Node::hear`]).
    sightings: Option<UnboundedReceiver<Sighting>>,
    /// The phones that discovery names now, oldest first, at most
    /// [`seen::MAX_PHONES`] ([`Node::nearby`]).
    named: Vec<PeerId>,
}

impl Node {
    /// Starts a node for `keypair` on the current tokio runtime and waits
    /// until it listens on every address of `config`.
    pub async fn start(keypair: Keypair, config: Config) -> Result<Node, NetError> {
        let mut swarm = swarm::build(keypair, config.mdns)?;
        let mut pending = Vec::new();
        for addr in config.listen {
            let id = swarm
                .listen_on(addr.clone())
                .map_err(|source| NetError::Listen {
                    addr: addr.clone(),
                    source,
                })?;
            pending.push((id, addr));
        }
        // Listening on every interface (`0.0.0.0` or `::`).
        let unspecified = pending
            .iter()
            .any(|(_, addr)| ip_of(addr).is_some_and(|ip| ip.is_unspecified()));
        let mut session = [0; 8];
        getrandom::fill(&mut session)?;
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut node = Node {
            swarm,
            next_session: u64::from_le_bytes(session),
            limits: config.limits,
            peers: HashMap::new(),
            forget_at: MAX_PEERS,
            events: VecDeque::new(),
            listening: Vec::new(),
            heard: HashMap::new(),
            answering: HashSet::new(),
            tick,
            sightings: None,
            named: Vec::new(),
        };
        while !pending.is_empty() {
            match node.swarm.select_next_some().await {
                event @ SwarmEvent::NewListenAddr { listener_id, .. } => {
                    pending.retain(|(id, _)| *id != listener_id);
                    node.handle(event);
                }
                SwarmEvent::ListenerClosed {
                    listener_id,
                    reason: Err(source),
                    ..
                }
                | SwarmEvent::ListenerError {
                    listener_id,
                    error: source,
                } => {
                    if let Some((_, addr)) = pending.iter().find(|(id, _)| *id == listener_id) {
                        return Err(NetError::Listener {
                            addr: addr.clone(),
                            source,
                        });
                    }
                }
                other => node.handle(other),
            }
        }
        if unspecified {
            node.settle().await;
        }
        Ok(node)
    }

    /// Handles events until none has come for [`SETTLE_QUIET`] (at most
    /// [`SETTLE_MAX`]). A listener on `0.0.0.0` reports one address per
    /// interface, one event after another, loopback often first: a ticket
    /// made after the first alone would list only `127.0.0.1`, which no
    /// other phone can reach.
    async fn settle(&mut self) {
        let end = tokio::time::Instant::now() + SETTLE_MAX;
        loop {
            let quiet = (tokio::time::Instant::now() + SETTLE_QUIET).min(end);
            match tokio::time::timeout_at(quiet, self.swarm.select_next_some()).await {
                Ok(event) => self.handle(event),
                Err(_) => break,
            }
        }
    }

    pub fn peer_id(&self) -> PeerId {
        *self.swarm.local_peer_id()
    }

    /// Every address this node listens on, without the `/p2p` suffix
    /// (a listener on `0.0.0.0` is reported once per interface address).
    pub fn listen_addrs(&self) -> Vec<Multiaddr> {
        self.listening.clone()
    }

    /// Sends `bytes` to `to`: queued until `to` is connected, delivered in
    /// order and acknowledged (see [`super::link`]).
    pub fn send(&mut self, to: PeerId, bytes: Vec<u8>) -> Result<(), NetError> {
        if bytes.len() > MAX_MESSAGE {
            return Err(NetError::TooLarge(bytes.len()));
        }
        let outbox = &mut self.peer(to).outbox;
        let dropped = outbox.dropped();
        outbox.push(bytes);
        if outbox.dropped() > dropped {
            debug!(peer = %to, dropped = outbox.dropped(), "peer takes nothing; oldest messages dropped");
        }
        self.flush(to);
        Ok(())
    }

    /// Stops asking `to`, a phone that left a bounded list: the messages
    /// queued for it and not yet acknowledged are dropped, and so is its
    /// mDNS sighting. A made-up phone (one that never answers) leaves
    /// nothing behind for the node to keep, and a real one is found again
    /// ([`Event::Discovered`]) at its next answer to mDNS, within a second.
    /// The queue of a phone the node keeps ([`Node::keep`]) stays: what
    /// the application sends it (a decline of an invitation) is not a
    /// list's to drop.
    pub fn give_up(&mut self, to: PeerId) {
        self.drop_queued(to);
        self.forget_sighting(&to);
    }

    /// Drops the messages queued for `to` and not yet acknowledged, unless
    /// the node keeps it; its sighting stays, so a phone nearby that went
    /// quiet is still listed.
    pub fn drop_queued(&mut self, to: PeerId) {
        if let Some(p) = self.peers.get_mut(&to)
            && !p.kept()
        {
            p.outbox.drop_all();
        }
    }

    /// Messages queued for `to` and not yet acknowledged.
    pub fn unacknowledged(&self, to: PeerId) -> usize {
        self.peers.get(&to).map_or(0, |p| p.outbox.len())
    }

    /// Whether `from`, which asked this phone something, gets an answer:
    /// not while [`MAX_UNTAKEN_ANSWERS`] are queued for it and untaken.
    /// Every place that answers strangers asks this, or one asking
    /// thousands of times a second and taking nothing would pin
    /// megabytes of answers here.
    pub fn answers(&self, from: PeerId) -> bool {
        self.unacknowledged(from) < MAX_UNTAKEN_ANSWERS
    }

    /// Remembers `addrs`, the likeliest first (as a ticket, a start and
    /// [`Node::addrs`] list them), for dialling `peer` (and dials a kept
    /// peer that had no address to try).
    pub fn add_addrs(&mut self, peer: PeerId, addrs: impl IntoIterator<Item = Multiaddr>) {
        // Learnt last, the likeliest are the newest, which dials try first.
        let mut addrs: Vec<Multiaddr> = addrs.into_iter().collect();
        addrs.reverse();
        self.remember(peer, addrs, Peer::learn);
    }

    /// Remembers `addrs` for dialling `peer` as [`Node::add_addrs`] does,
    /// but as hints that nothing vouches for (an address a discovery
    /// found, passed on by the application): see [`Peer::sighted`].
    pub fn add_hints(&mut self, peer: PeerId, addrs: impl IntoIterator<Item = Multiaddr>) {
        self.remember(peer, addrs, Peer::sight);
    }

    fn remember(
        &mut self,
        peer: PeerId,
        addrs: impl IntoIterator<Item = Multiaddr>,
        keep: fn(&mut Peer, Multiaddr),
    ) {
        let entry = self.peer(peer);
        for addr in addrs {
            keep(entry, addr);
        }
        if entry.kept() {
            self.dial(peer);
        }
    }

    /// The addresses to pass on for `peer` (in the start, the address
    /// book): those vouched for, or while there are none, those only mDNS
    /// named, the likeliest (newest) first, as [`Node::add_addrs`] takes
    /// them. Never both: whoever takes them in vouches for them, and the
    /// named ones, newer, would push the others out of its list.
    pub fn addrs(&self, peer: PeerId) -> Vec<Multiaddr> {
        self.peers.get(&peer).map_or_else(Vec::new, |p| {
            let kept = if p.addrs.is_empty() {
                &p.sighted
            } else {
                &p.addrs
            };
            kept.iter().rev().cloned().collect()
        })
    }

    /// Keeps `peer` connected: dials it now if need be, and again with
    /// backoff whenever the connection drops, until [`Node::release`].
    pub fn keep(&mut self, peer: PeerId) {
        let entry = self.peer(peer);
        if entry.redial.is_none() {
            entry.redial = Some(Backoff::default());
        }
        if entry.connections == 0 {
            self.dial(peer);
        }
    }

    /// Stops redialling `peer`.
    pub fn release(&mut self, peer: PeerId) {
        if let Some(p) = self.peers.get_mut(&peer) {
            p.redial = None;
        }
    }

    /// Dials `peer` once at its known addresses, unless it is connected or
    /// being dialled.
    pub fn dial(&mut self, peer: PeerId) {
        let now = Instant::now();
        let Some(entry) = self.peers.get_mut(&peer) else {
            return;
        };
        if entry.connections > 0 || entry.dialing {
            return;
        }
        let addrs = entry.next_dial();
        if addrs.is_empty() || entry.banned(now) {
            // Tried again later, or the redial would stop here for good.
            if let Some(b) = &mut entry.redial {
                b.failed(now);
            }
            return;
        }
        let opts = DialOpts::peer_id(peer)
            .addresses(addrs)
            .condition(PeerCondition::DisconnectedAndNotDialing)
            .build();
        match self.swarm.dial(opts) {
            Ok(()) => entry.dialled(),
            Err(error) => {
                debug!(%peer, %error, "dial not started");
                if let Some(b) = &mut entry.redial {
                    b.failed(now);
                }
            }
        }
    }

    /// The peers connected now.
    pub fn connected(&self) -> Vec<PeerId> {
        let peers = self.peers.iter().filter(|(_, p)| p.connections > 0);
        peers.map(|(&peer, _)| peer).collect()
    }

    pub fn is_connected(&self, peer: PeerId) -> bool {
        self.peers.get(&peer).is_some_and(|p| p.connections > 0)
    }

    /// Disconnects `peer` and refuses it for [`BAN`], logging `reason`
    /// (it sent garbage or flooded).
    pub fn ban(&mut self, peer: PeerId, reason: String) {
        warn!(%peer, %reason, "disconnecting peer");
        let until = Instant::now() + BAN;
        self.peer(peer).banned_until = Some(until);
        let _ = self.swarm.disconnect_peer_id(peer);
        self.events.push_back(Event::Banned { peer, reason });
    }

    /// Whether an acknowledgement this node sent is still on its way: a
    /// node that has said its last word waits for this to be `false` before
    /// it disconnects, so that the peer's last message counts as taken.
    pub fn answering(&self) -> bool {
        !self.answering.is_empty()
    }

    /// Stops redialling `peer` and closes its connections: it sees
    /// [`Event::Disconnected`], as after a lost Wi-Fi, and so learns that
    /// this node no longer counts it in.
    pub fn disconnect(&mut self, peer: PeerId) {
        self.release(peer);
        let _ = self.swarm.disconnect_peer_id(peer);
    }

    /// Closes every connection (when the game is over).
    pub fn disconnect_all(&mut self) {
        let peers: Vec<PeerId> = self.peers.keys().copied().collect();
        for peer in peers {
            self.disconnect(peer);
        }
    }

    /// The phones the discovery names now (libp2p's mDNS, or the one the
    /// node hears): each is an [`Event::Discovered`] once, when first
    /// named, so a list that starts while the node runs begins with these.
    pub fn nearby(&self) -> Vec<PeerId> {
        let mdns = self.swarm.behaviour().mdns.as_ref();
        let by_mdns = mdns.into_iter().flat_map(|m| m.discovered_nodes());
        let mut nearby: Vec<PeerId> = Vec::new();
        for &peer in by_mdns.chain(&self.named) {
            if !nearby.contains(&peer) {
                nearby.push(peer);
            }
        }
        nearby
    }

    /// Takes the phones a discovery outside the swarm finds (Bonjour on
    /// iOS) as the swarm's mDNS finds are taken: their addresses are
    /// remembered and each is an [`Event::Discovered`] (a lost one an
    /// [`Event::Expired`]), so room lookups, the nearby list and redialling
    /// work the same with either.
    pub fn hear(&mut self, sightings: UnboundedReceiver<Sighting>) {
        self.sightings = Some(sightings);
    }

    /// The next event. Cancel-safe: events are queued inside the node.
    pub async fn next(&mut self) -> Event {
        loop {
            if let Some(event) = self.events.pop_front() {
                return event;
            }
            let sighting = async {
                match &mut self.sightings {
                    Some(sightings) => sightings.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = self.swarm.select_next_some() => self.handle(event),
                _ = self.tick.tick() => {
                    self.close_silent();
                    self.close_quiet();
                    self.redial_due();
                    self.resend_due();
                }
                sighting = sighting => self.sighted(sighting),
            }
        }
    }

    /// Takes one of the platform discovery's finds (`None`: it stopped).
    fn sighted(&mut self, sighting: Option<Sighting>) {
        match sighting {
            Some(Sighting::Found { peer, addrs }) => {
                // As unproven as an mDNS answer (Bonjour's are the same).
                self.peer(peer).unseen = false;
                self.add_hints(peer, addrs);
                self.name(peer);
                self.events.push_back(Event::Discovered(peer));
            }
            Some(Sighting::Lost(peer)) => self.lost(peer),
            None => self.sightings = None,
        }
    }

    fn peer(&mut self, peer: PeerId) -> &mut Peer {
        let limits = self.limits;
        if self.peers.len() >= self.forget_at && !self.peers.contains_key(&peer) {
            let idle: Vec<PeerId> = (self.peers.iter())
                .filter_map(|(&id, p)| p.idle().then_some(id))
                .collect();
            // libp2p-mdns forgets them too: it names a phone only once
            // for each address, so a real phone still answering would
            // stay nearby with no address left to dial.
            for id in &idle {
                self.peers.remove(id);
                self.forget_sighting(id);
            }
            // Peers that are not idle stay; the next look waits until the
            // map has doubled, so that looking stays cheap per peer added.
            self.forget_at = MAX_PEERS.max(2 * self.peers.len());
        }
        self.peers.entry(peer).or_insert_with(|| {
            let session = self.next_session;
            self.next_session = session.wrapping_add(1);
            Peer::new(session, limits, Instant::now())
        })
    }

    /// Closes the connections that have not answered a ping for
    /// [`swarm::SILENT_LIMIT`].
    fn close_silent(&mut self) {
        let now = Instant::now();
        for (&connection, last) in self.heard.iter_mut() {
            if now.duration_since(*last) >= swarm::SILENT_LIMIT {
                info!(?connection, "no answer to pings; closing the connection");
                self.swarm.close_connection(connection);
                // Closing takes a moment; do not ask again every tick.
                *last = now;
            }
        }
    }

    /// Disconnects the peers that are [`Peer::quiet`].
    fn close_quiet(&mut self) {
        let now = Instant::now();
        let quiet: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.quiet(now))
            .map(|(&id, _)| id)
            .collect();
        for peer in quiet {
            self.let_go(peer, now);
        }
    }

    /// Disconnects `peer`, a stranger that took nothing for a while: what
    /// waits for it goes too, as when a list gives it up.
    fn let_go(&mut self, peer: PeerId, now: Instant) {
        debug!(%peer, "quiet and not kept; disconnecting");
        let _ = self.swarm.disconnect_peer_id(peer);
        if let Some(entry) = self.peers.get_mut(&peer) {
            entry.outbox.drop_all();
            // Closing takes a moment; do not pick it again meanwhile.
            entry.active_at = now;
        }
    }

    /// Whether a new inbound connection from `peer`, a stranger, may stay:
    /// yes while the strangers' slots are not full, or when the stranger
    /// quiet for longest has been so for [`MAKE_WAY_AFTER`] (it is let go).
    fn make_way(&mut self, peer: PeerId) -> bool {
        if self.strangers() < swarm::MAX_STRANGERS {
            return true;
        }
        let now = Instant::now();
        let quietest = self
            .peers
            .iter()
            .filter(|(id, p)| **id != peer && p.stranger())
            .min_by_key(|(_, p)| p.active_at)
            .filter(|(_, p)| now.duration_since(p.active_at) >= MAKE_WAY_AFTER)
            .map(|(&id, _)| id);
        if let Some(quietest) = quietest {
            self.let_go(quietest, now);
        }
        quietest.is_some()
    }

    /// Connections to the peers the application does not keep.
    fn strangers(&self) -> usize {
        self.peers
            .values()
            .filter(|p| p.stranger())
            .map(|p| p.connections)
            .sum()
    }

    fn redial_due(&mut self) {
        let now = Instant::now();
        let due: Vec<PeerId> = self
            .peers
            .iter_mut()
            .filter(|(_, p)| p.connections == 0 && !p.dialing)
            .filter_map(|(id, p)| p.redial.as_mut()?.take_due(now).then_some(*id))
            .collect();
        for peer in due {
            self.dial(peer);
        }
    }

    /// Sends again what waited out its [`RESEND_PAUSE`].
    fn resend_due(&mut self) {
        let now = Instant::now();
        let due: Vec<PeerId> = self
            .peers
            .iter()
            .filter(|(_, p)| p.resend_at.is_some_and(|at| at <= now))
            .map(|(&id, _)| id)
            .collect();
        for peer in due {
            self.flush(peer);
        }
    }

    /// Sends the next batch to `peer` if it is connected and nothing is in
    /// flight.
    fn flush(&mut self, peer: PeerId) {
        let Some(entry) = self.peers.get_mut(&peer) else {
            return;
        };
        if entry.connections == 0 || entry.resend_at.is_some_and(|at| Instant::now() < at) {
            return;
        }
        entry.resend_at = None;
        if let Some(batch) = entry.outbox.batch() {
            let id = self
                .swarm
                .behaviour_mut()
                .log
                .send_request(&peer, Request::Batch(batch));
            entry.in_flight = Some(id);
        }
    }

    fn handle(&mut self, event: SwarmEvent<BehaviourEvent>) {
        match event {
            SwarmEvent::Behaviour(BehaviourEvent::Log(event)) => self.on_log(event),
            SwarmEvent::Behaviour(BehaviourEvent::Mdns(event)) => self.on_mdns(event),
            SwarmEvent::Behaviour(BehaviourEvent::Identify(identify::Event::Received {
                peer_id,
                info,
                ..
            })) => {
                if info.protocol_version != swarm::IDENTIFY_PROTOCOL {
                    self.ban(
                        peer_id,
                        format!("speaks {:?}, not clovece", info.protocol_version),
                    );
                    return;
                }
                self.peer(peer_id).learn_all(info.listen_addrs);
            }
            SwarmEvent::Behaviour(BehaviourEvent::Ping(ping::Event {
                connection,
                result: Ok(_),
                ..
            })) => {
                self.heard.insert(connection, Instant::now());
            }
            SwarmEvent::Behaviour(BehaviourEvent::Ping(ping::Event {
                peer,
                connection,
                result: Err(error @ (ping::Failure::Timeout | ping::Failure::Other { .. })),
            })) => {
                info!(%peer, %error, "ping failed; closing the connection");
                self.swarm.close_connection(connection);
            }
            SwarmEvent::ConnectionEstablished {
                peer_id,
                connection_id,
                endpoint,
                ..
            } => {
                let kept = self.peers.get(&peer_id).is_some_and(Peer::kept);
                // The rest of the swarm's slots are the kept peers': the
                // game's players can always come back. This node's own
                // dials are its business: the phones it asks are bounded
                // lists' (`net::seen`), so a stranger cannot make it dial
                // without end.
                if !kept && endpoint.is_listener() && !self.make_way(peer_id) {
                    debug!(peer = %peer_id, "no slot left for a peer not kept");
                    self.swarm.close_connection(connection_id);
                    return;
                }
                self.heard.insert(connection_id, Instant::now());
                self.on_connected(peer_id, &endpoint);
            }
            SwarmEvent::ConnectionClosed {
                peer_id,
                connection_id,
                num_established,
                cause,
                ..
            } => {
                self.heard.remove(&connection_id);
                debug!(peer = %peer_id, ?cause, "connection closed");
                self.on_closed(peer_id, num_established as usize);
            }
            SwarmEvent::OutgoingConnectionError {
                peer_id: Some(peer),
                error,
                ..
            } => {
                debug!(%peer, %error, "dial failed");
                if let Some(entry) = self.peers.get_mut(&peer) {
                    entry.dialing = false;
                    if let Some(b) = &mut entry.redial {
                        b.dial_failed(Instant::now());
                    }
                }
            }
            SwarmEvent::NewListenAddr { address, .. } => {
                info!(%address, "listening");
                if !self.listening.contains(&address) {
                    self.listening.push(address);
                }
            }
            SwarmEvent::ExpiredListenAddr { address, .. } => {
                self.listening.retain(|a| *a != address);
            }
            _ => {}
        }
    }

    fn on_connected(&mut self, peer: PeerId, endpoint: &ConnectedPoint) {
        let now = Instant::now();
        let entry = self.peer(peer);
        if !entry.connected(now) {
            let _ = self.swarm.disconnect_peer_id(peer);
            return;
        }
        if let ConnectedPoint::Dialer { address, .. } = endpoint {
            entry.learn(address.clone());
        }
        if let Some(b) = &mut entry.redial {
            b.connected(now);
        }
        if entry.connections == 1 {
            self.events.push_back(Event::Connected(peer));
            self.flush(peer);
        }
    }

    fn on_closed(&mut self, peer: PeerId, remaining: usize) {
        let Some(entry) = self.peers.get_mut(&peer) else {
            return;
        };
        let was = entry.connections;
        entry.connections = remaining;
        if remaining == 0 && was > 0 {
            if let Some(b) = &mut entry.redial {
                b.failed(Instant::now());
            }
            self.events.push_back(Event::Disconnected(peer));
            if std::mem::take(&mut entry.unseen) {
                self.expired(peer);
            }
        }
    }

    fn on_log(&mut self, event: request_response::Event<Request, Ack>) {
        match event {
            request_response::Event::Message {
                peer,
                message:
                    request_response::Message::Request {
                        request: Request::Refused(why),
                        ..
                    },
                ..
            } => self.ban(peer, format!("sent garbage: {why}")),
            request_response::Event::Message {
                peer,
                message:
                    request_response::Message::Request {
                        request: Request::Batch(request),
                        channel,
                        request_id,
                    },
                ..
            } => {
                let now = Instant::now();
                let entry = self.peer(peer);
                if entry.banned(now) {
                    return;
                }
                let bytes = request.messages.iter().map(|m| m.len()).sum();
                let stranger = !entry.kept();
                let ack = match entry
                    .guard
                    .charge(request.messages.len(), bytes, stranger, now)
                {
                    // A stranger past its budget waits: its batch is
                    // answered as taking nothing, and sent again.
                    Err(Flood::Stranger(_)) => entry.inbox.refuse(&request),
                    Err(flood) => {
                        self.ban(peer, format!("flooding: {flood}"));
                        return;
                    }
                    Ok(()) => {
                        entry.active_at = now;
                        let (fresh, ack) = entry.inbox.accept(request);
                        self.events.extend(
                            fresh
                                .into_iter()
                                .map(|bytes| Event::Message { from: peer, bytes }),
                        );
                        ack
                    }
                };
                // The peer may be gone already; it then sends again.
                if self
                    .swarm
                    .behaviour_mut()
                    .log
                    .send_response(channel, ack)
                    .is_ok()
                {
                    self.answering.insert(request_id);
                }
            }
            request_response::Event::Message {
                peer,
                message:
                    request_response::Message::Response {
                        request_id,
                        response,
                    },
                ..
            } => {
                if let Some(entry) = self.peers.get_mut(&peer) {
                    if entry.in_flight == Some(request_id) {
                        entry.in_flight = None;
                        if entry.outbox.acked(response) {
                            entry.active_at = Instant::now();
                        } else {
                            entry.resend_at = Some(Instant::now() + RESEND_PAUSE);
                        }
                    }
                    self.flush(peer);
                }
            }
            request_response::Event::OutboundFailure {
                peer,
                request_id,
                error,
                ..
            } => {
                debug!(%peer, %error, "batch not acknowledged; it is sent again");
                if let Some(entry) = self.peers.get_mut(&peer)
                    && entry.in_flight == Some(request_id)
                {
                    entry.in_flight = None;
                    entry.outbox.failed();
                    if matches!(error, OutboundFailure::UnsupportedProtocols) {
                        self.ban(peer, "does not speak the game log protocol".to_owned());
                        return;
                    }
                    entry.resend_at = Some(Instant::now() + RESEND_PAUSE);
                }
            }
            request_response::Event::InboundFailure {
                peer,
                error,
                request_id,
                ..
            } => {
                debug!(%peer, %error, "inbound batch failed");
                self.answering.remove(&request_id);
            }
            request_response::Event::ResponseSent { request_id, .. } => {
                self.answering.remove(&request_id);
            }
        }
    }

    /// Keeps libp2p-mdns's own list of (peer, address) pairs within
    /// [`seen::MAX_SIGHTINGS`]: it holds each pair for as long as the
    /// announcement asks, which a made-up one can make hours. The peers
    /// dropped are the oldest the node has not reached (no connection,
    /// dial or redial); their `Expired` events follow.
    fn bound_mdns(&mut self) {
        let Some(mdns) = self.swarm.behaviour().mdns.as_ref() else {
            return;
        };
        if mdns.discovered_nodes().len() <= seen::MAX_SIGHTINGS {
            return;
        }
        let pairs: Vec<PeerId> = mdns.discovered_nodes().copied().collect();
        let kept = |peer: &PeerId| self.peers.get(peer).is_some_and(Peer::reached);
        let dropped = seen::overflow(&pairs, kept);
        if dropped.is_empty() {
            return;
        }
        debug!(count = dropped.len(), "mDNS list full: dropping idle peers");
        for peer in &dropped {
            self.forget_sighting(peer);
        }
    }

    /// Drops `peer` from libp2p-mdns's list (an [`Event::Expired`] follows
    /// if it was there), so that its next answer is a new sighting.
    fn forget_sighting(&mut self, peer: &PeerId) {
        if let Some(mdns) = self.swarm.behaviour_mut().mdns.as_mut() {
            // Deprecated in libp2p-mdns 0.48 as unused, and the only way to
            // drop a sighting from outside; libp2p is pinned (Cargo.toml), so
            // a release without it is a build error here, not a silent
            // change.
            #[allow(deprecated)]
            mdns.expire_node(peer);
        }
    }

    /// The discovery no longer names `peer`: it is lost
    /// ([`Event::Expired`]) now, or if it is connected, once that
    /// connection is down. Anyone on the Wi-Fi can announce any peer id
    /// gone (an mDNS answer that lives 0 s), and a connection the peer's
    /// key secured says more than that.
    fn lost(&mut self, peer: PeerId) {
        match self.peers.get_mut(&peer) {
            Some(entry) if entry.connections > 0 => entry.unseen = true,
            _ => self.expired(peer),
        }
    }

    /// The discovery no longer names `peer`, and it is not connected.
    fn expired(&mut self, peer: PeerId) {
        self.named.retain(|&p| p != peer);
        self.events.push_back(Event::Expired(peer));
    }

    /// Notes `peer` as named by the discovery the node hears. Past the
    /// bound, it takes the place of the oldest the node has not reached
    /// (a flood of made-up finds must not push out real phones); with
    /// every one reached, it is not noted (its `Discovered` still goes).
    fn name(&mut self, peer: PeerId) {
        if self.named.contains(&peer) {
            return;
        }
        let peers = &self.peers;
        let reached = |p: &PeerId| peers.get(p).is_some_and(Peer::reached);
        if seen::make_room(&mut self.named, reached).is_ok() {
            self.named.push(peer);
        }
    }

    fn on_mdns(&mut self, event: mdns::Event) {
        match event {
            mdns::Event::Discovered(found) => {
                let mut new = Vec::new();
                for (peer, addr) in found {
                    let entry = self.peer(peer);
                    entry.unseen = false;
                    entry.sight(addr);
                    if !new.contains(&peer) {
                        new.push(peer);
                    }
                }
                // A phone the node keeps and had no address for (a game
                // resumed without its address book) is dialled once found.
                for &peer in &new {
                    if self.peers.get(&peer).is_some_and(Peer::kept) {
                        self.dial(peer);
                    }
                }
                self.events.extend(new.into_iter().map(Event::Discovered));
                self.bound_mdns();
            }
            mdns::Event::Expired(gone) => {
                let mut expired = Vec::new();
                for (peer, _) in gone {
                    if !expired.contains(&peer) {
                        expired.push(peer);
                    }
                }
                let named = |peer: &PeerId| {
                    self.swarm
                        .behaviour()
                        .mdns
                        .as_ref()
                        .is_some_and(|mdns| mdns.discovered_nodes().any(|p| p == peer))
                };
                expired.retain(|peer| !named(peer));
                for peer in expired {
                    self.lost(peer);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_is_kept_only_at_addresses_it_can_be_dialled_at() {
        let mut peer = Peer::new(1, Limits::default(), Instant::now());
        let me = PeerId::random();
        for addr in [
            "/ip4/192.168.1.5/tcp/4001".to_owned(),
            format!("/ip6/fe80::1/tcp/4002/p2p/{me}"),
            "/ip4/192.168.1.5/udp/4001/quic-v1".to_owned(),
            "/dns4/example.org/tcp/443".to_owned(),
            format!("/ip4/10.0.0.1/tcp/1/dns/{}", "a".repeat(3000)),
        ] {
            peer.learn(addr.parse().unwrap());
        }
        let kept: Vec<String> = peer.addrs.iter().map(ToString::to_string).collect();
        assert_eq!(kept, ["/ip4/192.168.1.5/tcp/4001", "/ip6/fe80::1/tcp/4002"]);
    }

    /// A desktop listening on more addresses than a peer keeps: those
    /// another phone on the Wi-Fi most likely reaches are kept, whatever
    /// order identify lists them in.
    #[test]
    fn of_too_many_addresses_the_likeliest_are_kept_first() {
        let mut peer = Peer::new(1, Limits::default(), Instant::now());
        let wifi: Multiaddr = "/ip4/192.168.1.5/tcp/4001".parse().unwrap();
        let mut told = vec![wifi.clone()];
        told.extend((1..=20).map(|n| format!("/ip6/2001:db8::{n}/tcp/4001").parse().unwrap()));
        peer.learn_all(told);
        assert_eq!(peer.addrs.len(), seen::MAX_ADDRS);
        assert!(peer.addrs.contains(&wifi));
        // An address learnt later pushes out the least likely.
        peer.learn("/ip4/10.0.0.2/tcp/4001".parse().unwrap());
        assert!(peer.addrs.contains(&wifi));
    }

    /// Anyone on the Wi-Fi can answer mDNS for any peer id: a flood of
    /// such answers must not push out, nor come before, an address the
    /// peer's ticket (or the peer itself) gave.
    #[test]
    fn addresses_only_mdns_named_never_push_out_or_precede_vouched_ones() {
        let mut peer = Peer::new(1, Limits::default(), Instant::now());
        let addr =
            |port: u16| -> Multiaddr { format!("/ip4/10.0.0.9/tcp/{port}").parse().unwrap() };
        peer.sight(addr(1));
        peer.learn(addr(2));
        for port in 100..200 {
            peer.sight(addr(port));
        }
        let dial = peer.dial_addrs();
        assert_eq!(dial[0], addr(2));
        assert_eq!(dial.len(), 1 + seen::MAX_ADDRS);
        // Reached there, a sighted address is vouched for from then on,
        // and tried first.
        peer.learn(addr(199));
        assert_eq!(peer.dial_addrs()[..2], [addr(199), addr(2)]);
        assert_eq!(
            peer.dial_addrs()
                .iter()
                .filter(|&a| *a == addr(199))
                .count(),
            1
        );
        // And one vouched for is not sighted again.
        peer.sight(addr(2));
        assert_eq!(
            peer.dial_addrs().iter().filter(|&a| *a == addr(2)).count(),
            1
        );
    }

    /// libp2p opens a socket for every address a dial is given, as the
    /// dial starts: a dial takes eight, and a redial the next eight, so
    /// that a peer with more is not dialled at the same unreachable ones
    /// for good; once reached, the newest addresses come first again.
    #[test]
    fn a_dial_tries_eight_addresses_and_a_redial_the_next_ones() {
        let now = Instant::now();
        let mut peer = Peer::new(1, Limits::default(), now);
        let addr =
            |port: u16| -> Multiaddr { format!("/ip4/10.0.0.9/tcp/{port}").parse().unwrap() };
        for port in 1..=5 {
            peer.learn(addr(port));
        }
        let newest_first: Vec<_> = (1..=5).rev().map(addr).collect();
        assert_eq!(peer.next_dial(), newest_first);
        peer.dialled();
        assert_eq!(peer.next_dial(), newest_first, "all of them each time");
        for port in 6..=12 {
            peer.sight(addr(port));
        }
        let all = peer.dial_addrs();
        assert_eq!(all.len(), 12);
        let first = peer.next_dial();
        assert_eq!(first, all[..8]);
        assert_eq!(peer.next_dial(), first, "the same until a dial starts");
        peer.dialled();
        let second = peer.next_dial();
        assert_eq!(second.len(), 8);
        assert_eq!(second[..4], all[8..]);
        assert!(
            all.iter().all(|a| first.contains(a) || second.contains(a)),
            "two dials try every address"
        );
        peer.dialled();
        assert!(peer.connected(now));
        assert_eq!(peer.next_dial(), all[..8]);
    }

    /// A ticket, a start or the address book lists a peer's addresses the
    /// likeliest first: the first dial tries those, and the node passes
    /// them on in the same order. (Learnt in their order, the newest, which
    /// dials try first, were the least likely.)
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn addresses_given_likeliest_first_are_dialled_and_passed_on_so() {
        let config = Config {
            listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
            mdns: false,
            ..Config::default()
        };
        let mut node = Node::start(Keypair::generate_ed25519(), config)
            .await
            .unwrap();
        let peer = PeerId::random();
        let given: Vec<Multiaddr> = (1..=16)
            .map(|port| format!("/ip4/10.0.0.9/tcp/{port}").parse().unwrap())
            .collect();
        node.add_addrs(peer, given.clone());
        assert_eq!(node.addrs(peer), given, "passed on as given");
        let first = node.peers[&peer].next_dial();
        assert_eq!(first, given[..8]);
    }

    #[test]
    fn a_banned_peer_reached_by_a_dial_is_refused_and_may_be_dialled_after_its_ban() {
        let now = Instant::now();
        let mut peer = Peer::new(1, Limits::default(), now);
        peer.dialing = true;
        peer.banned_until = Some(now + BAN);
        assert!(!peer.connected(now));
        assert_eq!(peer.connections, 0);
        assert!(!peer.dialing, "the dial is over");
        assert!(peer.connected(now + BAN));
        assert_eq!(peer.connections, 1);
    }
}
