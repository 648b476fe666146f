//! A join ticket survives the trip through a QR image: encoded with
//! `qrcode`, rendered to pixels as a screen would show it, read back with
//! `rqrr` as a camera would, and parsed.

use clovece::net::{RoomId, RoomSecret, Ticket};
use libp2p::identity::Keypair;
use support::qr::{render, scan};

mod support;

#[test]
fn ticket_round_trips_through_a_qr_image() {
    let host = Keypair::generate_ed25519().public().to_peer_id();
    let addrs = [
        "/ip4/127.0.0.1/tcp/40001".parse().unwrap(),
        "/ip4/192.0.2.10/tcp/40001".parse().unwrap(),
        "/ip6/::1/tcp/40002".parse().unwrap(),
    ];
    for secret in [None, Some(RoomSecret::generate().unwrap())] {
        let ticket = Ticket::new(RoomId::generate().unwrap(), host, addrs.clone(), secret).unwrap();
        let (side, pixels) = render(&ticket.qr().unwrap());
        let text = scan(side, &pixels);
        assert_eq!(text, ticket.to_string());
        assert_eq!(text.parse::<Ticket>().unwrap(), ticket);
    }
}
