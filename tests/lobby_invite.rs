//! Invitations between `clovece` processes on loopback: the host invites a
//! phone by its address; the invited phone sees who invites and to what,
//! and accepts (joins, even a private room, and plays) or declines (the
//! host is told). Afterwards each is on the other's friends list.

mod lobby_support;

use std::process::Command;

use lobby_support::{peer, ticket};

#[test]
fn invitation_accepted_joins_the_room_and_makes_friends() {
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut invited = peer(
        dirs[1].path(),
        &["invitations", "--accept", "--name", "Ivo"],
    );
    let ivo = invited.line("id: ");
    let address = invited.line("address: ");
    let mut host = peer(
        dirs[0].path(),
        &[
            "host",
            "--players",
            "2",
            "--private",
            "--turn",
            "60",
            "--board",
            "sea",
            "--name",
            "Hana",
            "--invite",
            &address,
        ],
    );
    let (ticket, code) = ticket(&mut host);
    assert_eq!(host.line("invited: "), ivo);
    let invite = invited.line("invite: ");
    assert!(
        invite.starts_with("from \"Hana\" ")
            && invite.contains(&format!(
                " room {code} players 2 turn 60 board sea rules classic ticket {ticket}"
            )),
        "{invite}"
    );
    let result = host.line("result: ");
    assert_eq!(invited.line("result: "), result);
    host.finish();
    invited.finish();
    let friends = Command::new(env!("CARGO_BIN_EXE_clovece"))
        .args(["friends", "--data", dirs[0].path().to_str().unwrap()])
        .output()
        .unwrap();
    let friends = String::from_utf8(friends.stdout).unwrap();
    assert_eq!(friends, format!("friend: {ivo} \"Ivo\" games 1\n"));
}

#[test]
fn invitation_declined_is_reported_to_the_host() {
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut invited = peer(dirs[1].path(), &["invitations", "--decline"]);
    let id = invited.line("id: ");
    let address = invited.line("address: ");
    let mut host = peer(
        dirs[0].path(),
        &["host", "--players", "3", "--name", "Hana", "--console"],
    );
    let (_, code) = ticket(&mut host);
    host.say(&format!("invite {address}"));
    assert_eq!(host.line("invited: "), id);
    assert!(invited.line("invite: ").starts_with("from \"Hana\" "));
    assert_eq!(invited.line("declined: "), code);
    invited.finish();
    assert_eq!(host.line("declined: "), id);
}

#[test]
fn no_invitation_in_time_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_clovece"))
        .args(["invitations", "--decline", "--seconds", "1"])
        .args(["--data", dir.path().to_str().unwrap()])
        .args(["--listen", "/ip4/127.0.0.1/tcp/0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no invitation came within 1s"), "{err}");
}
