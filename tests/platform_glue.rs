//! The platform glue's logic with fakes: the multicast lock's counting and
//! foreground gating, the camera session (background, permission), the
//! lifecycle and its bookmark, discovery and libp2p's TXT records.

use std::sync::{Arc, Mutex};

use clovece::net::seen::{MAX_ADDRS, MAX_PHONES};
use clovece::platform::PlatformError;
use clovece::platform::camera::{
    Camera, CameraError, CameraPermission, CameraSession, ErrorSink, FrameSink, NoCamera,
};
use clovece::platform::discovery::{
    Announcement, Browsed, Discovery, Find, Nearby, NearbySink, SERVICE, SwarmMdns, txt_peer,
    txt_record,
};
use clovece::platform::lifecycle::{Bookmark, Lifecycle};
use clovece::platform::multicast::{Multicast, MulticastLock};
use clovece::platform::{Platform, qr::GreyFrame};
use proptest::prelude::*;

/// What a fake saw, in order.
type Calls = Arc<Mutex<Vec<&'static str>>>;

fn taken(calls: &Calls) -> Vec<&'static str> {
    std::mem::take(&mut *calls.lock().unwrap())
}

/// A multicast lock that records calls, checks they alternate, and fails
/// while `fail` is set.
#[derive(Clone, Default)]
struct FakeLock {
    calls: Calls,
    held: Arc<Mutex<bool>>,
    fail: Arc<Mutex<bool>>,
}

impl MulticastLock for FakeLock {
    fn acquire(&mut self) -> Result<(), PlatformError> {
        self.calls.lock().unwrap().push("acquire");
        if *self.fail.lock().unwrap() {
            return Err(PlatformError::Multicast("no Wi-Fi".into()));
        }
        let mut held = self.held.lock().unwrap();
        assert!(!*held, "acquired twice");
        *held = true;
        Ok(())
    }

    fn release(&mut self) -> Result<(), PlatformError> {
        self.calls.lock().unwrap().push("release");
        if *self.fail.lock().unwrap() {
            return Err(PlatformError::Multicast("binder died".into()));
        }
        let mut held = self.held.lock().unwrap();
        assert!(*held, "released while not held");
        *held = false;
        Ok(())
    }
}

/// A scan screen that ignores why the camera stopped.
fn quiet() -> ErrorSink {
    std::sync::Arc::new(|_| {})
}

#[test]
fn multicast_lock_is_held_while_anyone_needs_it() {
    let lock = FakeLock::default();
    let multicast = Multicast::new(lock.clone());
    assert!(!multicast.is_acquired());
    let nearby = multicast.hold().unwrap();
    let game = multicast.hold().unwrap();
    assert_eq!(multicast.holds(), 2);
    drop(nearby);
    assert!(multicast.is_acquired());
    drop(game);
    assert!(!multicast.is_acquired());
    assert_eq!(taken(&lock.calls), ["acquire", "release"]);
}

#[test]
fn multicast_lock_is_released_in_the_background() {
    let lock = FakeLock::default();
    let multicast = Multicast::new(lock.clone());
    let game = multicast.hold().unwrap();
    multicast.set_foreground(false).unwrap();
    assert!(!multicast.is_acquired());
    // A hold taken in the background waits for the foreground.
    let nearby = multicast.hold().unwrap();
    assert!(!multicast.is_acquired());
    multicast.set_foreground(true).unwrap();
    assert!(multicast.is_acquired());
    drop((game, nearby));
    // Nothing wanted: going back and forth touches nothing.
    multicast.set_foreground(false).unwrap();
    multicast.set_foreground(true).unwrap();
    assert_eq!(
        taken(&lock.calls),
        ["acquire", "release", "acquire", "release"]
    );
}

#[test]
fn multicast_hold_fails_cleanly_when_the_lock_cannot_be_taken() {
    let lock = FakeLock::default();
    let multicast = Multicast::new(lock.clone());
    *lock.fail.lock().unwrap() = true;
    let err = multicast.hold().unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot hold the Wi-Fi multicast lock: no Wi-Fi"
    );
    assert_eq!(multicast.holds(), 0);
    *lock.fail.lock().unwrap() = false;
    let hold = multicast.hold().unwrap();
    assert!(multicast.is_acquired());
    drop(hold);
    assert_eq!(taken(&lock.calls), ["acquire", "acquire", "release"]);
}

