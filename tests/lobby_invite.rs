//! Invitations between `clovece` processes on loopback: the host invites a
//! phone by its address; the invited phone sees who invites and to what,
//! and accepts (joins, even a private room, and plays) or declines (the
//! host is told). Afterwards each is on the other's friends list.

mod process;

use std::process::Command;

use process::{dirs, peer, ticket};

#[test]
fn invitation_accepted_joins_the_room_and_makes_friends() {
    let dirs = dirs(2);
    let mut invited = peer(
        dirs[1].path(),
        // Agreeing to the host's wait for a phone that is gone, which a
        // guest signs only if it is its own (a test's shorter one here).
        &["invitations", "--accept", "--grace", "5", "--name", "Ivo"],
    );
    let ivo = invited.wait_for("id: ");
    let address = invited.wait_for("address: ");
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
            "--grace",
            "5",
            "--invite",
            &address,
        ],
    );
    let (ticket, code) = ticket(&mut host);
    assert_eq!(host.wait_for("invited: "), ivo);
    let invite = invited.wait_for("invite: ");
    assert!(
        invite.starts_with("from \"Hana\" ")
            && invite.contains(&format!(
                " room {code} players 2 turn 60 board sea rules classic first random ticket {ticket}"
            )),
        "{invite}"
    );
    let result = host.wait_for("result: ");
    assert_eq!(invited.wait_for("result: "), result);
    host.finish();
    invited.finish();
    let friends = |dir: &std::path::Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_clovece"))
            .args(["friends", "--data", dir.to_str().unwrap()])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        friends(dirs[0].path()),
        format!("friend: {ivo} \"Ivo\" games 1\n")
    );
    let hana = friends(dirs[1].path());
    assert!(
        hana.starts_with("friend: ")
            && hana.ends_with(" \"Hana\" games 1\n")
            && hana.lines().count() == 1,
        "{hana}"
    );
}

#[test]
fn invitation_declined_is_reported_to_the_host() {
    let dirs = dirs(2);
    let mut invited = peer(dirs[1].path(), &["invitations", "--decline"]);
    let id = invited.wait_for("id: ");
    let address = invited.wait_for("address: ");
    let mut host = peer(
        dirs[0].path(),
        &["host", "--players", "3", "--name", "Hana", "--console"],
    );
    let (_, code) = ticket(&mut host);
    host.type_line(&format!("invite {address}"));
    assert_eq!(host.wait_for("invited: "), id);
    assert!(invited.wait_for("invite: ").starts_with("from \"Hana\" "));
    assert_eq!(invited.wait_for("declined: "), code);
    invited.finish();
    assert_eq!(host.wait_for("declined: "), id);
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
