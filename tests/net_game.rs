//! Headless peers in separate processes over loopback: `clovece host` and
//! `clovece join` play a complete game with bots, and every peer ends with
//! the same result line (the same winner and the same final log entry);
//! and a host that lingers after the end keeps it against a loser's entry
//! for an old turn.

mod process;

use std::path::Path;
use std::time::Duration;

use clovece::net::game::GAME_DIR;
use clovece::net::room::Frame;
use clovece::net::{Config, Node, Ticket};
use clovece::protocol::{Act, Entry, Kind, Log, Message, Signed, Signer, Store};
use libp2p::identity::Keypair;
use process::{Hand, Proc, assert_one_result, peer};

/// The host with `players` seats, `computers` of them the computer's (and
/// `options`), and `players - computers - 1` joining processes play to the
/// end; returns every process's result line.
fn game(players: u8, computers: u8, options: &[&str]) -> Vec<String> {
    let dirs: Vec<tempfile::TempDir> = (0..players - computers)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let (players, computers) = (players.to_string(), computers.to_string());
    let mut args = vec!["host", "--players", &players, "--computer", &computers];
    args.extend_from_slice(options);
    let mut host = Proc::start(dirs[0].path(), &args, Hand::Bot, 0);
    let ticket = host.wait_for("ticket: ");
    let code = host.wait_for("code: ");
    assert_eq!(code.len(), 6, "a six-character code: {code:?}");
    let mut peers = vec![host];
    for dir in &dirs[1..] {
        peers.push(Proc::start(dir.path(), &["join", &ticket], Hand::Bot, 0));
    }
    peers.into_iter().map(Proc::result).collect()
}

#[test]
fn two_peers_play_a_complete_game_with_bots() {
    assert_one_result(&game(2, 0, &[]));
}

#[test]
fn three_peers_play_a_complete_game_with_bots() {
    assert_one_result(&game(3, 0, &[]));
}

#[test]
fn four_peers_play_a_complete_game_with_bots() {
    assert_one_result(&game(4, 0, &[]));
}

#[test]
fn a_host_with_a_computer_seat_and_a_guest_play_to_the_end() {
    assert_one_result(&game(3, 1, &[]));
}

/// A host waiting less than the rules' 45 s for a phone that is gone could
/// choose between two known dice for a moment's absence: its guest does
/// not sign that game unless it agreed to the same wait.
#[test]
fn a_guest_signs_a_shorter_wait_for_a_gone_phone_only_if_it_is_its_own() {
    let dirs = process::dirs(2);
    let mut host = peer(dirs[0].path(), &["host", "--players", "2", "--grace", "1"]);
    let ticket = host.wait_for("ticket: ");
    let refusal = peer(dirs[1].path(), &["join", &ticket]).failure();
    assert!(
        refusal.contains("1 s for a phone that is gone where this phone waits 45 s"),
        "{refusal}"
    );
    host.kill();
}

/// Who begins is rolled for first (the first six, the Croatian default):
/// the bots roll those rolls at once, as any other, rather than leaving
/// each to the turn timer (60 s here, so that the game would not end in
/// time).
#[test]
fn the_bots_roll_the_opening_rolls_for_who_begins() {
    assert_one_result(&game(2, 0, &["--rules", "croatian", "--turn", "60"]));
}

/// The phones of a finished game go as soon as each knows that every
/// other one holds the end, not when their linger (ten minutes here) runs
/// out: each used to tell the others its head every second to the end,
/// so what it had sent was never all taken when it looked.
#[test]
fn the_peers_of_a_finished_game_go_once_every_one_holds_the_end() {
    let dirs = process::dirs(2);
    let lingering = ["--bot", "medium", "--linger", "600"];
    let mut host = process::clovece(
        dirs[0].path(),
        &[&["host", "--players", "2"][..], &lingering].concat(),
    );
    let ticket = host.wait_for("ticket: ");
    let guest = process::clovece(
        dirs[1].path(),
        &[&["join", &ticket][..], &lingering].concat(),
    );
    let mut results = Vec::new();
    for mut peer in [host, guest] {
        results.push(peer.wait_for("result: "));
        assert!(
            peer.finish_within(Duration::from_secs(30)),
            "a peer still runs 30 s after its result"
        );
    }
    assert_one_result(&results);
}

/// A game's log message as the channel carries it (`Frame::Game` holding
/// the setup's envelope, whose second kind is a log message), as a hostile
/// phone writes it.
fn framed(message: &Message) -> Vec<u8> {
    #[derive(serde::Serialize)]
    enum Envelope {
        #[allow(dead_code, reason = "only its place among the kinds counts")]
        Setup(()),
        Log(serde_bytes::ByteBuf),
    }
    let envelope = Envelope::Log(serde_bytes::ByteBuf::from(message.encode()));
    let inner = postcard::to_stdvec(&envelope).unwrap();
    Frame::Game(serde_bytes::ByteBuf::from(inner)).encode()
}

