//! The join ticket: everything a phone needs to reach a room directly,
//! without discovery, so joining works where multicast is blocked (many
//! Wi-Fi networks, iOS without the multicast entitlement).
//!
//! A ticket carries the room id, the host's `PeerId`, the addresses the host
//! listens on and, for a private room, its secret. Its text form is a link,
//! `CLOVECE:` followed by the RFC 4648 base32 of a version byte and the
//! postcard encoding of the fields. Base32 upper case keeps the whole link
//! in the QR code's compact alphanumeric mode, and survives being read out
//! or typed (parsing ignores case). Addresses are stored without their
//! `/p2p/<PeerId>` suffix, which [`Ticket::dial_addrs`] adds back, since the
//! peer id is in the ticket once already.

use std::fmt;
use std::str::FromStr;

use data_encoding::BASE32_NOPAD;
use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};
use qrcode::{EcLevel, QrCode};
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

use super::code::RoomCode;

/// The link's scheme, in upper case so that QR codes stay alphanumeric.
const SCHEME: &str = "CLOVECE:";

/// The ticket format this app writes and reads.
const VERSION: u8 = 1;

/// The most addresses a ticket lists (a phone has a handful of interfaces).
pub const MAX_ADDRS: usize = 16;

/// The longest link parsed; longer text is refused before decoding.
pub const MAX_LINK: usize = 2048;

/// A room's id: random, fixed when the room is opened.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RoomId([u8; 16]);

impl RoomId {
    /// A fresh id from the operating system's random source.
    pub fn generate() -> Result<RoomId, getrandom::Error> {
        let mut bytes = [0; 16];
        getrandom::fill(&mut bytes)?;
        Ok(RoomId(bytes))
    }

    pub fn from_bytes(bytes: [u8; 16]) -> RoomId {
        RoomId(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

impl fmt::Debug for RoomId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RoomId({})", RoomCode::of(self))
    }
}

/// The secret of a private room: only phones that hold it (from the
/// ticket) may join.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RoomSecret([u8; 16]);

impl RoomSecret {
    pub fn generate() -> Result<RoomSecret, getrandom::Error> {
        let mut bytes = [0; 16];
        getrandom::fill(&mut bytes)?;
        Ok(RoomSecret(bytes))
    }

    pub fn from_bytes(bytes: [u8; 16]) -> RoomSecret {
        RoomSecret(bytes)
    }
}

impl fmt::Debug for RoomSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RoomSecret(…)")
    }
}

/// A join ticket (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ticket {
    room: RoomId,
    host: PeerId,
    addrs: Vec<Multiaddr>,
    secret: Option<RoomSecret>,
}

