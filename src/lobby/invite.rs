//! Invitations: the host invites a phone from its friends list (people it
//! has played with, from the statistics) or the all players list (phones
//! seen nearby), whatever the room's options; the invited phone sees who
//! invites and to what, and accepts (joins with the ticket the invitation
//! carries, so a private room works too) or declines.
//!
//! [`Target`] is whom the host invites; [`receive`] is the invited side of
//! `clovece invitations`, and [`Invitation::of`] and [`declined`] are its
//! parts that the app's invitations inbox uses too.

use std::fmt;
use std::io::Write;
use std::str::FromStr;
use std::time::Duration;

use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use libp2p::{Multiaddr, PeerId};

use super::options::Shown;
use crate::net::game::{MAX_NAME, is_loopback};
use crate::net::room::{Frame, Listing, Lobby};
use crate::net::{Config, Event, NetError, Node, Ticket};

/// How long a decline may take to reach the host.
const DECLINE_WAIT: Duration = Duration::from_secs(5);

/// A phone to invite: its peer id (its addresses found nearby), or an
/// address ending in `/p2p/<peer id>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub peer: PeerId,
    pub addrs: Vec<Multiaddr>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is neither a peer id nor an address ending in /p2p/<peer id>")]
pub struct BadTarget(pub String);

impl FromStr for Target {
    type Err = BadTarget;

    fn from_str(s: &str) -> Result<Target, BadTarget> {
        let s = s.trim();
        if let Ok(peer) = s.parse::<PeerId>() {
            return Ok(Target {
                peer,
                addrs: Vec::new(),
            });
        }
        let mut addr: Multiaddr = s.parse().map_err(|_| BadTarget(s.to_owned()))?;
        match addr.pop() {
            Some(Protocol::P2p(peer)) => Ok(Target {
                peer,
                addrs: vec![addr],
            }),
            _ => Err(BadTarget(s.to_owned())),
        }
    }
}

/// An invitation as the invited phone received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub ticket: Ticket,
    pub listing: Listing,
    /// The host's nickname.
    pub from: String,
}

impl Invitation {
    /// The invitation in `message` from `sender`, if it is a sound one: a
    /// phone can only invite to its own room, of 2–4 seats.
    pub fn of(sender: PeerId, message: Lobby) -> Option<Invitation> {
        let Lobby::Invite {
            ticket,
            listing,
            from,
        } = message
        else {
            return None;
        };
        let ticket: Ticket = ticket.parse().ok()?;
        (ticket.host() == sender && listing.could_start()).then(|| Invitation {
            ticket,
            listing,
            from: from
                .chars()
                .filter(|c| !c.is_control())
                .take(MAX_NAME)
                .collect(),
        })
    }
}

impl Invitation {
    /// The host and its invitation, if `event` is a sound invitation.
    pub fn in_event(event: Event) -> Option<(PeerId, Invitation)> {
        let Event::Message { from, bytes } = event else {
            return None;
        };
        let Ok(Frame::Lobby(message)) = Frame::decode(&bytes) else {
            return None;
        };
        Invitation::of(from, message).map(|invitation| (from, invitation))
    }
}

impl fmt::Display for Invitation {
    /// `from "Hana" <peer id> room <code> players 2 turn 30 … ticket <ticket>`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "from {:?} {} room {} {} ticket {}",
            self.from,
            self.ticket.host(),
            self.ticket.code(),
            Shown(&self.listing),
            self.ticket
        )
    }
}

/// What the invited phone answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Accept,
    Decline,
}

#[derive(Debug, thiserror::Error)]
pub enum InviteError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error("no invitation came within {0:?}")]
    NoInvitation(Duration),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

