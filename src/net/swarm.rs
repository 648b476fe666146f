//! The libp2p stack: TCP with noise encryption and yamux multiplexing on
//! tokio, and the behaviours a phone needs: identify (to learn a peer's
//! listen addresses after it dialled us), ping (to notice a dead link),
//! mDNS (to find phones nearby), connection limits, and the game log's
//! request-response channel ([`super::wire`]).

use std::num::NonZeroU8;
use std::time::Duration;

use libp2p::identity::Keypair;
use libp2p::swarm::NetworkBehaviour;
use libp2p::swarm::behaviour::toggle::Toggle;
use libp2p::{
    Swarm, SwarmBuilder, connection_limits, identify, mdns, noise, ping, request_response, tcp,
    yamux,
};

use super::seen;
use super::wire::{LogCodec, PROTOCOL};

/// The identify protocol version: peers of other apps are not players.
pub const IDENTIFY_PROTOCOL: &str = "/clovece/1";

/// How often mDNS asks again who is around once it has heard an answer
/// (libp2p's default is five minutes). The first query goes out at once,
/// and while nobody answers libp2p retries after 0.5 s and then this
/// interval; a phone that starts answers the others' queries and its own
/// query's answers reach everyone, so phones see each other well within the
/// lobby's two seconds.
pub const MDNS_QUERY_INTERVAL: Duration = Duration::from_secs(1);

/// How long a discovered phone is remembered without being heard again
/// (libp2p's default is six minutes, too long for a lobby list).
pub const MDNS_TTL: Duration = Duration::from_secs(20);

/// How often a connection is pinged, and how long one answer may take.
pub const PING_INTERVAL: Duration = Duration::from_secs(2);
pub const PING_TIMEOUT: Duration = Duration::from_secs(4);

/// A connection with no answered ping for this long is closed by the node.
/// libp2p's ping only reports, forgives the first failure, and then waits
/// for a new stream's negotiation to time out, so on its own a dead link
/// is noticed only after about 20 s. Meanwhile request-response spreads
/// batches over all of a peer's connections, and a restarted phone's new
/// connection would share its batches with the dead one.
pub const SILENT_LIMIT: Duration = Duration::from_secs(6);

/// How long a connection with no open stream stays up: a whole game (the
/// default of ten seconds would close it between two quiet turns). The node
/// closes connections itself when the game ends.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(6 * 60 * 60);

/// How long a batch may wait for its acknowledgement before it is sent
/// again.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Streams of the log protocol open at once on one connection, inbound
/// and outbound together (libp2p counts both): one batch in flight each
/// way, as honest peers have; past it a stream is dropped, and its batch
/// sent again after the pause of a failed one. Each inbound stream may
/// hold a batch's worth of bytes (`wire::MAX_BATCH_BYTES`, some 260 KB)
/// for the request timeout, so the strangers' connections can hold 64 ×
/// 2 of them, some 33 MB, where 8 a connection let one device make a
/// phone hold 130 MB.
const MAX_CONCURRENT_STREAMS: usize = 2;

/// Connections to one peer (two dialling each other at once make two; a
/// restarted peer's new connection may meet the old one not yet closed).
const MAX_PER_PEER: u32 = 4;
/// Connections in all, and half-open incoming ones: a room has at most
/// four phones, plus some looking up its code; a nearby rooms list asks up
/// to [`seen::MAX_PHONES`] phones.
const MAX_ESTABLISHED: u32 = 80;
const MAX_PENDING_INCOMING: u32 = 16;
/// Dials under way at once: as many as established connections. Made-up
/// phones (mDNS answers cost nothing) whose ports never answer hold a dial
/// each for its whole timeout, a socket for each of its addresses (at
/// most [`DIAL_ADDRS`]); without a bound a lookup in such a flood opened
/// sockets until the process ran out of files.
const MAX_PENDING_OUTGOING: u32 = MAX_ESTABLISHED;
/// The addresses one dial is given, and tries at once (libp2p's default
/// concurrency, set here so that the two stay one). libp2p opens every
/// address's socket as the dial starts, not as its turn comes, so a dial
/// given more would hold more files for its whole timeout, and those past
/// the concurrency would time out untried.
pub const DIAL_ADDRS: NonZeroU8 = NonZeroU8::new(8).unwrap();
/// The connections a node takes from the peers it does not keep (phones
/// looking up the room, browsing, or anything else on the Wi-Fi): the
/// others are for the four phones it keeps at most (the other players, or
/// the host's guests).
pub const MAX_STRANGERS: usize = (MAX_ESTABLISHED - 4 * MAX_PER_PEER) as usize;
const _: () = assert!(
    MAX_STRANGERS >= seen::MAX_PHONES,
    "a nearby rooms list reaches every phone it asks"
);