/// Why text is not a usable ticket.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TicketError {
    #[error("a ticket starts with {SCHEME:?}")]
    Scheme,
    #[error("the ticket is {0} characters long, more than the {MAX_LINK} a ticket can have")]
    TooLong(usize),
    #[error("the ticket is damaged (not base32): {0}")]
    Encoding(#[from] data_encoding::DecodeError),
    #[error("the ticket is empty")]
    Empty,
    #[error("the ticket was made by a newer version of clovece (format {0}); update the app")]
    Version(u8),
    #[error("the ticket is damaged: no version of clovece makes tickets of format {0}")]
    UnknownFormat(u8),
    #[error("the ticket is damaged: {0}")]
    Malformed(#[from] postcard::Error),
    #[error("the ticket's host id is invalid")]
    Host,
    #[error("the ticket's address {0} is invalid")]
    Address(usize),
    #[error("the address {0} belongs to another peer than the ticket's host")]
    OtherPeer(Multiaddr),
    #[error("a ticket needs at least one address of the host")]
    NoAddress,
    #[error("a ticket lists at most {MAX_ADDRS} addresses, not {0}")]
    TooManyAddresses(usize),
}

/// The fields as they are encoded.
#[derive(Serialize, Deserialize)]
struct Wire {
    room: RoomId,
    host: ByteBuf,
    addrs: Vec<ByteBuf>,
    secret: Option<RoomSecret>,
}

impl Ticket {
    /// A ticket for `room` hosted by `host` at `addrs`. Addresses may end in
    /// `/p2p/<host>`; duplicates are dropped. Of more than [`MAX_ADDRS`],
    /// those a phone on the same Wi-Fi most likely reaches are kept
    /// ([`likeliest`]).
    pub fn new(
        room: RoomId,
        host: PeerId,
        addrs: impl IntoIterator<Item = Multiaddr>,
        secret: Option<RoomSecret>,
    ) -> Result<Ticket, TicketError> {
        let mut bare: Vec<Multiaddr> = Vec::new();
        for mut addr in addrs {
            match addr.iter().last() {
                Some(Protocol::P2p(peer)) if peer == host => {
                    addr.pop();
                }
                Some(Protocol::P2p(_)) => return Err(TicketError::OtherPeer(addr)),
                _ => {}
            }
            if !bare.contains(&addr) {
                bare.push(addr);
            }
        }
        let bare = likeliest(bare);
        match bare.len() {
            0 => Err(TicketError::NoAddress),
            _ => Ok(Ticket {
                room,
                host,
                addrs: bare,
                secret,
            }),
        }
    }

    pub fn room(&self) -> RoomId {
        self.room
    }

    pub fn host(&self) -> PeerId {
        self.host
    }

    pub fn secret(&self) -> Option<RoomSecret> {
        self.secret
    }

    /// The same ticket with `secret` in place of its own.
    pub fn with_secret(&self, secret: RoomSecret) -> Ticket {
        Ticket {
            secret: Some(secret),
            ..self.clone()
        }
    }

    /// The room's short code.
    pub fn code(&self) -> RoomCode {
        RoomCode::of(&self.room)
    }

    /// The host's addresses, without the `/p2p` suffix.
    pub fn addrs(&self) -> &[Multiaddr] {
        &self.addrs
    }

    /// The host's addresses as they are dialled: `/ip4/…/tcp/…/p2p/<host>`.
    pub fn dial_addrs(&self) -> impl Iterator<Item = Multiaddr> + '_ {
        self.addrs
            .iter()
            .map(|a| a.clone().with(Protocol::P2p(self.host)))
    }

    /// The ticket as a QR code of its link.
    pub fn qr(&self) -> Result<QrCode, qrcode::types::QrError> {
        QrCode::with_error_correction_level(self.to_string(), EcLevel::M)
    }

    fn encode(&self) -> Vec<u8> {
        let wire = Wire {
            room: self.room,
            host: ByteBuf::from(self.host.to_bytes()),
            addrs: self
                .addrs
                .iter()
                .map(|a| ByteBuf::from(a.to_vec()))
                .collect(),
            secret: self.secret,
        };
        let mut bytes = vec![VERSION];
        bytes.extend(postcard::to_stdvec(&wire).expect("a ticket serialises to memory"));
        bytes
    }

    fn decode(bytes: &[u8]) -> Result<Ticket, TicketError> {
        let (&version, body) = bytes.split_first().ok_or(TicketError::Empty)?;
        // Format 1 is the first there is: a lower one is not a newer
        // app's ticket but a damaged one (say, a code typed after the
        // scheme).
        if version > VERSION {
            return Err(TicketError::Version(version));
        }
        if version < VERSION {
            return Err(TicketError::UnknownFormat(version));
        }
        let wire: Wire = postcard::from_bytes(body)?;
        let host = PeerId::from_bytes(&wire.host).map_err(|_| TicketError::Host)?;
        if wire.addrs.len() > MAX_ADDRS {
            return Err(TicketError::TooManyAddresses(wire.addrs.len()));
        }
        let addrs = wire
            .addrs
            .into_iter()
            .enumerate()
            .map(|(i, a)| Multiaddr::try_from(a.into_vec()).map_err(|_| TicketError::Address(i)))
            .collect::<Result<Vec<_>, _>>()?;
        Ticket::new(wire.room, host, addrs, wire.secret)
    }
}

