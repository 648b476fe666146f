//! Wires Home's offer to resume an online game (`ResumeAdapter`) to
//! [`super::resume`]: Home looks for a kept game each time it opens;
//! Resume rejoins it as [`Part::Resume`] (the board shows once the saved
//! log is loaded and catches up); Leave records it as this player's leave
//! (two losses, or a win when everyone else had left) and removes it, and
//! Discard removes one that cannot be read.
//!
//! Each acts on the game the card shows, and only while it is still the
//! one Home would offer, as the card shows it (not damaged since), and no
//! session runs; otherwise the tap does
//! nothing but show the card anew. After Leave or Discard the card goes,
//! and another kept game is offered the next time Home opens: one shown
//! at once would sit under the finger that just left, and a double tap
//! would give it up unseen.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::SystemTime;

use slint::{ComponentHandle, ModelRc, VecModel};

use super::adapter::{hue, leave_cost};
use super::invite_adapter::game_data;
use super::local::GameFile;
use super::online::Part;
use super::online_adapter::{self, Online};
use super::resume::{self, Kept, Sitter};
use super::ui::{self, AppWindow, ResumeAdapter};
use crate::net::room::Listing;
use crate::stats::GivenUp;

/// Connects `ResumeAdapter`; `name` gives the player's nickname.
pub fn connect(window: &AppWindow, online: &Rc<RefCell<Online>>, name: Rc<dyn Fn() -> String>) {
    let adapter = window.global::<ResumeAdapter>();
    // The folder of the game the card shows.
    let card = Rc::new(Card::default());

    let (weak, state, shown) = (window.as_weak(), online.clone(), card.clone());
    adapter.on_check(move || {
        if let Some(window) = weak.upgrade() {
            show(&window, &state.borrow(), &shown);
        }
    });

    let (weak, state, shown) = (window.as_weak(), online.clone(), card.clone());
    adapter.on_resume(move || {
        let Some(window) = weak.upgrade() else { return };
        let kept = tapped(&window, &state.borrow(), &shown);
        if let Some(Kept::Unfinished(game)) = kept {
            hide(&window, &shown);
            online_adapter::begin(&window, &state, Part::Resume(game.folder), name());
        }
    });

    let (weak, state, shown) = (window.as_weak(), online.clone(), card);
    adapter.on_discard(move || {
        let Some(window) = weak.upgrade() else { return };
        let s = state.borrow();
        let (folder, given_up) = match tapped(&window, &s, &shown) {
            // Marked first: a leave that cannot be recorded leaves a game
            // given up, which Home shows damaged from then on, as the
            // card does now, and records as it is discarded.
            Some(Kept::Unfinished(game)) => {
                let left = resume::mark_given_up(&game.folder, GivenUp::OnPurpose)
                    .map_err(|e| e.to_string())
                    .and_then(|()| {
                        resume::give_up(&s.data, &game.folder, None).map_err(|e| e.to_string())
                    });
                (game.folder, left)
            }
            Some(Kept::Damaged { folder, .. }) => {
                let discarded =
                    resume::discard_damaged(&s.data, &folder).map_err(|e| e.to_string());
                (folder, discarded)
            }
            None => return,
        };
        if let Err(e) = given_up {
            let adapter = window.global::<ResumeAdapter>();
            adapter.set_problem(e.into());
            adapter.set_state(ui::ResumeState::Damaged);
            *shown.borrow_mut() = Some((folder, true));
            return;
        }
        // Not what Home offers now (an older kept game): a second tap
        // meant for this card would leave that one too. Home offers it
        // when it opens again.
        hide(&window, &shown);
    });
    // Home, the first screen, was made before these callbacks were set.
    adapter.invoke_check();
}

/// The folder of the kept game Home's card shows, if it shows one.
type Card = RefCell<Option<Shown>>;

/// A kept game as the card shows it: its folder, and whether damaged.
type Shown = (PathBuf, bool);

fn shown_as(kept: &Kept) -> Shown {
    (
        kept.folder().to_owned(),
        matches!(kept, Kept::Damaged { .. }),
    )
}

/// The kept game the card `shown` shows, if the card's Resume or Leave
/// may act on it: it is still the game Home offers, as the card shows it.
/// Otherwise (it is gone, another took its place, it was damaged since,
/// or a session runs) the card is shown anew, and the tap does nothing.
/// With no card shown, a tap is one that came after the card went, and
/// does nothing either.
fn tapped(window: &AppWindow, s: &Online, shown: &Card) -> Option<Kept> {
    let card = shown.borrow().clone()?;
    match offered(s) {
        Some(kept) if shown_as(&kept) == card => Some(kept),
        _ => {
            show(window, s, shown);
            None
        }
    }
}

/// The kept game Home offers: the newest, and none while a session runs,
/// even one the player gave up (it may be playing that very game).
fn offered(s: &Online) -> Option<Kept> {
    if s.busy() {
        None
    } else {
        resume::kept(&s.data)
    }
}

/// Takes the card away: its game is resumed, left or discarded.
fn hide(window: &AppWindow, shown: &Card) {
    shown.take();
    window
        .global::<ResumeAdapter>()
        .set_state(ui::ResumeState::None);
}

/// Shows the kept game Home offers, if any, in the card `shown`.
fn show(window: &AppWindow, s: &Online, shown: &Card) {
    let adapter = window.global::<ResumeAdapter>();
    adapter.set_local(GameFile::in_folder(&s.data).offered());
    let kept = offered(s);
    *shown.borrow_mut() = kept.as_ref().map(shown_as);
    match kept {
        None => adapter.set_state(ui::ResumeState::None),
        Some(Kept::Damaged { why, .. }) => {
            adapter.set_problem(why.into());
            adapter.set_state(ui::ResumeState::Damaged);
        }
        Some(Kept::Unfinished(game)) => {
            adapter.set_game(game_data(&Listing {
                players: game.players(),
                rules: game.rules,
                timer: game.timer,
                theme: game.theme,
                first: game.first,
            }));
            let seats: Vec<ui::PlayerData> = game
                .seats
                .iter()
                .map(|(colour, sitter)| ui::PlayerData {
                    hue: hue(*colour),
                    name: match sitter {
                        Sitter::Player(name) => name.as_str().into(),
                        Sitter::Computer => "".into(),
                    },
                    computer: *sitter == Sitter::Computer,
                    active: false,
                    home: 0,
                    waiting: -1,
                    left: false,
                })
                .collect();
            adapter.set_players(ModelRc::new(VecModel::from(seats)));
            let minutes = game.since(SystemTime::now()).as_secs() / 60;
            adapter.set_minutes(i32::try_from(minutes).unwrap_or(i32::MAX));
            adapter.set_leave_cost(leave_cost(game.leave));
            adapter.set_state(ui::ResumeState::Unfinished);
        }
    }
}
