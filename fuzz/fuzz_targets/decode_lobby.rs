//! Feeds arbitrary bytes to what the lobby decodes from other phones and
//! from the player: a batch of the byte channel and the frames in it, what
//! the nearby rooms list, an invitation and a guest's seat list take from a
//! frame, and the same bytes as a room's link (typed or scanned) and code.
//! Nothing may panic, what decodes must encode and decode to itself, and
//! what the command line prints of a hostile message stays on one line.

#![no_main]

use std::sync::OnceLock;
use std::time::Instant;

use clovece::lobby::Filter;
use clovece::lobby::invite::Invitation;
use clovece::lobby::nearby::RoomList;
use clovece::net::RoomCode;
use clovece::net::Ticket;
use clovece::net::room::{Frame, Lobby, SeatList};
use clovece::net::wire::Batch;
use libfuzzer_sys::fuzz_target;
use libp2p_identity::{Keypair, PeerId};

fuzz_target!(|data: &[u8]| {
    if let Ok(batch) = Batch::decode(data) {
        batch.messages.iter().for_each(|m| frame(m));
    }
    frame(data);
    link(&String::from_utf8_lossy(data));
});

fn frame(bytes: &[u8]) {
    let Ok(frame) = Frame::decode(bytes) else {
        return;
    };
    assert_eq!(Frame::decode(&frame.encode()).as_ref(), Ok(&frame));
    let Frame::Lobby(lobby) = frame else {
        return;
    };
    // From the room's own host, when its ticket names one, so that the
    // checks past "is it the sender's room" are reached too.
    let sender = match &lobby {
        Lobby::Listed { ticket, .. } | Lobby::Invite { ticket, .. } => {
            ticket.parse::<Ticket>().map_or_else(|_| stranger(), |t| t.host())
        }
        _ => stranger(),
    };
    if let Lobby::Listed {
        ticket,
        listing,
        free,
    } = &lobby
    {
        let mut list = RoomList::new(Filter::default());
        let _ = list.heard(sender, ticket, *listing, *free, Instant::now());
    }
    if let Lobby::Seats { seats, .. } = &lobby {
        assert!(!SeatList(seats).to_string().contains(['\n', '\r']));
    }
    if let Some(invitation) = Invitation::of(sender, lobby) {
        assert!(!invitation.to_string().contains(['\n', '\r']));
    }
}

/// A phone that hosts no room here; the same in every run, so that a
/// failing input fails again.
fn stranger() -> PeerId {
    static PEER: OnceLock<PeerId> = OnceLock::new();
    *PEER.get_or_init(|| {
        let key = Keypair::ed25519_from_bytes([9; 32]).expect("a key");
        key.public().to_peer_id()
    })
}

fn link(text: &str) {
    if let Ok(ticket) = text.parse::<Ticket>() {
        assert_eq!(ticket.to_string().parse::<Ticket>().as_ref(), Ok(&ticket));
    }
    if let Ok(code) = text.parse::<RoomCode>() {
        assert_eq!(code.as_str().parse::<RoomCode>(), Ok(code));
    }
}