impl fmt::Display for Ticket {
    /// The ticket's link.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}", BASE32_NOPAD.encode(&self.encode()))
    }
}

impl FromStr for Ticket {
    type Err = TicketError;

    /// Reads a link in any case, surrounding white space ignored.
    fn from_str(s: &str) -> Result<Ticket, TicketError> {
        let s = s.trim();
        if s.len() > MAX_LINK {
            return Err(TicketError::TooLong(s.len()));
        }
        let upper = s.to_ascii_uppercase();
        let body = upper.strip_prefix(SCHEME).ok_or(TicketError::Scheme)?;
        Ticket::decode(&BASE32_NOPAD.decode(body.as_bytes())?)
    }
}

/// `addrs`, or of more than [`MAX_ADDRS`] those a phone on the same
/// Wi-Fi most likely reaches, in their order: what a ticket lists, and
/// what a host tells its guests and keeps for its restart (a phone keeps
/// at most that many of another's addresses, so the Wi-Fi's must not be
/// pushed out by a desktop's container bridges and VPNs).
pub fn likeliest(mut addrs: Vec<Multiaddr>) -> Vec<Multiaddr> {
    if addrs.len() > MAX_ADDRS {
        addrs.sort_by_key(reach);
        addrs.truncate(MAX_ADDRS);
    }
    addrs
}

