//! The turn timer as the board shows it: how long a person has left for
//! the roll or move that is due, counted in whole-second ticks, so that it
//! runs on the UI's timer (and on mocked time in tests) without reading a
//! clock. In a game on this device, when it runs out, the computer acts
//! for the person; online it only shows the time, and the network side
//! plays for the player when their phone's own count runs out.

use std::num::NonZeroU16;

use crate::protocol::header::TurnTimer;

/// The turn timer: off, or the seconds per roll or move and what is left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnClock {
    limit: Option<NonZeroU16>,
    left: u16,
}

/// What a tick of the clock found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tick {
    /// The game has no turn timer.
    Off,
    /// Seconds left for the roll or move that is due.
    Left(u16),
    /// Time is up: the computer acts for the person.
    Up,
}

impl TurnClock {
    /// A clock for `timer`, started.
    pub fn new(timer: TurnTimer) -> TurnClock {
        let limit = timer.seconds().and_then(NonZeroU16::new);
        TurnClock {
            limit,
            left: limit.map_or(0, NonZeroU16::get),
        }
    }

    /// Starts the full time again, for the next roll or move.
    pub fn restart(&mut self) {
        self.left = self.limit.map_or(0, NonZeroU16::get);
    }

    /// The seconds left, `None` when the game has no timer.
    pub fn left(&self) -> Option<u16> {
        self.limit.map(|_| self.left)
    }

    /// One second passed.
    pub fn tick(&mut self) -> Tick {
        if self.limit.is_none() {
            return Tick::Off;
        }
        self.left = self.left.saturating_sub(1);
        if self.left == 0 {
            Tick::Up
        } else {
            Tick::Left(self.left)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_without_a_timer_never_runs_out() {
        let mut clock = TurnClock::new(TurnTimer::None);
        assert_eq!(clock.left(), None);
        for _ in 0..1000 {
            assert_eq!(clock.tick(), Tick::Off);
        }
    }

    #[test]
    fn the_timer_counts_down_and_runs_out_after_its_seconds() {
        let mut clock = TurnClock::new(TurnTimer::Seconds10);
        assert_eq!(clock.left(), Some(10));
        for left in (1..10).rev() {
            assert_eq!(clock.tick(), Tick::Left(left));
        }
        assert_eq!(clock.tick(), Tick::Up);
        assert_eq!(clock.left(), Some(0));
    }

    #[test]
    fn a_restart_gives_the_full_time_again() {
        let mut clock = TurnClock::new(TurnTimer::Seconds30);
        clock.tick();
        clock.tick();
        assert_eq!(clock.left(), Some(28));
        clock.restart();
        assert_eq!(clock.left(), Some(30));
    }
}