#[test]
fn multicast_failed_release_is_retried_on_the_next_change() {
    let lock = FakeLock::default();
    let multicast = Multicast::new(lock.clone());
    let hold = multicast.hold().unwrap();
    *lock.fail.lock().unwrap() = true;
    drop(hold);
    assert!(multicast.is_acquired(), "still held as far as we know");
    *lock.fail.lock().unwrap() = false;
    multicast.set_foreground(false).unwrap();
    assert!(!multicast.is_acquired());
    assert!(!*lock.held.lock().unwrap());
    assert_eq!(taken(&lock.calls), ["acquire", "release", "release"]);
}

#[test]
fn multicast_holds_from_many_threads_balance() {
    let lock = FakeLock::default();
    let multicast = Multicast::new(lock.clone());
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let multicast = multicast.clone();
            std::thread::spawn(move || {
                for _ in 0..200 {
                    let _hold = multicast.hold().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(multicast.holds(), 0);
    assert!(!*lock.held.lock().unwrap());
}

proptest! {
    /// Whatever the order of holds, drops and app switches, the lock is
    /// acquired exactly when some hold is taken and the app is in front,
    /// and the operating system's calls alternate (the fake checks).
    #[test]
    fn multicast_lock_matches_what_is_wanted(steps in proptest::collection::vec(0u8..4, 0..60)) {
        let lock = FakeLock::default();
        let multicast = Multicast::new(lock.clone());
        let mut holds = Vec::new();
        let mut foreground = true;
        for step in steps {
            match step {
                0 => holds.push(multicast.hold().unwrap()),
                1 => { holds.pop(); }
                2 => { foreground = !foreground; multicast.set_foreground(foreground).unwrap(); }
                _ => { holds.clear(); }
            }
            let wanted = !holds.is_empty() && foreground;
            prop_assert_eq!(multicast.is_acquired(), wanted);
            prop_assert_eq!(*lock.held.lock().unwrap(), wanted);
        }
    }
}

/// A camera that records starts and stops, and the sink it got.
#[derive(Clone, Default)]
struct FakeCamera {
    calls: Calls,
    sink: Arc<Mutex<Option<FrameSink>>>,
}

impl Camera for FakeCamera {
    fn start(&mut self, sink: FrameSink, _: ErrorSink) -> Result<(), CameraError> {
        self.calls.lock().unwrap().push("start");
        *self.sink.lock().unwrap() = Some(sink);
        Ok(())
    }

    fn stop(&mut self) {
        self.calls.lock().unwrap().push("stop");
        *self.sink.lock().unwrap() = None;
    }
}

/// A permission the player grants or not; requests are counted.
#[derive(Clone, Default)]
struct FakePermission {
    granted: Arc<Mutex<bool>>,
    calls: Calls,
}

impl CameraPermission for FakePermission {
    fn granted(&self) -> bool {
        *self.granted.lock().unwrap()
    }

    fn request(&mut self) -> Result<(), CameraError> {
        self.calls.lock().unwrap().push("request");
        Ok(())
    }
}

fn granted() -> FakePermission {
    let permission = FakePermission::default();
    *permission.granted.lock().unwrap() = true;
    permission
}

fn counting_sink() -> (FrameSink, Arc<Mutex<usize>>) {
    let frames = Arc::new(Mutex::new(0));
    let count = frames.clone();
    (Arc::new(move |_| *count.lock().unwrap() += 1), frames)
}

#[test]
fn camera_runs_only_while_the_scan_screen_is_open_in_front() {
    let camera = FakeCamera::default();
    let mut session = CameraSession::new(camera.clone(), granted());
    let (sink, frames) = counting_sink();
    session.open(sink, quiet()).unwrap();
    assert!(session.is_running());
    let data = [0u8; 4];
    let deliver = || {
        if let Some(sink) = camera.sink.lock().unwrap().as_ref() {
            sink(GreyFrame::new(&data, 2, 2, 2).unwrap());
        }
    };
    deliver();
    session.set_foreground(false).unwrap();
    assert!(!session.is_running());
    deliver();
    session.set_foreground(true).unwrap();
    deliver();
    session.close();
    deliver();
    assert_eq!(*frames.lock().unwrap(), 2);
    // Resuming with the screen closed starts nothing.
    session.set_foreground(false).unwrap();
    session.set_foreground(true).unwrap();
    assert_eq!(taken(&camera.calls), ["start", "stop", "start", "stop"]);
}

#[test]
fn camera_permission_is_asked_once_per_opening() {
    let camera = FakeCamera::default();
    let permission = FakePermission::default();
    let mut session = CameraSession::new(camera.clone(), permission.clone());
    let (sink, _) = counting_sink();
    assert_eq!(
        session.open(sink.clone(), quiet()),
        Err(CameraError::AskingPermission)
    );
    // The dialog pauses and resumes the app: refused, so no second dialog.
    session.set_foreground(false).unwrap();
    assert_eq!(session.set_foreground(true), Err(CameraError::Denied));
    assert_eq!(session.set_foreground(true), Err(CameraError::Denied));
    // Opening the scan screen again asks again; granted this time.
    session.close();
    assert_eq!(
        session.open(sink, quiet()),
        Err(CameraError::AskingPermission)
    );
    *permission.granted.lock().unwrap() = true;
    session.set_foreground(false).unwrap();
    session.set_foreground(true).unwrap();
    assert!(session.is_running());
    assert_eq!(taken(&permission.calls), ["request", "request"]);
    assert_eq!(taken(&camera.calls), ["start"]);
}

#[test]
fn camera_retry_after_a_dialog_that_did_not_move_the_app_starts_it_where_it_should() {
    let camera = FakeCamera::default();
    let permission = FakePermission::default();
    let mut session = CameraSession::new(camera.clone(), permission.clone());
    let (sink, _) = counting_sink();
    assert_eq!(
        session.open(sink, quiet()),
        Err(CameraError::AskingPermission)
    );
    // iOS: the answer comes while the app stays in front.
    *permission.granted.lock().unwrap() = true;
    session.retry().unwrap();
    assert!(session.is_running());
    // An answer heard in the background starts nothing until the return.
    session.set_foreground(false).unwrap();
    session.retry().unwrap();
    assert!(!session.is_running());
    session.set_foreground(true).unwrap();
    assert_eq!(taken(&camera.calls), ["start", "stop", "start"]);
}

#[test]
fn camera_frame_gate_closes_only_after_the_frame_being_handed_on() {
    let gate = Arc::new(clovece::platform::camera::FrameGate::default());
    let pass = gate.pass().expect("open at first");
    let (closing, started) = std::sync::mpsc::channel();
    let closer = {
        let gate = gate.clone();
        std::thread::spawn(move || {
            closing.send(()).unwrap();
            gate.close()
        })
    };
    // The closer is in `close` (or about to be): a close that did not wait
    // would be done well within this.
    started.recv().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(!closer.is_finished(), "closing waits for the frame");
    drop(pass);
    closer.join().unwrap();
    assert!(gate.is_closed());
    assert!(gate.pass().is_none());
}

#[test]
fn camera_error_messages_say_what_to_do() {
    assert_eq!(
        CameraError::Denied.to_string(),
        "the camera permission was refused; allow it in the system settings to scan a code"
    );
    let mut session = CameraSession::new(NoCamera, granted());
    let (sink, _) = counting_sink();
    assert_eq!(session.open(sink, quiet()), Err(CameraError::NoCamera));
    assert!(!session.is_running());
}

/// The app's lifecycle over a fake multicast lock and a fake camera the
/// player may use: the lock, the camera, the lock's holds and the lifecycle.
fn faked_lifecycle() -> (FakeLock, FakeCamera, Multicast, Lifecycle) {
    let lock = FakeLock::default();
    let camera = FakeCamera::default();
    let multicast = Multicast::new(lock.clone());
    let lifecycle = Lifecycle::new(
        multicast.clone(),
        CameraSession::new(camera.clone(), granted()),
        Bookmark::Home,
    );
    (lock, camera, multicast, lifecycle)
}

#[test]
fn lifecycle_pause_releases_and_resume_restores() {
    let (lock, camera, multicast, lifecycle) = faked_lifecycle();
    let hold = multicast.hold().unwrap();
    let (sink, _) = counting_sink();
    lifecycle.with_camera(|c| c.open(sink, quiet())).unwrap();
    lifecycle.pause().unwrap();
    assert!(!multicast.is_acquired());
    assert!(!lifecycle.with_camera(|c| c.is_running()));
    lifecycle.resume().unwrap();
    assert!(multicast.is_acquired());
    assert!(lifecycle.with_camera(|c| c.is_running()));
    drop(hold);
    assert_eq!(
        taken(&lock.calls),
        ["acquire", "release", "acquire", "release"]
    );
    assert_eq!(taken(&camera.calls), ["start", "stop", "start"]);
}

#[test]
fn lifecycle_pause_releases_the_camera_even_if_the_lock_fails() {
    let (lock, _, multicast, lifecycle) = faked_lifecycle();
    let _hold = multicast.hold().unwrap();
    let (sink, _) = counting_sink();
    lifecycle.with_camera(|c| c.open(sink, quiet())).unwrap();
    *lock.fail.lock().unwrap() = true;
    assert!(lifecycle.pause().is_err());
    assert!(!lifecycle.with_camera(|c| c.is_running()));
}

#[test]
fn lifecycle_bookmark_survives_save_and_restore() {
    let lifecycle = Platform::desktop().lifecycle;
    let game = Bookmark::Game {
        store: "games/3f9a".into(),
    };
    lifecycle.set_bookmark(game.clone());
    let bytes = lifecycle.save();
    // A recreated app hears of the bookmark once, whether the bytes come
    // back before it asks or after.
    let heard = || {
        let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = heard.clone();
        (heard, move |b| log.lock().unwrap().push(b))
    };
    let early = Platform::desktop().lifecycle;
    early.restore(&bytes);
    assert_eq!(early.bookmark(), game);
    let (reopened, reopen) = heard();
    early.on_restore(reopen);
    assert_eq!(*reopened.lock().unwrap(), std::slice::from_ref(&game));

    let late = Platform::desktop().lifecycle;
    let (reopened, reopen) = heard();
    late.on_restore(reopen);
    assert!(reopened.lock().unwrap().is_empty());
    late.restore(&bytes);
    assert_eq!(*reopened.lock().unwrap(), [game]);
}

#[test]
fn lifecycle_unreadable_saved_state_restores_home() {
    for bytes in [
        &b""[..],
        b"\xff\x00",
        br#"{"screen":"moon"}"#,
        &[b' '; 5000],
    ] {
        assert_eq!(Bookmark::from_bytes(bytes), Bookmark::Home);
    }
    let room = Bookmark::Room {
        ticket: "CLOVECE:AEAQ".into(),
        store: Some("games/1".into()),
    };
    assert_eq!(Bookmark::from_bytes(&room.to_bytes()), room);
    assert_eq!(
        String::from_utf8(room.to_bytes()).unwrap(),
        r#"{"screen":"room","ticket":"CLOVECE:AEAQ","store":"games/1"}"#
    );
    // As an older version kept it.
    assert_eq!(
        Bookmark::from_bytes(br#"{"screen":"room","ticket":"CLOVECE:AEAQ"}"#),
        Bookmark::Room {
            ticket: "CLOVECE:AEAQ".into(),
            store: None
        }
    );
}

#[test]
fn desktop_platform_runs_libp2p_mdns_without_a_camera() {
    let platform = Platform::desktop();
    assert!(platform.data_dir.is_none());
    assert!(platform.discovery.swarm_mdns());
    let (sink, _) = counting_sink();
    assert_eq!(
        platform.lifecycle.with_camera(|c| c.open(sink, quiet())),
        Err(CameraError::NoCamera)
    );
    let nearby: NearbySink = Arc::new(|_| {});
    let me = Announcement {
        peer: "12D3KooW".into(),
        addrs: vec![],
    };
    drop(platform.discovery.start(&me, nearby).unwrap());
}

#[test]
fn discovery_holds_the_multicast_lock_while_running() {
    let lock = FakeLock::default();
    let multicast = Multicast::new(lock.clone());
    let mdns = SwarmMdns::new(multicast.clone());
    let nearby: NearbySink = Arc::new(|_| {});
    let me = Announcement {
        peer: "12D3KooW".into(),
        addrs: vec!["/ip4/192.0.2.1/tcp/4001".into()],
    };
    // The nearby list and a hosted room, each with a discovery of its own.
    let list = mdns.start(&me, nearby.clone()).unwrap();
    let room = mdns.start(&me, nearby).unwrap();
    assert_eq!(multicast.holds(), 2);
    assert!(multicast.is_acquired());
    drop(list);
    assert!(multicast.is_acquired());
    drop(room);
    assert!(!multicast.is_acquired());
    assert_eq!(taken(&lock.calls), ["acquire", "release"]);
}

/// The addresses a TXT record announces for `PEER`.
fn txt_addresses(record: &[u8]) -> Vec<String> {
    match txt_peer(record) {
        Some(Nearby::Found { peer, addrs }) if peer == PEER => addrs,
        Some(other) => panic!("another peer: {other:?}"),
        None => Vec::new(),
    }
}

/// A real peer id, as libp2p prints it.
const PEER: &str = "12D3KooWD3eckifWpRn9wQpMG9R9hX3sD158z7EqHWmweQAJU5SA";

#[test]
fn discovery_txt_record_is_what_libp2p_mdns_writes() {
    assert_eq!(SERVICE, "_p2p._udp");
    let me = Announcement {
        peer: PEER.into(),
        addrs: vec![
            "/ip4/192.168.1.20/tcp/40313".into(),
            "/ip6/fe80::1/tcp/40313".into(),
        ],
    };
    let record = txt_record(&me);
    // libp2p-mdns: one character-string per address, "dnsaddr=" + the
    // address with the peer appended.
    let first = format!("dnsaddr=/ip4/192.168.1.20/tcp/40313/p2p/{PEER}");
    assert_eq!(usize::from(record[0]), first.len());
    assert_eq!(&record[1..=first.len()], first.as_bytes());
    assert_eq!(
        txt_addresses(&record),
        [
            format!("/ip4/192.168.1.20/tcp/40313/p2p/{PEER}"),
            format!("/ip6/fe80::1/tcp/40313/p2p/{PEER}"),
        ]
    );
}

#[test]
fn discovery_txt_skips_what_is_not_the_peers_address() {
    let mut record = Vec::new();
    for entry in [
        "txtvers=1".to_owned(),
        "dnsaddr=/ip4/10.0.0.9/tcp/1".to_owned(),
        format!("dnsaddr=/p2p/{PEER}"),
        format!("dnsaddr=/ip4/10.0.0.1/tcp/1/p2p/{PEER}"),
        format!("dnsaddr=/ip4/10.0.0.2/tcp/1/p2p/{PEER}x"),
        "dnsaddr=/ip4/10.0.0.3/tcp/1/p2p/12D3KooWother".to_owned(),
        format!("dnsaddr=/ip4/10.0.0.4/tcp/1/p2p/{PEER}/x"),
        format!("dnsaddr=/ip4/10.0.0.1/tcp/1/p2p/{PEER}"),
    ] {
        record.push(entry.len() as u8);
        record.extend_from_slice(entry.as_bytes());
    }
    record.extend_from_slice(&[0xff, 0xc3]);
    record.extend_from_slice(&[40, b'd']);
    assert_eq!(
        txt_addresses(&record),
        [format!("/ip4/10.0.0.1/tcp/1/p2p/{PEER}")]
    );
}

#[test]
fn discovery_txt_without_an_address_announces_nobody() {
    assert_eq!(txt_peer(b""), None);
    assert_eq!(txt_peer(b"\x09txtvers=1"), None);
}

#[test]
fn discovery_txt_leaves_out_an_address_too_long_for_one_string() {
    let me = Announcement {
        peer: PEER.into(),
        addrs: vec![
            format!("/dns4/{}.example/tcp/1", "a".repeat(200)),
            "/ip4/10.0.0.1/tcp/1".into(),
        ],
    };
    assert_eq!(
        txt_addresses(&txt_record(&me)),
        [format!("/ip4/10.0.0.1/tcp/1/p2p/{PEER}")]
    );
}

/// One TXT record (libp2p-style: one per address) for `peer` at `addr`.
fn txt_for(peer: &str, addr: &str) -> Vec<u8> {
    txt_record(&Announcement {
        peer: peer.into(),
        addrs: vec![addr.into()],
    })
}

#[test]
fn discovery_bonjour_gathers_an_instances_addresses_and_reports_its_loss() {
    let mut browsed = Browsed::new("me");
    assert_eq!(
        browsed.found("me", 1),
        Find::Skip,
        "our own instance is not queried"
    );
    assert_eq!(browsed.found("x7kq", 1), Find::Query { stop: None });
    assert_eq!(
        browsed.found("x7kq", 1),
        Find::Skip,
        "nor one instance twice"
    );
    browsed.querying("x7kq", Some(1));
    let a = "/ip4/192.168.1.5/tcp/4001";
    let b = "/ip6/fe80::5/tcp/4001";
    assert_eq!(
        browsed.txt(&1, &txt_for(PEER, a)),
        (
            None,
            Some(Nearby::Found {
                peer: PEER.into(),
                addrs: vec![format!("{a}/p2p/{PEER}")]
            })
        )
    );
    // The same record again tells nothing new; a second address does.
    assert_eq!(browsed.txt(&1, &txt_for(PEER, a)), (None, None));
    assert_eq!(
        browsed.txt(&1, &txt_for(PEER, b)),
        (
            None,
            Some(Nearby::Found {
                peer: PEER.into(),
                addrs: vec![format!("{a}/p2p/{PEER}"), format!("{b}/p2p/{PEER}")]
            })
        )
    );
    // Another peer's record under this instance, or an unknown query: ignored.
    assert_eq!(browsed.txt(&1, &txt_for("12D3KooWother", a)), (None, None));
    assert_eq!(browsed.txt(&2, &txt_for(PEER, a)), (None, None));
    assert_eq!(
        browsed.lost("x7kq", 1),
        (Some(1), Some(Nearby::Lost { peer: PEER.into() }))
    );
    assert_eq!(browsed.lost("x7kq", 1), (None, None));
}

/// The browse ended (iOS cut the connection to the daemon): the peers it
/// had found are reported lost, and found again by the next browse.
#[test]
fn discovery_bonjour_reports_its_peers_lost_when_its_browse_ends() {
    let mut browsed = Browsed::new("me");
    browsed.found("named", 1);
    browsed.querying("named", Some(1));
    assert!(
        browsed
            .txt(&1, &txt_for(PEER, "/ip4/192.168.1.5/tcp/4001"))
            .1
            .is_some()
    );
    browsed.found("unnamed", 1);
    browsed.querying("unnamed", Some(2));
    assert_eq!(browsed.forget(), [Nearby::Lost { peer: PEER.into() }]);
    assert_eq!(browsed.forget(), []);
    assert_eq!(browsed.found("named", 1), Find::Query { stop: None });
}

#[test]
fn discovery_bonjour_follows_a_phone_across_the_names_libp2p_gives_each_answer() {
    let mut browsed = Browsed::new("me");
    let a = "/ip4/192.168.1.5/tcp/4001";
    let b = "/ip4/10.0.0.5/tcp/4001";
    browsed.found("first", 1);
    browsed.querying("first", Some(1));
    assert!(browsed.txt(&1, &txt_for(PEER, a)).1.is_some());
    // The phone's next answer, under a new name: it takes the first
    // name's place (whose query stops) and its addresses, so the same
    // address is no news and only a new one is reported.
    assert_eq!(browsed.found("second", 1), Find::Query { stop: None });
    browsed.querying("second", Some(2));
    assert_eq!(browsed.txt(&2, &txt_for(PEER, a)), (Some(1), None));
    assert_eq!(
        browsed.txt(&2, &txt_for(PEER, b)).1,
        Some(Nearby::Found {
            peer: PEER.into(),
            addrs: vec![format!("{a}/p2p/{PEER}"), format!("{b}/p2p/{PEER}")]
        })
    );
    // The first name expires: the phone is not lost, its second name
    // stands; when that one goes, it is.
    assert_eq!(browsed.lost("first", 1), (None, None));
    assert_eq!(
        browsed.lost("second", 1),
        (Some(2), Some(Nearby::Lost { peer: PEER.into() }))
    );
}

/// An iPhone announces one instance, named by its peer id, for as long as
/// its app runs: another instance naming that peer (anyone on the Wi-Fi
/// can announce one) does not take its place, so withdrawing it does not
/// report the phone lost.
#[test]
fn discovery_bonjour_keeps_an_iphones_own_instance_against_another_naming_it() {
    let mut browsed = Browsed::new("me");
    let a = "/ip4/192.168.1.5/tcp/4001";
    browsed.found(PEER, 1);
    browsed.querying(PEER, Some(1));
    assert!(browsed.txt(&1, &txt_for(PEER, a)).1.is_some());
    browsed.found("spoof", 1);
    browsed.querying("spoof", Some(2));
    let spoofed = browsed.txt(&2, &txt_for(PEER, "/ip4/10.9.9.9/tcp/1"));
    assert_eq!(spoofed, (Some(2), None), "its query stops, nothing found");
    assert_eq!(browsed.lost("spoof", 1), (None, None), "nothing lost");
    assert_eq!(
        browsed.lost(PEER, 1),
        (Some(1), Some(Nearby::Lost { peer: PEER.into() }))
    );
}

/// Bonjour reports an instance on each network interface it is found
/// on: a phone that leaves one of two (a second Wi-Fi, a cable) is not
/// lost while it is still on the other.
#[test]
fn discovery_bonjour_loses_a_phone_only_once_it_is_gone_from_every_interface() {
    let mut browsed = Browsed::new("me");
    assert_eq!(browsed.found("x7kq", 4), Find::Query { stop: None });
    assert_eq!(browsed.found("x7kq", 9), Find::Skip, "the same instance");
    browsed.querying("x7kq", Some(1));
    assert!(
        browsed
            .txt(&1, &txt_for(PEER, "/ip4/192.168.1.5/tcp/4001"))
            .1
            .is_some()
    );
    assert_eq!(browsed.lost("x7kq", 4), (None, None), "still on the other");
    assert_eq!(
        browsed.lost("x7kq", 9),
        (Some(1), Some(Nearby::Lost { peer: PEER.into() }))
    );
}

#[test]
fn discovery_bonjour_retries_an_instance_whose_query_failed() {
    let mut browsed = Browsed::<u32>::new("me");
    assert_eq!(browsed.found("x7kq", 1), Find::Query { stop: None });
    browsed.querying("x7kq", None);
    assert_eq!(browsed.found("x7kq", 1), Find::Query { stop: None });
    // Lost before any TXT record: nothing to report.
    browsed.querying("x7kq", Some(3));
    assert_eq!(browsed.lost("x7kq", 1), (Some(3), None));
}

#[test]
fn discovery_bonjour_keeps_the_instances_that_named_their_peer_through_a_flood() {
    let mut browsed = Browsed::<usize>::new("me");
    assert_eq!(browsed.found("real", 1), Find::Query { stop: None });
    browsed.querying("real", Some(0));
    let a = "/ip4/127.0.0.1/tcp/4001";
    assert!(browsed.txt(&0, &txt_for(PEER, a)).1.is_some());
    // Made-up instances that never answer: once the list is full, each
    // new one pushes out the oldest of them, whose query is stopped.
    let mut stopped = Vec::new();
    for n in 1..1_000 {
        match browsed.found(&format!("fake{n}"), 1) {
            Find::Query { stop } => stopped.extend(stop),
            Find::Skip => panic!("a made-up instance left no room"),
        }
        browsed.querying(&format!("fake{n}"), Some(n));
    }
    assert_eq!(stopped.len(), 999 - (MAX_PHONES - 1));
    assert_eq!(stopped[..3], [1, 2, 3]);
    // The real one is still there, and its addresses are bounded too.
    for port in 0..100 {
        browsed.txt(&0, &txt_for(PEER, &format!("/ip4/127.0.0.1/tcp/{port}")));
    }
    match browsed.txt(&0, &txt_for(PEER, "/ip4/127.0.0.1/tcp/9999")).1 {
        Some(Nearby::Found { addrs, .. }) => assert_eq!(addrs.len(), MAX_ADDRS),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        browsed.lost("real", 1),
        (Some(0), Some(Nearby::Lost { peer: PEER.into() }))
    );
}

proptest! {
    #[test]
    fn discovery_txt_parsing_never_panics(record in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = txt_peer(&record);
    }

    #[test]
    fn discovery_txt_round_trips(addrs in proptest::collection::vec("/ip4/[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}/tcp/[0-9]{1,5}", 0..8)) {
        let me = Announcement { peer: PEER.into(), addrs: addrs.clone() };
        let mut expected: Vec<String> = Vec::new();
        for a in addrs {
            let full = format!("{a}/p2p/{PEER}");
            if !expected.contains(&full) {
                expected.push(full);
            }
        }
        prop_assert_eq!(txt_addresses(&txt_record(&me)), expected);
    }
}