/// Waits up to `wait` for an invitation, printing `id: <peer id>`, then
/// `address: <addr>/p2p/<id>` for each address (what the host invites),
/// then `invite: <invitation>`. Declines it (and returns `None`) or returns
/// it for the caller to join.
pub async fn receive(
    keypair: Keypair,
    listen: Vec<Multiaddr>,
    wait: Duration,
    answer: Answer,
    out: &mut impl Write,
) -> Result<Option<Invitation>, InviteError> {
    let config = Config {
        mdns: !listen.iter().all(is_loopback),
        listen,
        ..Config::default()
    };
    let mut node = Node::start(keypair, config).await?;
    let me = node.peer_id();
    writeln!(out, "id: {me}")?;
    for addr in node.listen_addrs() {
        writeln!(out, "address: {}", addr.with(Protocol::P2p(me)))?;
    }
    out.flush()?;
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    let (host, invitation) = loop {
        let event = tokio::select! {
            () = &mut deadline => return Err(InviteError::NoInvitation(wait)),
            event = node.next() => event,
        };
        if let Some(invited) = Invitation::in_event(event) {
            break invited;
        }
    };
    writeln!(out, "invite: {invitation}")?;
    out.flush()?;
    match answer {
        Answer::Accept => Ok(Some(invitation)),
        Answer::Decline => {
            let _ = node.send(host, declined(&invitation));
            let sent = async {
                while node.unacknowledged(host) > 0 {
                    node.next().await;
                }
            };
            // The host may be gone; the decline is then moot.
            let _ = tokio::time::timeout(DECLINE_WAIT, sent).await;
            writeln!(out, "declined: {}", invitation.ticket.code())?;
            Ok(None)
        }
    }
}

/// The message that tells the host `invitation` is declined.
pub fn declined(invitation: &Invitation) -> Vec<u8> {
    Frame::Lobby(Lobby::Declined {
        room: invitation.ticket.room(),
    })
    .encode()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::RoomId;
    use crate::protocol::{Theme, TurnTimer};
    use crate::rules::{HouseRules, RuleSet};

    #[test]
    fn targets_are_peer_ids_or_addresses_naming_the_phone() {
        let peer = PeerId::random();
        assert_eq!(
            peer.to_string().parse(),
            Ok(Target {
                peer,
                addrs: Vec::new()
            })
        );
        let addr: Multiaddr = "/ip4/127.0.0.1/tcp/9".parse().unwrap();
        let full = addr.clone().with(Protocol::P2p(peer)).to_string();
        assert_eq!(
            full.parse(),
            Ok(Target {
                peer,
                addrs: vec![addr]
            })
        );
        for bad in ["", "nobody", "/ip4/127.0.0.1/tcp/9"] {
            assert!(bad.parse::<Target>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_an_invitation_to_the_senders_own_room_counts() {
        let host = PeerId::random();
        let addr = "/ip4/127.0.0.1/tcp/1".parse().unwrap();
        let ticket = Ticket::new(RoomId::from_bytes([5; 16]), host, [addr], None).unwrap();
        let listing = Listing {
            players: 2,
            rules: RuleSet::Classic(HouseRules::default()),
            timer: TurnTimer::Seconds60,
            theme: Theme::Sea,
            first: crate::rules::FirstPlayer::Random,
        };
        let invite = || Lobby::Invite {
            ticket: ticket.to_string(),
            listing,
            from: "Ha\nna".to_owned(),
        };
        assert_eq!(Invitation::of(PeerId::random(), invite()), None);
        let got = Invitation::of(host, invite()).unwrap();
        assert_eq!(got.from, "Hana");
        assert!(
            got.to_string()
                .contains("players 2 turn 60 board sea rules classic first random"),
            "{got}"
        );
        assert_eq!(Invitation::of(host, Lobby::Browse), None);
        for players in [0, 1, 5, 255] {
            let odd = Lobby::Invite {
                ticket: ticket.to_string(),
                listing: Listing { players, ..listing },
                from: "Hana".to_owned(),
            };
            assert_eq!(Invitation::of(host, odd), None, "{players} players");
        }
        // Nor to a room no start of which this app would sign.
        let untimed = Lobby::Invite {
            ticket: ticket.to_string(),
            listing: Listing {
                timer: TurnTimer::None,
                ..listing
            },
            from: "Hana".to_owned(),
        };
        assert_eq!(Invitation::of(host, untimed), None, "no turn timer");
    }
}
