//! Statistics after real games between `clovece` processes on loopback:
//! a won and a lost game, a player leaving on purpose (two losses, and
//! the game over for that phone when it restarts) and a
//! phone that drops and never comes back (one loss), as `clovece stats`
//! shows them on each phone; a finished game its process did not record
//! (stopped while it lingered at the end); and a damaged statistics file.

mod process;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use process::{dirs, peer, ticket};

/// `clovece stats --data <data>`: its stdout, and its stderr.
fn stats(data: &Path) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_clovece"))
        .args(["stats", "--data", data.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The line of the player named `name` in `clovece stats` output.
fn player<'a>(stats: &'a str, name: &str) -> &'a str {
    stats
        .lines()
        .find(|l| l.starts_with("player ") && l.contains(&format!("name {name:?} ")))
        .unwrap_or_else(|| panic!("no player {name}:\n{stats}"))
}

/// Hana hosts a room of two in `dirs[0]` and Ivo joins it from `dirs[1]`
/// (with `join_args`), their computers playing: the two processes.
fn hana_and_ivo(dirs: &[tempfile::TempDir], join_args: &[&str]) -> (process::Proc, process::Proc) {
    let mut host = peer(
        dirs[0].path(),
        &["host", "--players", "2", "--name", "Hana"],
    );
    let (link, _) = ticket(&mut host);
    let mut args = vec!["join", &link, "--name", "Ivo"];
    args.extend_from_slice(join_args);
    (host, peer(dirs[1].path(), &args))
}

#[test]
fn stats_after_a_won_and_a_lost_game() {
    let dirs = dirs(2);
    let (mut host, mut join) = hana_and_ivo(&dirs, &[]);
    let host_seat = host.wait_for("seat: ");
    let result = host.wait_for("result: ");
    assert_eq!(join.wait_for("result: "), result);
    host.finish();
    join.finish();
    let host_won = result.starts_with(&format!("winner {host_seat} "));
    let (winner, loser) = if host_won {
        ("Hana", "Ivo")
    } else {
        ("Ivo", "Hana")
    };
    let (seen_by_host, _) = stats(dirs[0].path());
    let (seen_by_guest, _) = stats(dirs[1].path());
    assert_eq!(
        seen_by_host, seen_by_guest,
        "both phones record the same game"
    );
    assert!(
        player(&seen_by_host, winner)
            .ends_with("games 1 wins 1 losses 0 left 0 dropped 0 win-rate 100.0%"),
        "{seen_by_host}"
    );
    assert!(
        player(&seen_by_host, loser)
            .ends_with("games 1 wins 0 losses 1 left 0 dropped 0 win-rate 0.0%"),
        "{seen_by_host}"
    );
    assert!(
        seen_by_host.contains("  rules classic games 1 "),
        "{seen_by_host}"
    );
    let dice_lines = seen_by_host.lines().filter(|l| l.starts_with("  dice 1:"));
    let rolled: Vec<u64> = dice_lines
        .map(|l| {
            l.split(' ')
                .filter_map(|f| f.split_once(':').map(|(_, n)| n.parse::<u64>().unwrap()))
                .sum()
        })
        .collect();
    assert_eq!(rolled.len(), 2);
    assert!(
        rolled.iter().all(|&n| n > 0),
        "each player rolled: {seen_by_host}"
    );
}

#[test]
fn leaving_on_purpose_counts_a_loss_and_an_extra_loss() {
    let dirs = dirs(2);
    let (mut host, mut leaver) = hana_and_ivo(&dirs, &["--leave-after", "3"]);
    leaver.wait_for("left: ");
    leaver.finish();
    host.wait_for("result: ");
    host.finish();
    for dir in &dirs {
        let (seen, _) = stats(dir.path());
        assert!(
            player(&seen, "Ivo")
                .ends_with("games 1 wins 0 losses 2 left 1 dropped 0 win-rate 0.0%"),
            "{seen}"
        );
    }
}

#[test]
fn a_phone_restarted_after_its_player_left_says_so_and_opens_a_new_room() {
    let dirs = dirs(2);
    // Hana takes her time, so the game is far from its end when Ivo
    // leaves; then her phone is gone too.
    let mut host = process::Proc::start(
        dirs[0].path(),
        &["host", "--players", "2", "--name", "Hana"],
        process::Hand::Bot,
        1000,
    );
    let (link, _) = ticket(&mut host);
    let leavers = dirs[1].path();
    let mut leaver = peer(
        leavers,
        &["join", &link, "--name", "Ivo", "--leave-after", "2"],
    );
    leaver.wait_for("left: ");
    leaver.finish();
    host.kill();
    let counted = || {
        let (seen, _) = stats(leavers);
        assert!(
            player(&seen, "Ivo")
                .ends_with("games 1 wins 0 losses 2 left 1 dropped 0 win-rate 0.0%"),
            "{seen}"
        );
    };
    counted();
    // The game is over for Ivo's phone. Restarted, it says so and stops,
    // though no other phone is there to end the game with it (it waited
    // for them for ever); and a new room replaces the game (it resumed
    // the game instead, as an unfinished one).
    let mut resumed = process::clovece(leavers, &["join", "--linger", "1"]);
    resumed.wait_for("left: log ");
    assert!(resumed.finish_within(Duration::from_secs(30)), "it stops");
    let mut room = process::clovece(leavers, &["host", "--players", "2"]);
    ticket(&mut room);
    room.kill();
    counted();
}

