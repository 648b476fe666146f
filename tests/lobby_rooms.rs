//! The nearby rooms list between separate `clovece` processes on loopback:
//! an open room appears in another phone's list within about 2 s and leaves
//! it when full or gone; the filters show exactly the rooms they match; a
//! private room is never listed and only its ticket joins it.

mod process;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use process::{Proc, ask, clovece, dirs, peer, ticket};
use tempfile::TempDir;

/// How long an open room may take to show up in a list already running: a
/// bound for a stuck list, not the figure (about 2 s: two asks a second
/// apart), which the tests print; a loaded machine starting a dozen debug
/// processes at once can take several seconds more.
const APPEAR: Duration = Duration::from_secs(15);

/// `clovece rooms` asking the hosts of `tickets`, with `filters`, for
/// `seconds`.
fn rooms(dir: &TempDir, tickets: &[&str], filters: &[&str], seconds: u32) -> Proc {
    let mut args = vec![
        "rooms".to_owned(),
        "--seconds".to_owned(),
        seconds.to_string(),
    ];
    for t in tickets {
        args.extend(["--ask".to_owned(), ask(t)]);
    }
    args.extend(filters.iter().map(|f| f.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    clovece(dir.path(), &args)
}

fn host(dir: &TempDir, options: &[&str]) -> (Proc, String, String) {
    let mut args = vec!["host"];
    args.extend(options);
    let mut host = peer(dir.path(), &args);
    let (ticket, code) = ticket(&mut host);
    (host, ticket, code)
}

#[test]
fn open_room_appears_in_another_peers_list_and_disappears_when_full() {
    let dirs = dirs(3);
    let (host, ticket, code) = host(
        &dirs[0],
        &["--players", "2", "--turn", "20", "--board", "sea"],
    );
    let started = Instant::now();
    let mut list = rooms(&dirs[1], &[&ticket], &[], 60);
    let (at, room) = list
        .wait_for_within("room: ", APPEAR)
        .expect("the open room is listed");
    eprintln!("listed after {:?} (process start included)", at - started);
    assert!(
        room.starts_with(&format!(
            "{code} free 1 players 2 turn 20 board sea rules classic first random ticket "
        )),
        "{room}"
    );
    assert!(room.ends_with(&ticket), "{room}");
    let join = peer(dirs[2].path(), &["join", &ticket]);
    let joined = Instant::now();
    let (at, gone) = list
        .wait_for_within("gone: ", APPEAR)
        .expect("the full room leaves the list");
    eprintln!("gone {:?} after the join started", at - joined);
    assert_eq!(gone, code);
    drop((host, join));
}

/// Once listed, the room is listed again with its host's nickname, which
/// its phone tells the list when asked.
#[test]
fn the_list_says_whose_room_it_is() {
    let dirs = dirs(2);
    let (_host, ticket, code) = host(&dirs[0], &["--players", "2", "--name", "Hana"]);
    let mut list = rooms(&dirs[1], &[&ticket], &[], 60);
    let (_, room) = list.wait_for_within("room: ", APPEAR).expect("listed");
    assert!(room.starts_with(&format!("{code} free 1 ")), "{room}");
    let (_, named) = list.wait_for_within("room: ", APPEAR).expect("named");
    assert!(
        named.starts_with(&format!("{code} host \"Hana\" free 1 ")) && named.ends_with(&ticket),
        "{named}"
    );
}

#[test]
fn a_room_whose_host_is_gone_leaves_the_list() {
    let dirs = dirs(2);
    let (host, ticket, code) = host(&dirs[0], &[]);
    let mut list = rooms(&dirs[1], &[&ticket], &[], 60);
    let (_, room) = list.wait_for_within("room: ", APPEAR).expect("listed");
    assert!(
        room.starts_with(&format!("{code} free 3 players 4 turn 30 board classic")),
        "{room}"
    );
    host.kill();
    let (_, gone) = list.wait_for_within("gone: ", APPEAR).expect("gone");
    assert_eq!(gone, code);
}

#[test]
fn filters_show_exactly_the_rooms_they_match() {
    let dirs = dirs(12);
    let rooms_of = [
        host(
            &dirs[0],
            &["--players", "2", "--turn", "10", "--board", "sea"],
        ),
        host(
            &dirs[1],
            &["--players", "3", "--turn", "30", "--board", "classic"],
        ),
        host(
            &dirs[2],
            &["--players", "4", "--turn", "60", "--board", "sea"],
        ),
        host(
            &dirs[3],
            &[
                "--players",
                "3",
                "--turn",
                "10",
                "--board",
                "classic",
                "--rules",
                "croatian",
            ],
        ),
    ];
    let tickets: Vec<&str> = rooms_of.iter().map(|(_, t, _)| t.as_str()).collect();
    let code = |i: usize| rooms_of[i].2.clone();
    let cases: [(&[&str], &[usize]); 8] = [
        (&[], &[0, 1, 2, 3]),
        (&["--players", "3"], &[1, 3]),
        (&["--players", "2"], &[0]),
        (&["--turn", "10"], &[0, 3]),
        (&["--board", "sea"], &[0, 2]),
        (&["--players", "3", "--turn", "10"], &[3]),
        (&["--players", "4", "--turn", "60", "--board", "sea"], &[2]),
        (&["--players", "2", "--board", "classic"], &[]),
    ];
    let mut lists: Vec<Proc> = cases
        .iter()
        .enumerate()
        .map(|(i, (filters, _))| rooms(&dirs[4 + i % 8], &tickets, filters, 20))
        .collect();
    for ((filters, expected), list) in cases.iter().zip(&mut lists) {
        let mut listed = BTreeSet::new();
        while let Some((_, room)) = list.wait_for_within("room: ", APPEAR) {
            listed.insert(room.split(' ').next().unwrap().to_owned());
        }
        let expected: BTreeSet<String> = expected.iter().map(|&i| code(i)).collect();
        assert_eq!(listed, expected, "filters {filters:?}");
    }
}

/// One list asks an open room's host and a private room's host: it lists
/// the open room, so it was asking, never the private one, and ends
/// cleanly; the private room's ticket then joins it.
#[test]
fn private_room_is_not_listed_and_joins_only_by_ticket() {
    let dirs = dirs(4);
    let (_open, open_ticket, open_code) = host(&dirs[0], &["--players", "2"]);
    let (mut host, ticket, code) = host(&dirs[1], &["--players", "2", "--private"]);
    let list = rooms(&dirs[2], &[&open_ticket, &ticket], &[], 6);
    let lines = list.run_out();
    let listed: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("room: "))
        .collect();
    assert!(
        listed
            .iter()
            .any(|r| r.starts_with(&format!("{open_code} ")) && r.ends_with(&open_ticket)),
        "the open room is listed: {lines:?}"
    );
    assert!(
        !listed
            .iter()
            .any(|r| r.split(' ').next() == Some(code.as_str()) || r.ends_with(&ticket)),
        "the private room is listed: {lines:?}"
    );
    assert!(
        !lines.iter().any(|l| *l == format!("gone: {code}")),
        "the private room left the list: {lines:?}"
    );
    let mut join = peer(dirs[3].path(), &["join", &ticket]);
    let result = join.wait_for("result: ");
    assert_eq!(host.wait_for("result: "), result);
}

#[test]
fn bad_room_options_are_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    for (args, message) in [
        (
            &["host", "--turn", "none", "--bot", "easy"][..],
            "offline games",
        ),
        (
            &["host", "--turn", "45", "--bot", "easy"][..],
            "10, 20, 30 or 60",
        ),
        (
            &["host", "--board", "lava", "--bot", "easy"][..],
            "classic or sea",
        ),
        (
            &["host", "--players", "5", "--bot", "easy"][..],
            "2, 3 or 4 players",
        ),
        (
            &[
                "host",
                "--rules",
                "croatian",
                "--house",
                "no-jump-home",
                "--bot",
                "easy",
            ][..],
            "classic rules only",
        ),
        (
            &["host", "--players", "2", "--computer", "2", "--bot", "easy"][..],
            "none for the host",
        ),
        (&["rooms", "--players", "1"][..], "2, 3 or 4 players"),
        (&["rooms", "--ask", "/ip4/127.0.0.1/tcp/1"][..], "/p2p/"),
    ] {
        // On loopback, should a refusal ever come after the node starts.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_clovece"))
            .args(args)
            .args(["--data", dir.path().to_str().unwrap()])
            .args(["--listen", "/ip4/127.0.0.1/tcp/0"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[test]
fn a_host_the_list_could_not_reach_at_first_is_asked_again_and_listed() {
    let dirs = dirs(2);
    // The host's identity before it runs, and a port nobody listens on
    // yet: the list's first dial to it is refused, and its question stays
    // queued. (A host that opens its room on a new node, on another port,
    // is the same case in the app.)
    let host_id = clovece::net::identity::load_or_create(dirs[0].path())
        .unwrap()
        .public()
        .to_peer_id();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let at = format!("/ip4/127.0.0.1/tcp/{port}/p2p/{host_id}");
    let mut list = clovece(dirs[1].path(), &["rooms", "--seconds", "20", "--ask", &at]);
    std::thread::sleep(Duration::from_millis(1500));
    let listen = format!("/ip4/127.0.0.1/tcp/{port}");
    let (_host, _, code) = host(&dirs[0], &["--listen", &listen]);
    let (_, room) = list
        .wait_for_within("room: ", APPEAR)
        .expect("listed once its host is there");
    assert!(room.starts_with(&format!("{code} ")), "{room}");
}
