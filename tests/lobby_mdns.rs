//! The nearby rooms list over real mDNS discovery: two Linux network
//! namespaces joined by a veth pair (created and deleted by the test, on
//! documentation addresses 192.0.2.0/24 that exist only inside them, as in
//! tests/net_mdns.rs). `clovece rooms` runs in one with no `--ask`; a host
//! opens a room in the other; the room must appear within about 2 s and
//! leave the list when a guest, joining by the room's code, fills it
//! (prints both times). Then the host
//! invites the guest from its friends list, by peer id alone.
//!
//! Needs root and `ip netns`; elsewhere it says why it is skipped.

mod netns;
mod process;

use std::process::Command;
use std::time::{Duration, Instant};

use process::{BIN, in_namespace, rooms_in_namespace};

#[test]
fn open_room_appears_nearby_by_mdns_and_leaves_when_full() {
    let Some(namespaces) = netns::pair_or_skip("lobby", "the lobby mDNS test") else {
        return;
    };
    let (a, b) = namespaces.names();
    let data = tempfile::tempdir().unwrap();
    let mut list = rooms_in_namespace(b, "192.0.2.2", data.path(), "warn");
    let opened = Instant::now();
    let bot = ["--bot", "medium", "--linger", "5"];
    let mut host = in_namespace(
        a,
        "192.0.2.1",
        &data.path().join("host"),
        &[&["host", "--players", "2"][..], &bot].concat(),
    );
    let code = host.wait_for("code: ");
    let (at, room) = list
        .wait_for_within("room: ", Duration::from_secs(10))
        .expect("the open room is listed");
    let appeared = at - opened;
    eprintln!("room listed {appeared:?} after the host process started");
    assert!(
        room.starts_with(&format!("{code} free 1 players 2 ")),
        "{room}"
    );
    // The guest types the room's code: its node finds the room by mDNS.
    let joined = Instant::now();
    let mut guest = in_namespace(
        b,
        "192.0.2.2",
        &data.path().join("guest"),
        &[&["join", &code][..], &bot].concat(),
    );
    let (at, gone) = list
        .wait_for_within("gone: ", Duration::from_secs(10))
        .expect("the full room leaves the list");
    eprintln!(
        "room gone {:?} after the guest process started",
        at - joined
    );
    assert_eq!(gone, code);
    let result = host.wait_for("result: ");
    assert_eq!(guest.wait_for("result: "), result);
    host.finish();
    guest.finish();

    // The guest is now on the host's friends list, by peer id only; the
    // host invites it from there and mDNS finds where it is.
    let friends = Command::new(BIN)
        .args(["friends", "--data"])
        .arg(data.path().join("host"))
        .output()
        .unwrap();
    let friends = String::from_utf8(friends.stdout).unwrap();
    let friend = friends
        .strip_prefix("friend: ")
        .and_then(|f| f.split(' ').next())
        .unwrap_or_else(|| panic!("one friend: {friends:?}"))
        .to_owned();
    let mut invited = in_namespace(
        b,
        "192.0.2.2",
        &data.path().join("guest"),
        &["invitations", "--decline", "--seconds", "20"],
    );
    assert_eq!(invited.wait_for("id: "), friend);
    let mut host = in_namespace(
        a,
        "192.0.2.1",
        &data.path().join("host"),
        &[
            &[
                "host",
                "--players",
                "3",
                "--name",
                "Hana",
                "--console",
                "--invite",
                &friend,
            ][..],
            &bot,
        ]
        .concat(),
    );
    let code = host.wait_for("code: ");
    assert!(invited.wait_for("invite: ").starts_with("from \"Hana\" "));
    assert_eq!(invited.wait_for("declined: "), code);
    assert_eq!(host.wait_for("declined: "), friend);
}