/// The guest's second move for one of its turns, from its saved log,
/// signed with its key: valid, it proves the guest a cheater, and a phone
/// taking it sets the game back to that turn. Another piece where the
/// guest had a choice; else (the dice gave it none before its phone died)
/// the same piece, said to be moved by hand where it was moved for it, or
/// the other way round: another act for the place all the same.
fn second_move(guest: &Path) -> (Keypair, Entry) {
    let keypair = clovece::net::identity::load_or_create(guest).unwrap();
    let signer = Signer::new(&keypair).unwrap();
    let saved = Store::open(&guest.join(GAME_DIR)).unwrap();
    let seat = saved.seat;
    let mut log = Log::new(saved.log.header().clone()).unwrap();
    let mut fallback = None;
    for entry in saved.log.entries() {
        let choice = log
            .state()
            .game()
            .map(|g| g.legal_moves())
            .unwrap_or_default();
        if let Kind::Player(Signed {
            seat: s,
            act: Act::Move { mv, auto },
            ..
        }) = &entry.kind
            && *s == seat
        {
            let sign = |act| Entry::sign(&signer, log.game(), entry.index, entry.prev, seat, act);
            if let Some(&other) = choice.iter().find(|m| *m != mv) {
                let act = Act::Move {
                    mv: other,
                    auto: false,
                };
                return (keypair, sign(act));
            }
            let act = Act::Move {
                mv: *mv,
                auto: !*auto,
            };
            fallback.get_or_insert_with(|| sign(act));
        }
        log.offer(entry.clone()).unwrap();
    }
    let entry =
        fallback.unwrap_or_else(|| panic!("the guest moved in none of {} entries", log.len()));
    (keypair, entry)
}

/// A loser cannot take the end from a phone that holds it: the guest's
/// phone dies mid-game, the computer plays its seat to the end, and while
/// the host lingers for it, a phone with the guest's key sends a second
/// move of the guest's for an old turn, which would set the game back and
/// leave it unfinished (docs/protocol.md, "Undo the end"). The host keeps
/// its result and records it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_phone_lingering_after_the_end_keeps_it_against_an_entry_for_an_old_turn() {
    let dirs = process::dirs(2);
    // The linger must outlast the stranger's start, dial, send and the
    // host's refusal (up to 20 s each below) on a loaded machine; the
    // host exits only when it runs out, as the dead guest never holds the
    // end.
    let bot = ["--bot", "medium", "--trace", "--linger", "45"];
    let hosting = ["host", "--players", "2", "--turn", "10", "--grace", "1"];
    let mut host = process::clovece(dirs[0].path(), &[&hosting[..], &bot].concat());
    let ticket = host.wait_for("ticket: ");
    let joining = ["join", &ticket, "--pace", "20", "--grace", "1"];
    let guest = process::clovece(dirs[1].path(), &[&joining[..], &bot].concat());
    host.wait_for_entries(150);
    guest.kill();
    let result = host.wait_for("result: ");
    let (keypair, second) = second_move(dirs[1].path());

    let config = Config {
        listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        mdns: false,
        ..Config::default()
    };
    let mut node = Node::start(keypair, config).await.unwrap();
    let ticket: Ticket = ticket.parse().unwrap();
    node.add_addrs(ticket.host(), ticket.dial_addrs());
    node.keep(ticket.host());
    // What the host said before: it refuses stale messages in any game.
    let said = host.stderr().len();
    node.send(ticket.host(), framed(&Message::Entry(second)))
        .unwrap();
    let taken = tokio::time::timeout(Duration::from_secs(20), async {
        while node.unacknowledged(ticket.host()) > 0 {
            node.next().await;
        }
    })
    .await;
    assert!(taken.is_ok(), "the host takes the message while it lingers");
    // Taken by the channel is not yet read by the game: the host says
    // why it refused the entry.
    let refused = std::time::Instant::now() + Duration::from_secs(20);
    while !host.stderr()[said..].contains("refused a message") {
        assert!(
            std::time::Instant::now() < refused,
            "the entry never reached the host's game:\n{}",
            host.stderr()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Written for a file or a pipe: no terminal's colour codes.
    assert!(!host.stderr().contains('\u{1b}'), "{}", host.stderr());

    let lines = host.run_out();
    let results = lines.iter().filter(|l| l.starts_with("result: ")).count();
    assert_eq!(results, 1, "one result only");
    let kept = Store::open(&dirs[0].path().join(GAME_DIR)).unwrap();
    let head = kept.log.head();
    assert!(kept.log.result().is_some(), "the end is kept");
    let hex: String = head.0.iter().map(|b| format!("{b:02x}")).collect();
    assert!(result.ends_with(&hex), "{result} vs {hex}");
    let stats = std::process::Command::new(process::BIN)
        .arg("stats")
        .arg("--data")
        .arg(dirs[0].path())
        .output()
        .unwrap();
    let stats = String::from_utf8_lossy(&stats.stdout);
    assert!(stats.contains(" games 1 "), "the game is recorded: {stats}");
}
