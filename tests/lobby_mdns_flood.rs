//! The nearby rooms list through a flood of made-up mDNS announcements,
//! between two Linux network namespaces joined by a veth pair (as in
//! tests/lobby_mdns.rs). A binary of its own, so that no timed test runs
//! beside the flood.
//!
//! Needs root and `ip netns`; elsewhere it says why it is skipped.

#![cfg(target_os = "linux")]

mod netns;
mod process;

use std::time::{Duration, Instant};

use process::{logging_in_namespace, rooms_in_namespace};

/// Made-up mDNS announcements, sent from inside a namespace.
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
#[test]
fn a_flood_of_made_up_phones_leaves_the_list_bounded_and_working() {
    let Some(namespaces) = netns::pair_or_skip("flood", "the mDNS flood test") else {
        return;
    };
    let (a, b) = namespaces.names();
    let data = tempfile::tempdir().unwrap();
    let mut list = rooms_in_namespace(
        b,
        "192.0.2.2",
        data.path(),
        "warn,clovece::lobby::nearby=debug",
    );
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
    // The list gives up on the phones it pushes out (its memory is only
    // printed: a figure, not a bound a test could hold it to).
    assert!(
        list.stderr()
            .contains("pushed out of the nearby list: given up"),
        "the list never gave up on a made-up phone"
    );
    // The host has no list that gives up on phones: its node's bound does.
    assert!(
        host.stderr()
            .contains("mDNS list full: dropping idle peers"),
        "the host's discovery list was never thinned"
    );
    host.kill();
    list.kill();
}
