//! The app's online controllers without a window, over real sockets on
//! loopback: the app hosts a room, a `clovece join --bot` process takes
//! the other seat, and the app's taps (through [`OnlineGame`]) play a
//! whole game, which both phones end with the same result and the app
//! records in its statistics.

mod lobby_support;

use std::sync::mpsc;
use std::time::Duration;

use clovece::app::online::{Part, Place, Session, Update};
use clovece::app::online_game::OnlineGame;
use clovece::app::room::{self, Room};
use clovece::lobby::RoomOptions;
use clovece::lobby::options::Players;
use clovece::net::front::Action;

use lobby_support::peer;

/// The next update within a minute.
fn next(updates: &mpsc::Receiver<Update>) -> Update {
    updates
        .recv_timeout(Duration::from_secs(60))
        .expect("an update within a minute")
}

#[test]
fn the_apps_online_controller_hosts_and_plays_a_whole_game_against_a_bot_process() {
    let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (tx, updates) = mpsc::channel();
    let options = RoomOptions {
        players: Players::Two,
        ..RoomOptions::default()
    };
    let place = Place {
        data: app_dir.path().to_owned(),
        listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        name: "Hana".into(),
    };
    let session = Session::start(Part::Host(options), place, move |u| {
        let _ = tx.send(u);
    });
    let mut room = Room::new(room::Part::Host);
    let ticket = loop {
        let update = next(&updates);
        room.apply(&update);
        if let Update::Opened { ticket, .. } = update {
            break ticket;
        }
    };
    let mut guest = peer(bot_dir.path(), &["join", &ticket, "--name", "Ivo"]);

    // Start only once the lobby says the guest is ready.
    let mut game: Option<OnlineGame> = None;
    let mut started = false;
    let winner = loop {
        let update = next(&updates);
        room.apply(&update);
        match update {
            Update::Seats { .. } if !started => {
                if let Some(start) = room.start() {
                    session.command(start);
                    started = true;
                }
            }
            Update::Log(snapshot) => {
                match game.as_mut() {
                    Some(game) => game.update(snapshot),
                    None => game = Some(OnlineGame::new(snapshot)),
                }
                let game = game.as_ref().unwrap();
                if game.can_roll() {
                    session.act(Action::Roll);
                } else if game.must_move() {
                    let piece = game.pieces().into_iter().find(|p| p.target.is_some());
                    let action = piece.and_then(|p| game.tap(p.id));
                    session.act(action.expect("a move is due, so a piece may move"));
                }
            }
            Update::Over { winner } => break winner,
            Update::Ended(ended) => panic!("ended before the result: {ended:?}"),
            _ => {}
        }
    };
    assert!(started, "the host started the game");
    let winner = winner.expect("a classic game has a winner");
    let seen_by_bot = guest.line("result: ");
    assert!(
        seen_by_bot.starts_with(&format!("winner {winner} ")),
        "{seen_by_bot}"
    );
    // The session lingers until the bot holds the end, then records it.
    loop {
        if let Update::Ended(ended) = next(&updates) {
            assert_eq!(ended, Ok(()));
            break;
        }
    }
    let stats = std::fs::read_to_string(app_dir.path().join("stats.jsonl")).unwrap();
    assert_eq!(stats.lines().count(), 1, "{stats}");
    guest.finish();
}
