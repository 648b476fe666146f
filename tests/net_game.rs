//! Headless peers in separate processes over loopback: `clovece host` and
//! `clovece join` play a complete game with bots, and every peer ends with
//! the same result line (the same winner and the same final log entry).

mod process;

use std::time::Duration;

use process::{Hand, Proc, assert_one_result};

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
