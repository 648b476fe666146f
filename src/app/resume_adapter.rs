//! Wires Home's offer to resume an online game (`ResumeAdapter`) to
//! [`super::resume`]: Home looks for a kept game each time it opens;
//! Resume rejoins it as [`Part::Resume`] (the board shows once the saved
//! log is loaded and catches up); Leave records it as this player's leave
//! (two losses, or a win when everyone else had left) and removes it, and
//! Discard removes one that cannot be read.

use std::cell::RefCell;
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

/// Connects `ResumeAdapter`; `name` gives the player's nickname.
pub fn connect(window: &AppWindow, online: &Rc<RefCell<Online>>, name: Rc<dyn Fn() -> String>) {
    let adapter = window.global::<ResumeAdapter>();

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_check(move || {
        if let Some(window) = weak.upgrade() {
            show(&window, &state.borrow());
        }
    });

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_resume(move || {
        let Some(window) = weak.upgrade() else { return };
        let kept = resume::kept(&state.borrow().data);
        if let Some(Kept::Unfinished(game)) = kept {
            window
                .global::<ResumeAdapter>()
                .set_state(ui::ResumeState::None);
            online_adapter::begin(&window, &state, Part::Resume(game.folder), name());
        }
    });

    let (weak, state) = (window.as_weak(), online.clone());
    adapter.on_discard(move || {
        let Some(window) = weak.upgrade() else { return };
        let s = state.borrow();
        let given_up = match resume::kept(&s.data) {
            Some(Kept::Unfinished(game)) => {
                resume::give_up(&s.data, &game.folder).map_err(|e| e.to_string())
            }
            Some(Kept::Damaged { folder, .. }) => {
                resume::discard(&folder).map_err(|e| e.to_string())
            }
            None => Ok(()),
        };
        if let Err(e) = given_up {
            let adapter = window.global::<ResumeAdapter>();
            adapter.set_problem(e.into());
            adapter.set_state(ui::ResumeState::Damaged);
            return;
        }
        show(&window, &s);
    });
    // Home, the first screen, was made before these callbacks were set.
    adapter.invoke_check();
}

/// Shows the kept game, if any (none while a session runs, even one the
/// player gave up: it may be playing that very game).
fn show(window: &AppWindow, s: &Online) {
    let adapter = window.global::<ResumeAdapter>();
    adapter.set_local(GameFile::in_folder(&s.data).offered());
    let kept = if s.busy() {
        None
    } else {
        resume::kept(&s.data)
    };
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
