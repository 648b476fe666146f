//! The lobby over real connections on loopback: a phone finds an open room
//! by its code and joins it; a private room is not found by code and admits
//! only the holder of its ticket, whose link may come through a QR image.

mod support;

use std::time::Duration;

use clovece::net::room::{self, Frame, Listing, Lobby, LookupError, Refusal, Room};
use clovece::net::{Event, Node, RoomCode, RoomId, RoomSecret, Ticket};
use clovece::protocol::{Theme, TurnTimer};
use clovece::rules::{FirstPlayer, RuleSet};
use libp2p::PeerId;
use libp2p::identity::Keypair;
use support::loopback;
use support::qr::{render, scan};

/// Starts a host with a room of `places` guest seats; returns the room's
/// ticket. The host answers lobby messages until the test ends.
async fn host(secret: Option<RoomSecret>, places: usize) -> Ticket {
    support::log();
    let mut node = Node::start(Keypair::generate_ed25519(), loopback())
        .await
        .unwrap();
    let ticket = Ticket::new(
        RoomId::generate().unwrap(),
        node.peer_id(),
        node.listen_addrs(),
        secret,
    )
    .unwrap();
    let listing = Listing {
        players: 4,
        rules: RuleSet::Classic(Default::default()),
        timer: TurnTimer::Seconds30,
        theme: Theme::Classic,
        first: FirstPlayer::Random,
    };
    let mut room = Room::new(ticket.clone(), places, listing, "Hana".into());
    tokio::spawn(async move {
        loop {
            if let Event::Message { from, bytes } = node.next().await
                && let Ok(Frame::Lobby(message)) = Frame::decode(&bytes)
                && let Some(answer) = room.answer(from, &message)
            {
                // Seated at once, as a guest that offers to play as soon
                // as it is admitted (the game's setup is not played here).
                if matches!(answer, Lobby::Admitted { .. }) {
                    room.seat(from);
                }
                node.send(from, Frame::Lobby(answer).encode()).unwrap();
            }
        }
    });
    ticket
}

async fn guest() -> Node {
    Node::start(Keypair::generate_ed25519(), loopback())
        .await
        .unwrap()
}

/// Lets `node` know the host's addresses, as mDNS would.
fn discovered(node: &mut Node, ticket: &Ticket) -> Vec<PeerId> {
    node.add_addrs(ticket.host(), ticket.dial_addrs());
    vec![ticket.host()]
}

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_room_is_found_by_its_code_and_joined() {
    let ticket = host(None, 1).await;
    let mut node = guest().await;
    let nearby = discovered(&mut node, &ticket);
    let typed: RoomCode = ticket.code().to_string().to_lowercase().parse().unwrap();
    let found = room::find(&mut node, typed, &nearby, WAIT).await.unwrap();
    assert_eq!(found, ticket);
    room::join(&mut node, &found, WAIT).await.unwrap();
    // The one guest seat is taken now: the code typed leads to the room
    // (not to "no room has this code"), which says it is full.
    let mut late = guest().await;
    let nearby = discovered(&mut late, &ticket);
    let found = room::find(&mut late, ticket.code(), &nearby, WAIT).await;
    assert!(found.as_ref().is_ok_and(|t| *t == ticket), "{found:?}");
    assert!(matches!(
        room::join(&mut late, &ticket, WAIT).await,
        Err(LookupError::Refused(Refusal::Full))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_code_finds_no_room() {
    let ticket = host(None, 3).await;
    let mut node = guest().await;
    let nearby = discovered(&mut node, &ticket);
    let other = RoomCode::of(&RoomId::from_bytes([0; 16]));
    assert_ne!(other, ticket.code());
    let result = room::find(&mut node, other, &nearby, Duration::from_secs(2)).await;
    assert!(
        matches!(result, Err(LookupError::NotFound(_))),
        "{result:?}"
    );
    // Not a host that never answered: the right code finds its room.
    let found = room::find(&mut node, ticket.code(), &nearby, WAIT).await;
    assert_eq!(found.unwrap(), ticket);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_room_is_unlisted_and_admits_only_its_ticket() {
    let ticket = host(Some(RoomSecret::generate().unwrap()), 3).await;
    let mut node = guest().await;
    let nearby = discovered(&mut node, &ticket);
    // Without the secret (a ticket rebuilt from what the lobby shows): the
    // host refuses, which also shows that it is reached.
    let guessed = Ticket::new(ticket.room(), ticket.host(), ticket.dial_addrs(), None).unwrap();
    assert!(matches!(
        room::join(&mut node, &guessed, WAIT).await,
        Err(LookupError::Refused(Refusal::WrongSecret))
    ));
    // Asked by its code, it says nothing: not found, though the question
    // reached it (a host slow to answer would pass for a silent one).
    let result = room::find(&mut node, ticket.code(), &nearby, Duration::from_secs(2)).await;
    assert!(
        matches!(result, Err(LookupError::NotFound(_))),
        "{result:?}"
    );
    assert_eq!(node.unacknowledged(ticket.host()), 0, "the host took it");
    room::join(&mut node, &ticket, WAIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ticket_scanned_from_a_qr_image_joins_the_room() {
    let ticket = host(Some(RoomSecret::generate().unwrap()), 3).await;
    let (side, pixels) = render(&ticket.qr().unwrap());
    let scanned: Ticket = scan(side, &pixels).parse().unwrap();
    let mut node = guest().await;
    room::join(&mut node, &scanned, WAIT).await.unwrap();
}
