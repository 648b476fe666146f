//! Turns the passage of time into the [`Observation`]s a [`Phone`] takes:
//! which players' phones the game has waited on for too long, and whether
//! this player's turn timer ran out. This is the one place that knows about
//! time, and it lives outside the deterministic core: its decisions only
//! reach the log as signed votes, so every phone agrees on what they led to.

use super::colours::Colours;
use super::digest::Digest;
use super::header::Header;
use super::phone::{Observation, Phone};
use crate::rules::Colour;

/// Milliseconds on some monotonic clock of the caller's choice.
pub type Millis = u64;

/// Watches one phone's game for players who keep it waiting.
#[derive(Clone, Debug)]
pub struct Watch {
    grace: Millis,
    timer: Option<Millis>,
    /// The log head and when it was first seen: waits are measured from the
    /// last entry.
    head: Option<Digest>,
    since: Millis,
    /// When a message last came from each colour's phone.
    heard: [Millis; 4],
}

impl Watch {
    pub fn new(header: &Header, now: Millis) -> Watch {
        Watch {
            grace: Millis::from(header.grace_secs) * 1000,
            timer: header.timer.seconds().map(|s| Millis::from(s) * 1000),
            head: None,
            since: now,
            heard: [now; 4],
        }
    }

    /// A message came from `from`'s phone.
    pub fn heard(&mut self, from: Colour, now: Millis) {
        self.heard[from.index()] = now;
    }

    /// What is overdue now:
    /// - a reveal, which a phone sends by itself, after the grace period;
    /// - another player's roll or move after their turn timer plus the grace
    ///   period (their own phone plays for them when the timer runs out), or
    ///   with no timer, after the grace period once nothing at all has come
    ///   from their phone for that long;
    /// - this player's own roll or move after the turn timer.
    pub fn observe(&mut self, now: Millis, phone: &Phone) -> Observation {
        let head = phone.log().head();
        if self.head != Some(head) {
            self.head = Some(head);
            self.since = now;
        }
        let waited = now.saturating_sub(self.since);
        let waiting = phone.waiting();
        let mut gone = Colours::NONE;
        if waited >= self.grace {
            gone = waiting.reveals;
        }
        if let Some(player) = waiting.action {
            let silent = now.saturating_sub(self.heard[player.index()]) >= self.grace;
            let overdue = match self.timer {
                Some(timer) => waited >= timer + self.grace,
                None => waited >= self.grace && silent,
            };
            if overdue {
                gone = gone.with(player);
            }
        }
        let timer_expired = waiting.mine && self.timer.is_some_and(|timer| waited >= timer);
        Observation {
            gone,
            timer_expired,
        }
    }
}
