//! Resuming an online game in the app: the app's online controller,
//! dropped mid-game against a `clovece join --bot` process on loopback
//! (as when the app is killed), is offered the game on Home when it opens
//! again on the same data folder, resumes it from the saved log, plays it
//! to its end and records it once; a damaged saved game is said so on
//! Home and can be discarded.

mod online_support;
mod process;
mod ui_support;

use std::sync::mpsc;
use std::time::Duration;

use clovece::app::online::{Part, Session, Update};
use clovece::app::resume::{self, Kept};
use clovece::app::room::{self, Room};
use clovece::lobby::RoomOptions;
use clovece::lobby::options::Players;
use i_slint_backend_testing::ElementQuery;
use online_support::{Answered, ends_recorded_once, next, place, play};
use process::peer;
use slint::platform::PointerEventButton;

/// The first element whose label starts with `start`, if any.
fn label_starting(window: &clovece::app::ui::AppWindow, start: &str) -> Option<String> {
    let start = start.to_owned();
    ElementQuery::from_root(window)
        .match_descendants()
        .match_predicate(move |e| e.accessible_label().is_some_and(|l| l.starts_with(&start)))
        .find_first()
        .and_then(|e| e.accessible_label())
        .map(|l| l.to_string())
}

#[test]
fn a_game_dropped_mid_way_is_offered_on_home_resumed_finished_and_recorded_once() {
    let (app_dir, bot_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (tx, updates) = mpsc::channel();
    let options = RoomOptions {
        players: Players::Two,
        ..RoomOptions::default()
    };
    let session = Session::start(
        Part::Host(options),
        place(app_dir.path(), "Hana"),
        move |u| {
            let _ = tx.send(u);
        },
    );
    let mut room = Room::new(room::Part::Host);
    let ticket = loop {
        if let Update::Opened { ticket, .. } = next(&updates) {
            break ticket;
        }
    };
    let mut bot = peer(bot_dir.path(), &["join", &ticket, "--name", "Ivo"]);

    // Six taps of this player, then the app is gone without a word.
    let mut game = None;
    let mut taps = 0;
    while taps < 6 {
        let update = next(&updates);
        room.apply(&update);
        match &update {
            Update::Seats { .. } => {
                if let Some(start) = room.start() {
                    session.command(start);
                }
            }
            Update::Log(_) => {
                taps += usize::from(play(&mut game, &update, &session, &mut Answered::default()))
            }
            Update::Over { .. } | Update::Ended(_) => panic!("over too soon: {update:?}"),
            _ => {}
        }
    }
    drop(session);
    drop(updates);
    // Its network thread stops at its next await.
    std::thread::sleep(Duration::from_millis(500));

    // Home, opened again on the same folder, offers the game.
    {
        ui_support::init();
        let app = ui_support::app(app_dir.path(), 1);
        let window = app.window();
        ui_support::find(window, "Host a room");
        let offer = label_starting(window, "An online game is unfinished (last move 0 min ago)");
        assert!(offer.is_some(), "Home offers the game");
        assert!(label_starting(window, "Resume the game").is_some());
    }

    let Some(Kept::Unfinished(kept)) = resume::kept(app_dir.path()) else {
        panic!("the game is kept to be resumed");
    };
    assert_eq!(kept.players, 2);
    let resumed = std::time::Instant::now();
    let (tx, updates) = mpsc::channel();
    let session = Session::start(
        Part::Resume(kept.folder),
        place(app_dir.path(), "Hana"),
        move |u| {
            let _ = tx.send(u);
        },
    );
    let mut game = None;
    let winner = loop {
        let update = next(&updates);
        match &update {
            Update::Log(_) => {
                if game.is_none() {
                    eprintln!("board shown {:?} after resuming", resumed.elapsed());
                }
                play(&mut game, &update, &session, &mut Answered::default());
            }
            Update::Over { winner } => break *winner,
            Update::Ended(ended) => panic!("ended before the result: {ended:?}"),
            _ => {}
        }
    };
    let winner = winner.expect("a game has a winner");
    let seen_by_bot = bot.wait_for("result: ");
    assert!(
        seen_by_bot.starts_with(&format!("winner {winner} ")),
        "{seen_by_bot}"
    );
    ends_recorded_once(&updates, app_dir.path());
    assert!(
        resume::kept(app_dir.path()).is_none(),
        "nothing left to resume"
    );
    bot.finish();
}

#[test]
fn a_damaged_kept_game_is_explained_on_home_and_discarded() {
    ui_support::init();
    let dir = tempfile::tempdir().unwrap();
    let folder = resume::new_folder(dir.path());
    let game = folder.join(clovece::net::game::GAME_DIR);
    std::fs::create_dir_all(&game).unwrap();
    std::fs::write(game.join("secret"), b"not a secret").unwrap();
    std::fs::write(game.join("log"), b"not a log").unwrap();

    let app = ui_support::app(dir.path(), 1);
    let window = app.window();
    ui_support::find(window, "Host a room");
    let said = label_starting(window, "An online game cannot be resumed: ")
        .expect("Home says the kept game is damaged");
    assert!(said.contains("secret"), "{said}");
    assert!(label_starting(window, "Resume the game").is_none());
    ui_support::find(window, "Discard the unfinished game")
        .mock_single_click(PointerEventButton::Left);
    assert!(label_starting(window, "An online game").is_none());
    assert!(!folder.exists(), "the damaged game is gone");
}
