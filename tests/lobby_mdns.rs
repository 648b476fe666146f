//! The nearby rooms list over real mDNS discovery: two Linux network
//! namespaces joined by a veth pair (created and deleted by the test, on
//! documentation addresses 192.0.2.0/24 that exist only inside them, as in
//! tests/net_mdns.rs). `clovece rooms` runs in one with no `--ask`; a host
//! opens a room in the other; the room must appear within about 2 s and
//! leave the list when a guest fills it (prints both times). Then the host
//! invites the guest from its friends list, by peer id alone. A second test
//! floods the list with made-up announcements while the room opens.
//!
//! Needs root and `ip netns`; elsewhere it says why it is skipped.

mod netns;
mod process;

use std::process::Command;
use std::time::{Duration, Instant};

use process::{BIN, in_namespace};

/// `clovece rooms` for 2-player rooms in the namespace `ns` (on
/// 192.0.2.2), given half a second for its node to come up.
fn rooms_list(ns: &str, data: &std::path::Path) -> process::Proc {
    let list = in_namespace(
        ns,
        "192.0.2.2",
        &data.join("list"),
        &["rooms", "--seconds", "60", "--players", "2"],
    );
    std::thread::sleep(Duration::from_millis(500));
    list
}

#[test]
fn open_room_appears_nearby_by_mdns_and_leaves_when_full() {
    let Some(namespaces) = netns::pair_or_skip("lobby", "the lobby mDNS test") else {
        return;
    };
    let (a, b) = namespaces.names();
    let data = tempfile::tempdir().unwrap();
    let mut list = rooms_list(b, data.path());
    let opened = Instant::now();
    let bot = ["--bot", "medium", "--linger", "5"];
    let mut host = in_namespace(
        a,
        "192.0.2.1",
        &data.path().join("host"),
        &[&["host", "--players", "2"][..], &bot].concat(),
    );
    let ticket = host.wait_for("ticket: ");
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
    assert!(appeared < Duration::from_secs(3), "{appeared:?}");
    let joined = Instant::now();
    let mut guest = in_namespace(
        b,
        "192.0.2.2",
        &data.path().join("guest"),
        &[&["join", &ticket][..], &bot].concat(),
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

/// Made-up mDNS announcements, sent from inside a namespace (Linux only:
/// `setns`).
#[cfg(target_os = "linux")]
mod flood {
    use std::net::UdpSocket;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    use hickory_proto::op::{Message, MessageType};
    use hickory_proto::rr::rdata::{PTR, TXT};
    use hickory_proto::rr::{Name, RData, Record};

    /// Made-up phones per announcement packet.
    pub const FAKES_PER_PACKET: usize = 8;

    /// mDNS responses announcing `FAKES_PER_PACKET` made-up phones each (new
    /// peer ids, a port nobody listens on), valid for a day: what any device
    /// on the Wi-Fi can send for nothing.
    pub fn made_up_announcements(packets: usize) -> Vec<Vec<u8>> {
        let service = Name::from_ascii("_p2p._udp.local.").unwrap();
        (0..packets)
            .map(|p| {
                let mut message = Message::new();
                message.set_message_type(MessageType::Response);
                message.set_authoritative(true);
                for i in 0..FAKES_PER_PACKET {
                    let name = Name::from_ascii(format!("fake{p}x{i}._p2p._udp.local.")).unwrap();
                    let peer = libp2p::PeerId::random();
                    let txt = format!("dnsaddr=/ip4/192.0.2.77/tcp/9/p2p/{peer}");
                    let ptr = RData::PTR(PTR(name.clone()));
                    message.add_answer(Record::from_rdata(service.clone(), 86_400, ptr));
                    let txt = RData::TXT(TXT::new(vec![txt]));
                    message.add_additional(Record::from_rdata(name, 86_400, txt));
                }
                message.to_vec().unwrap()
            })
            .collect()
    }

    /// Sends `packets` to the mDNS group from inside the namespace `ns`, one
    /// every `every`; how many it sent.
    pub fn send(
        ns: &str,
        packets: Vec<Vec<u8>>,
        every: Duration,
    ) -> std::thread::JoinHandle<usize> {
        let netns = std::fs::File::open(format!("/run/netns/{ns}")).unwrap();
        std::thread::spawn(move || {
            // SAFETY: setns with a namespace file this thread holds open; it
            // moves only this thread (and the socket it opens next) into the
            // namespace.
            let entered = unsafe { libc::setns(netns.as_raw_fd(), libc::CLONE_NEWNET) };
            assert_eq!(entered, 0, "setns: {}", std::io::Error::last_os_error());
            let socket = UdpSocket::bind("0.0.0.0:0").unwrap();
            for packet in &packets {
                socket.send_to(packet, "224.0.0.251:5353").unwrap();
                std::thread::sleep(every);
            }
            packets.len()
        })
    }
}

/// 3,200 made-up phones announced for a day. The nearby list gives up on
/// each it pushes out (before, every made-up phone it had asked stayed in
/// its node for good), and a room that opens during the flood is listed.
/// The host, which keeps no list, has its node thin libp2p-mdns's own list
/// of sightings (it says so in its debug log).
#[cfg(target_os = "linux")]
#[test]
fn a_flood_of_made_up_phones_leaves_the_list_bounded_and_working() {
    use process::logging_in_namespace;

    let Some(namespaces) = netns::pair_or_skip("flood", "the mDNS flood test") else {
        return;
    };
    let (a, b) = namespaces.names();
    let data = tempfile::tempdir().unwrap();
    let mut list = rooms_list(b, data.path());
    // 50 packets a second for 8 s: 3,200 made-up phones, each announced
    // for a day (a slow flood, so that the debug build keeps up). The room
    // opens 3 s into it.
    let sender = flood::send(
        a,
        flood::made_up_announcements(400),
        Duration::from_millis(20),
    );
    std::thread::sleep(Duration::from_secs(3));
    let opened = Instant::now();
    let mut host = logging_in_namespace(
        a,
        "192.0.2.1",
        &data.path().join("host"),
        &["host", "--players", "2", "--bot", "medium", "--linger", "5"],
        "warn,clovece::net::node=debug",
    );
    let sent = sender.join().unwrap();
    eprintln!(
        "{sent} packets of made-up phones sent ({} phones)",
        sent * flood::FAKES_PER_PACKET
    );
    let code = host.wait_for("code: ");
    let listed = list.wait_for_within(&format!("room: {code} "), Duration::from_secs(20));
    let (at, _) = listed.expect("a room opened during the flood is listed");
    eprintln!(
        "room listed {:?} after the host process started",
        at - opened
    );
    let status = std::fs::read_to_string(format!("/proc/{}/status", list.pid())).unwrap();
    let rss = status
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .unwrap_or("");
    eprintln!("the list's {rss}");
    // The host has no list that gives up on phones: its node's bound does.
    assert!(
        host.stderr()
            .contains("mDNS list full: dropping idle peers"),
        "the host's discovery list was never thinned"
    );
    host.kill();
    list.kill();
}
