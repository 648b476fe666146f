//! What the tests of the app's online controller share: where an app
//! lives, the next update, and a player who taps through its turns.

#![allow(dead_code)] // each test binary uses a part

use std::sync::{Arc, mpsc};
use std::time::Duration;

use clovece::app::matfyz::Choice;
use clovece::app::online::{Part, Place, Session, Update};
use clovece::app::online_game::OnlineGame;
use clovece::net::front::Action;
use clovece::platform::discovery::SwarmMdns;
use clovece::platform::multicast::{Multicast, NoLock};

/// Where an app keeps its files and listens (loopback only).
pub fn place(dir: &std::path::Path, name: &str) -> Place {
    Place {
        data: dir.to_owned(),
        listen: vec!["/ip4/127.0.0.1/tcp/0".parse().unwrap()],
        name: name.into(),
        discovery: Arc::new(SwarmMdns::new(Multicast::new(NoLock))),
        // The computer's turns at the machine's pace, as on the command
        // line: `app_online` shows the app's pace at work.
        computer_pace: Duration::ZERO,
    }
}

/// A session of `part` for the app that keeps its files in `dir` and
/// plays as `name`, and its updates.
pub fn started(part: Part, dir: &std::path::Path, name: &str) -> (Session, mpsc::Receiver<Update>) {
    started_at(part, place(dir, name))
}

/// A session of `part` at `place`, and its updates.
pub fn started_at(part: Part, place: Place) -> (Session, mpsc::Receiver<Update>) {
    let (tx, updates) = mpsc::channel();
    let session = Session::start(part, place, move |u| {
        let _ = tx.send(u);
    });
    (session, updates)
}

/// The next update within a minute.
pub fn next(updates: &mpsc::Receiver<Update>) -> Update {
    updates
        .recv_timeout(Duration::from_secs(60))
        .expect("an update within a minute")
}

/// The Matfyz questions this player answered.
#[derive(Default, Debug)]
pub struct Answered {
    pub plans: usize,
    pub recipients: usize,
}

/// The board after `update` (if it is the log's), and this player's tap
/// when one is due: the roll, or a piece that may move (one whose move
/// asks a Matfyz question if there is one, answering the questions with
/// varied answers until it moves). Whether it acted.
pub fn play(
    game: &mut Option<OnlineGame>,
    update: &Update,
    session: &Session,
    answered: &mut Answered,
) -> bool {
    let Update::Log(snapshot) = update else {
        return false;
    };
    match game.as_mut() {
        Some(game) => game.update(snapshot.clone()),
        None => *game = Some(OnlineGame::new(snapshot.clone())),
    }
    let game = game.as_mut().unwrap();
    if game.can_roll() {
        session.act(Action::Roll);
        return true;
    }
    if !game.must_move() {
        return false;
    }
    // A question first: a game that tapped the first movable piece only
    // once ended without one.
    let mut action = None;
    for piece in game.pieces().into_iter().filter(|p| p.movable) {
        let tapped = game.tap(piece.id);
        if game.choice().is_some() {
            action = None;
            break;
        }
        action = action.or(tapped);
    }
    while action.is_none()
        && let Some((_, choice)) = game.choice()
    {
        let options = match choice {
            Choice::Plan(plans) => {
                answered.plans += 1;
                plans.len()
            }
            Choice::Recipient { seats, .. } => {
                answered.recipients += 1;
                seats.len()
            }
        };
        let varied = (answered.plans + answered.recipients) % 2 * (options - 1);
        action = game.choose(varied);
    }
    session.act(action.expect("a move is due, so a piece may move"));
    true
}

/// Waits for the session's end, which must be clean, and checks that the
/// game is recorded once in the statistics of `data`.
pub fn ends_recorded_once(updates: &mpsc::Receiver<Update>, data: &std::path::Path) {
    loop {
        if let Update::Ended(ended) = next(updates) {
            assert_eq!(ended, Ok(()));
            break;
        }
    }
    recorded_once(data);
}

/// Checks that the statistics of `data` hold one game, and that nothing is
/// left to resume; the game's record.
pub fn recorded_once(data: &std::path::Path) -> clovece::stats::Record {
    let stats = std::fs::read_to_string(data.join("stats.jsonl")).unwrap();
    assert_eq!(stats.lines().count(), 1, "recorded once: {stats}");
    assert!(
        clovece::app::resume::kept(data).is_none(),
        "nothing left to resume"
    );
    serde_json::from_str(stats.trim()).unwrap()
}
