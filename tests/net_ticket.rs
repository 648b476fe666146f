//! A join ticket survives the trip through a QR image: encoded with
//! `qrcode`, rendered to pixels as a screen would show it, read back with
//! `rqrr` as a camera would, and parsed. A host listening on every
//! interface puts every address in its ticket, so that a phone on another
//! machine joins by it (two network namespaces, as in tests/net_mdns.rs;
//! needs root and `ip netns`, skipped elsewhere).

use clovece::net::{RoomId, RoomSecret, Ticket};
use libp2p::identity::Keypair;
use libp2p::multiaddr::Protocol;
use support::qr::{render, scan};

mod netns;
mod process;
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

#[test]
fn a_host_on_every_interface_lists_them_all_and_a_phone_elsewhere_joins_by_ticket() {
    let Some(namespaces) = netns::pair_or_skip("ticket", "the ticket namespace test") else {
        return;
    };
    let (a, b) = namespaces.names();
    let data = tempfile::tempdir().unwrap();
    let bot = ["--bot", "medium", "--linger", "5"];
    let mut host = process::in_namespace(
        a,
        "0.0.0.0",
        &data.path().join("host"),
        &[&["host", "--players", "2"][..], &bot].concat(),
    );
    let line = host.wait_for("ticket: ");
    let ticket: Ticket = line.parse().unwrap();
    let ips: Vec<_> = ticket
        .addrs()
        .iter()
        .filter_map(|addr| match addr.iter().next() {
            Some(Protocol::Ip4(ip)) => Some(ip.to_string()),
            _ => None,
        })
        .collect();
    assert!(ips.contains(&"127.0.0.1".to_owned()), "{ips:?}");
    assert!(ips.contains(&"192.0.2.1".to_owned()), "{ips:?}");
    // Listening on loopback alone, the guest runs no mDNS (see
    // `net::game`): it finds the host by the ticket's addresses alone, and
    // reaches it over the veth from an address of its own choosing.
    let mut guest = process::in_namespace(
        b,
        "127.0.0.1",
        &data.path().join("guest"),
        &[&["join", &line][..], &bot].concat(),
    );
    let result = host.wait_for("result: ");
    assert_eq!(guest.wait_for("result: "), result);
    host.finish();
    guest.finish();
}
