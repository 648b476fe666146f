//! The app's nearby rooms list against a real `clovece host` process on
//! loopback: the room appears with its options and free seats, the filters
//! show exactly the rooms they match, and the room leaves the list when
//! its host is gone.

mod process;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use clovece::app::nearby::{Browsing, NearbyRooms, filter};
use clovece::lobby::Filter;
use clovece::lobby::nearby::Room;
use clovece::platform::multicast::{Multicast, NoLock};
use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use process::{ask, peer, ticket};

/// Long enough for a room to appear, or to go stale, on a loaded machine.
const WAIT: Duration = Duration::from_secs(10);

/// Waits for a change until the list's rooms under `filter` satisfy `done`.
fn until(
    list: &NearbyRooms,
    changes: &mpsc::Receiver<()>,
    filter: &Filter,
    done: impl Fn(&[Room]) -> bool,
) -> Vec<Room> {
    let end = Instant::now() + WAIT;
    loop {
        let rooms = list.rooms(filter);
        if done(&rooms) {
            return rooms;
        }
        let left = end.saturating_duration_since(Instant::now());
        assert!(
            changes.recv_timeout(left).is_ok(),
            "no change within {WAIT:?}; rooms {rooms:?}, failed {:?}",
            list.failed()
        );
    }
}

#[test]
fn the_app_lists_a_loopback_room_filters_it_and_drops_it_when_its_host_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let mut host = peer(
        dir.path(),
        &["host", "--players", "3", "--turn", "20", "--board", "sea"],
    );
    let (ticket, code) = ticket(&mut host);
    let mut addr: libp2p::Multiaddr = ask(&ticket).parse().unwrap();
    let Some(Protocol::P2p(peer_id)) = addr.pop() else {
        panic!("no peer id in {addr}");
    };
    let browsing = Browsing {
        listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        ask: vec![(peer_id, addr)],
    };
    let (tx, changes) = mpsc::channel();
    let list = NearbyRooms::open(
        Keypair::generate_ed25519(),
        browsing,
        &Multicast::new(NoLock),
        move || {
            let _ = tx.send(());
        },
    )
    .unwrap();

    let rooms = until(&list, &changes, &Filter::default(), |r| !r.is_empty());
    assert_eq!(rooms.len(), 1);
    let room = &rooms[0];
    assert_eq!(room.ticket.to_string(), ticket);
    assert_eq!(room.ticket.code().to_string(), code);
    assert_eq!((room.listing.players, room.free), (3, 2));

    // Each filter on its own and all three together: matching, then not.
    for (matching, other) in [
        (filter(3, 0, 0), filter(4, 0, 0)),
        (filter(0, 20, 0), filter(0, 30, 0)),
        (filter(0, 0, 2), filter(0, 0, 1)),
        (filter(3, 20, 2), filter(3, 20, 1)),
    ] {
        assert_eq!(list.rooms(&matching).len(), 1, "{matching:?}");
        assert!(list.rooms(&other).is_empty(), "{other:?}");
    }

    drop(host);
    until(&list, &changes, &Filter::default(), <[Room]>::is_empty);
}