#[derive(NetworkBehaviour)]
pub struct Behaviour {
    pub limits: connection_limits::Behaviour,
    pub identify: identify::Behaviour,
    pub ping: ping::Behaviour,
    pub mdns: Toggle<mdns::tokio::Behaviour>,
    pub log: request_response::Behaviour<LogCodec>,
}

#[derive(Debug, thiserror::Error)]
pub enum SwarmError {
    #[error("cannot set up TCP with noise and yamux: {0}")]
    Transport(#[from] noise::Error),
    #[error("cannot start mDNS: {0}")]
    Mdns(String),
}

/// A swarm for `keypair`, on the current tokio runtime, with mDNS if
/// `mdns` (tests on loopback turn it off: it would send multicast on the
/// machine's real interfaces, and libp2p-mdns skips loopback anyway).
pub fn build(keypair: Keypair, mdns: bool) -> Result<Swarm<Behaviour>, SwarmError> {
    let tcp = tcp::Config::default().nodelay(true);
    Ok(SwarmBuilder::with_existing_identity(keypair)
        .with_tokio()
        .with_tcp(tcp, noise::Config::new, yamux::Config::default)?
        .with_behaviour(|key| behaviour(key, mdns))
        .map_err(|e| SwarmError::Mdns(e.to_string()))?
        .with_swarm_config(|c| {
            c.with_idle_connection_timeout(IDLE_TIMEOUT)
                .with_dial_concurrency_factor(DIAL_ADDRS)
        })
        .build())
}

fn behaviour(
    key: &Keypair,
    mdns: bool,
) -> Result<Behaviour, Box<dyn std::error::Error + Send + Sync>> {
    let peer = key.public().to_peer_id();
    let mdns = if mdns {
        let config = mdns::Config {
            ttl: MDNS_TTL,
            query_interval: MDNS_QUERY_INTERVAL,
            ..mdns::Config::default()
        };
        Some(mdns::tokio::Behaviour::new(config, peer)?)
    } else {
        None
    };
    let limits = connection_limits::ConnectionLimits::default()
        .with_max_established_per_peer(Some(MAX_PER_PEER))
        .with_max_established(Some(MAX_ESTABLISHED))
        .with_max_pending_incoming(Some(MAX_PENDING_INCOMING))
        .with_max_pending_outgoing(Some(MAX_PENDING_OUTGOING));
    let identify = identify::Config::new(IDENTIFY_PROTOCOL.to_owned(), key.public())
        .with_agent_version(concat!("clovece/", env!("CARGO_PKG_VERSION")).to_owned());
    let log = request_response::Config::default()
        .with_request_timeout(REQUEST_TIMEOUT)
        .with_max_concurrent_streams(MAX_CONCURRENT_STREAMS);
    Ok(Behaviour {
        limits: connection_limits::Behaviour::new(limits),
        identify: identify::Behaviour::new(identify),
        ping: ping::Behaviour::new(
            ping::Config::new()
                .with_interval(PING_INTERVAL)
                .with_timeout(PING_TIMEOUT),
        ),
        mdns: mdns.into(),
        log: request_response::Behaviour::with_codec(
            LogCodec,
            [(PROTOCOL, request_response::ProtocolSupport::Full)],
            log,
        ),
    })
}