#[test]
fn a_drop_that_never_comes_back_counts_one_loss() {
    let dirs = dirs(3);
    // A guest of three vanishes while another player moves and the game
    // next needs its reveal for someone else's roll (a phone that dies at
    // its own roll counts as withholding it: see docs/lobby.md). The host
    // takes its time so that such a moment comes often.
    let mut host = process::clovece(
        dirs[0].path(),
        &[
            "host",
            "--players",
            "3",
            "--name",
            "Hana",
            "--turn",
            "10",
            "--grace",
            "2",
            "--bot",
            "medium",
            "--pace",
            "30",
            "--linger",
            "5",
        ],
    );
    let (ticket, _) = ticket(&mut host);
    let guest = |name| ["join", &ticket, "--name", name, "--grace", "2"];
    let mut stays = peer(dirs[1].path(), &guest("Ana"));
    let mut drops = peer(
        dirs[2].path(),
        &[&guest("Ivo")[..], &["--drop-after", "4"]].concat(),
    );
    drops.wait_for("dropped: ");
    drops.finish();
    let result = host.wait_for("result: ");
    assert_eq!(stays.wait_for("result: "), result);
    host.finish();
    stays.finish();
    for dir in &dirs[..2] {
        let (seen, _) = stats(dir.path());
        assert!(
            player(&seen, "Ivo")
                .ends_with("games 1 wins 0 losses 1 left 0 dropped 1 win-rate 0.0%"),
            "{seen}"
        );
    }
    let (nothing, _) = stats(dirs[2].path());
    assert_eq!(nothing, "", "the dropped phone recorded no game");
}

/// A process stopped while it lingers at the end (Ctrl-C after the result)
/// has not recorded the game; it is still in the data folder, as here once
/// the statistics file is gone. `clovece stats` counts it, once however
/// often it is asked, and a new room on the folder, which replaces the
/// saved game, keeps it counted.
#[test]
fn a_finished_game_left_unrecorded_is_counted_once() {
    let dirs = dirs(2);
    let (mut host, join) = hana_and_ivo(&dirs, &[]);
    host.wait_for("result: ");
    host.finish();
    join.finish();
    let (recorded, _) = stats(dirs[0].path());
    assert!(recorded.contains("  rules classic games 1 "), "{recorded}");

    std::fs::remove_file(dirs[0].path().join("stats.jsonl")).unwrap();
    assert_eq!(stats(dirs[0].path()).0, recorded);
    assert_eq!(stats(dirs[0].path()).0, recorded, "counted once");
    std::fs::remove_file(dirs[0].path().join("stats.jsonl")).unwrap();
    // The next game starts, in place of the saved one, and is stopped.
    let (mut again, guest) = hana_and_ivo(&dirs, &[]);
    again.wait_for("seat: ");
    again.kill();
    guest.kill();
    assert_eq!(
        stats(dirs[0].path()).0,
        recorded,
        "recorded before the next game"
    );
}

#[test]
fn a_damaged_statistics_file_is_named_and_the_rest_shown() {
    let dir = tempfile::tempdir().unwrap();
    let peer_id = libp2p::PeerId::random().to_base58();
    let good = format!(
        r#"{{"game":"ab","rules":"classic","players":[{{"peer":"{peer_id}","name":"Ana","outcome":"won","dice":[1,2,3,4,5,6]}}]}}"#
    );
    std::fs::write(
        dir.path().join("stats.jsonl"),
        format!("{good}\n{{\"game\":\"cd\",\"rules\n"),
    )
    .unwrap();
    let (out, err) = stats(dir.path());
    assert!(
        player(&out, "Ana").ends_with("games 1 wins 1 losses 0 left 0 dropped 0 win-rate 100.0%"),
        "{out}"
    );
    assert!(out.contains("  dice 1:1 2:2 3:3 4:4 5:5 6:6"), "{out}");
    assert!(
        err.contains("stats.jsonl: line 2 damaged or from a newer version, and skipped"),
        "{err}"
    );
}
