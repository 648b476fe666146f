//! Turns the passage of time into the [`Observation`]s a [`Phone`] takes:
//! which players' phones the game has waited on for too long, and whether
//! this player's turn timer ran out. This is the one place that knows about
//! time, and it lives outside the deterministic core: its decisions only
//! reach the log as signed votes, so every phone agrees on what they led to.

use super::colours::Colours;
use super::digest::Digest;
use super::header::Header;
use super::phone::{Observation, Phone, Waiting};
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
        self.observe_waiting(now, phone.log().head(), phone.waiting())
    }

    /// The players the game waits on whose phones have said nothing for a
    /// while (half the grace period, at most 2 s: the phones report every
    /// second), each with the time left before the computer plays for
    /// them: what "waiting for Blue (0:32)" shows. Call after
    /// [`Watch::observe`], which notes when the log last moved.
    pub fn silent(&self, now: Millis, waiting: Waiting) -> Vec<(Colour, Millis)> {
        let quiet = (self.grace / 2).min(2000);
        let waited = now.saturating_sub(self.since);
        let deadline = |action: bool| match self.timer {
            Some(timer) if action => timer + self.grace,
            _ => self.grace,
        };
        Colour::ALL
            .into_iter()
            .filter(|&c| now.saturating_sub(self.heard[c.index()]) >= quiet)
            .filter_map(|c| {
                let action = waiting.action == Some(c);
                (action || waiting.reveals.contains(c))
                    .then(|| (c, deadline(action).saturating_sub(waited)))
            })
            .collect()
    }

    /// [`Watch::observe`] for a log at `head` that waits on `waiting`.
    pub fn observe_waiting(&mut self, now: Millis, head: Digest, waiting: Waiting) -> Observation {
        if self.head != Some(head) {
            self.head = Some(head);
            self.since = now;
        }
        let waited = now.saturating_sub(self.since);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::header::TurnTimer;
    use crate::rules::{HouseRules, RuleSet};

    fn watch(timer: TurnTimer) -> Watch {
        let mut header = Header::new([0; 32], RuleSet::Classic(HouseRules::default()), [None; 4]);
        header.timer = timer;
        Watch::new(&header, 0)
    }

    const HEAD: Digest = Digest([1; 32]);
    const BLUE: Colour = Colour::Blue;

    fn reveal_from_blue() -> Waiting {
        Waiting {
            reveals: Colours::one(BLUE),
            ..Waiting::default()
        }
    }

    #[test]
    fn a_silent_phone_the_game_waits_on_is_shown_with_the_time_left() {
        let mut w = watch(TurnTimer::None);
        w.observe_waiting(0, HEAD, reveal_from_blue());
        assert_eq!(w.silent(1_999, reveal_from_blue()), vec![]);
        assert_eq!(w.silent(13_000, reveal_from_blue()), vec![(BLUE, 32_000)]);
        w.heard(BLUE, 13_000);
        assert_eq!(w.silent(14_000, reveal_from_blue()), vec![]);
        // A silent phone the game does not wait on is not shown.
        assert_eq!(w.silent(20_000, Waiting::default()), vec![]);
    }

    #[test]
    fn a_missing_reveal_is_overdue_after_the_grace_period() {
        let mut w = watch(TurnTimer::None);
        assert_eq!(
            w.observe_waiting(0, HEAD, reveal_from_blue()).gone,
            Colours::NONE
        );
        assert_eq!(
            w.observe_waiting(44_999, HEAD, reveal_from_blue()).gone,
            Colours::NONE
        );
        assert_eq!(
            w.observe_waiting(45_000, HEAD, reveal_from_blue()).gone,
            Colours::one(BLUE)
        );
        // A new entry starts the wait again.
        let next = Digest([2; 32]);
        assert_eq!(
            w.observe_waiting(46_000, next, reveal_from_blue()).gone,
            Colours::NONE
        );
    }

    #[test]
    fn a_players_turn_is_overdue_after_their_timer_and_the_grace_period() {
        let mut w = watch(TurnTimer::Seconds30);
        let blue_moves = Waiting {
            action: Some(BLUE),
            ..Waiting::default()
        };
        w.observe_waiting(0, HEAD, blue_moves);
        w.heard(BLUE, 70_000);
        assert_eq!(
            w.observe_waiting(74_999, HEAD, blue_moves).gone,
            Colours::NONE
        );
        assert_eq!(
            w.observe_waiting(75_000, HEAD, blue_moves).gone,
            Colours::one(BLUE)
        );
    }

    #[test]
    fn with_no_timer_a_thinking_player_is_waited_for_while_their_phone_is_heard() {
        let mut w = watch(TurnTimer::None);
        let blue_moves = Waiting {
            action: Some(BLUE),
            ..Waiting::default()
        };
        w.observe_waiting(0, HEAD, blue_moves);
        w.heard(BLUE, 100_000);
        assert_eq!(
            w.observe_waiting(120_000, HEAD, blue_moves).gone,
            Colours::NONE
        );
        assert_eq!(
            w.observe_waiting(145_000, HEAD, blue_moves).gone,
            Colours::one(BLUE)
        );
    }

    #[test]
    fn the_own_turn_timer_runs_out_after_its_time() {
        let mut w = watch(TurnTimer::Seconds10);
        let mine = Waiting {
            mine: true,
            ..Waiting::default()
        };
        assert!(!w.observe_waiting(0, HEAD, mine).timer_expired);
        assert!(!w.observe_waiting(9_999, HEAD, mine).timer_expired);
        assert!(w.observe_waiting(10_000, HEAD, mine).timer_expired);
        assert!(
            !watch(TurnTimer::None)
                .observe_waiting(99_000, HEAD, mine)
                .timer_expired
        );
    }
}