/// How likely another phone on the Wi-Fi reaches `addr`, lower first:
/// private IPv4 (which of them is the Wi-Fi's is not known here, so they
/// keep their order), other IPv4, loopback (a guest on the same machine),
/// IPv6, and link-local addresses last.
fn reach(addr: &Multiaddr) -> u8 {
    match addr.iter().next() {
        Some(Protocol::Ip4(ip)) if ip.is_private() => 0,
        Some(Protocol::Ip4(ip)) if ip.is_link_local() => 4,
        Some(Protocol::Ip4(ip)) if ip.is_loopback() => 2,
        Some(Protocol::Ip4(_)) => 1,
        Some(Protocol::Ip6(ip)) if ip.is_unicast_link_local() => 4,
        Some(Protocol::Ip6(ip)) if ip.is_loopback() => 2,
        _ => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use libp2p::identity::Keypair;
    use proptest::prelude::*;

    fn host() -> PeerId {
        Keypair::ed25519_from_bytes([3u8; 32])
            .unwrap()
            .public()
            .to_peer_id()
    }

    fn ticket(secret: Option<RoomSecret>) -> Ticket {
        let addrs = [
            "/ip4/127.0.0.1/tcp/4001".parse().unwrap(),
            format!("/ip4/192.0.2.7/tcp/4001/p2p/{}", host())
                .parse()
                .unwrap(),
            "/ip6/::1/tcp/4001".parse().unwrap(),
        ];
        Ticket::new(RoomId::from_bytes([9; 16]), host(), addrs, secret).unwrap()
    }

    #[test]
    fn ticket_link_round_trips() {
        for secret in [None, Some(RoomSecret::from_bytes([5; 16]))] {
            let t = ticket(secret);
            let link = t.to_string();
            assert!(link.starts_with("CLOVECE:"), "{link}");
            assert_eq!(link.parse::<Ticket>(), Ok(t.clone()));
            assert_eq!(link.to_lowercase().parse::<Ticket>(), Ok(t));
        }
    }

    #[test]
    fn a_host_on_many_interfaces_keeps_those_a_phone_reaches() {
        // A desktop with twenty container bridges, a VPN's link-local
        // address, loopback and its Wi-Fi address.
        let mut addrs: Vec<Multiaddr> = (0..20)
            .map(|i| format!("/ip4/172.{}.0.1/tcp/4001", 17 + i).parse().unwrap())
            .collect();
        addrs.push("/ip4/169.254.3.4/tcp/4001".parse().unwrap());
        addrs.push("/ip4/127.0.0.1/tcp/4001".parse().unwrap());
        addrs.push("/ip4/192.168.1.20/tcp/4001".parse().unwrap());
        let t = Ticket::new(RoomId::from_bytes([9; 16]), host(), addrs, None).unwrap();
        let kept: Vec<String> = t.addrs().iter().map(|a| a.to_string()).collect();
        assert_eq!(kept.len(), MAX_ADDRS);
        assert!(
            kept.contains(&"/ip4/192.168.1.20/tcp/4001".to_owned()),
            "{kept:?}"
        );
        assert!(!kept.iter().any(|a| a.contains("169.254")), "{kept:?}");
        assert_eq!(t.to_string().parse::<Ticket>(), Ok(t));
        // Up to the limit, every address is kept, in its order.
        assert_eq!(ticket(None).addrs().len(), 3);
    }

    #[test]
    fn ticket_dial_addresses_name_the_host() {
        let t = ticket(None);
        let dial: Vec<String> = t.dial_addrs().map(|a| a.to_string()).collect();
        assert_eq!(dial[0], format!("/ip4/127.0.0.1/tcp/4001/p2p/{}", host()));
        assert_eq!(dial.len(), 3);
    }

    #[test]
    fn ticket_link_fits_a_small_qr_code() {
        let t = ticket(Some(RoomSecret::from_bytes([5; 16])));
        assert!(t.to_string().len() < 200, "{}", t);
        let qr = t.qr().unwrap();
        assert!(qr.width() <= 57, "version {:?}", qr.version());
    }

    #[test]
    fn ticket_needs_an_address_of_its_host() {
        let room = RoomId::from_bytes([1; 16]);
        assert_eq!(
            Ticket::new(room, host(), [], None),
            Err(TicketError::NoAddress)
        );
        let other = Keypair::generate_ed25519().public().to_peer_id();
        let addr: Multiaddr = format!("/ip4/127.0.0.1/tcp/1/p2p/{other}").parse().unwrap();
        assert_eq!(
            Ticket::new(room, host(), [addr.clone()], None),
            Err(TicketError::OtherPeer(addr))
        );
    }

    #[test]
    fn ticket_errors_are_clear() {
        assert_eq!("hello".parse::<Ticket>(), Err(TicketError::Scheme));
        assert_eq!("CLOVECE:".parse::<Ticket>(), Err(TicketError::Empty));
        assert!(matches!(
            "CLOVECE:0189".parse::<Ticket>(),
            Err(TicketError::Encoding(_))
        ));
        let newer = format!("CLOVECE:{}", BASE32_NOPAD.encode(&[2, 0, 0]));
        assert_eq!(newer.parse::<Ticket>(), Err(TicketError::Version(2)));
        let unknown = format!("CLOVECE:{}", BASE32_NOPAD.encode(&[0, 0, 0]));
        assert_eq!(
            unknown.parse::<Ticket>(),
            Err(TicketError::UnknownFormat(0))
        );
        let long = format!("CLOVECE:{}", "A".repeat(MAX_LINK));
        assert!(matches!(
            long.parse::<Ticket>(),
            Err(TicketError::TooLong(_))
        ));
        let truncated = &ticket(None).to_string()[..40];
        assert!(truncated.parse::<Ticket>().is_err());
    }

    proptest! {
        #[test]
        fn ticket_parsing_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let link = format!("CLOVECE:{}", BASE32_NOPAD.encode(&bytes));
            let _ = link.parse::<Ticket>();
        }

        #[test]
        fn ticket_with_one_byte_changed_never_panics(at in 8usize..100, ch in "[A-Z2-7]") {
            let mut link = ticket(None).to_string();
            link.replace_range(at..at + 1, &ch);
            let _ = link.parse::<Ticket>();
        }
    }
}
