//! When to dial a peer of the game again after a connection failed or
//! dropped: soon at first, then less often, but never rarer than once a
//! second. Dialling a phone on the same Wi-Fi costs one TCP handshake, and
//! a player whose link comes back should be playing again within two
//! seconds (the goal in docs/performance.md), so the cap is low.

use std::time::{Duration, Instant};

/// The first retry's delay.
pub const FIRST: Duration = Duration::from_millis(100);
/// The longest delay between two dials.
pub const MAX: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    delay: Duration,
    due: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            delay: FIRST,
            due: None,
        }
    }
}

impl Backoff {
    /// A dial failed or the connection dropped at `now`: the next dial is
    /// due after the current delay, which then doubles up to [`MAX`].
    pub fn failed(&mut self, now: Instant) {
        self.due = Some(now + self.delay);
        self.delay = (self.delay * 2).min(MAX);
    }

    /// Connected: the next failure starts from the shortest delay again.
    pub fn connected(&mut self) {
        *self = Backoff::default();
    }

    /// Whether a dial is due at `now`; it is then no longer pending.
    pub fn take_due(&mut self, now: Instant) -> bool {
        match self.due {
            Some(due) if due <= now => {
                self.due = None;
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap_and_resets_on_connect() {
        let start = Instant::now();
        let mut backoff = Backoff::default();
        let mut delays = Vec::new();
        let mut now = start;
        for _ in 0..6 {
            backoff.failed(now);
            let due = backoff.due.unwrap();
            delays.push(due - now);
            assert!(!backoff.take_due(due - Duration::from_millis(1)));
            assert!(backoff.take_due(due));
            assert!(!backoff.take_due(due), "taken once");
            now = due;
        }
        let ms: Vec<u128> = delays.iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1000, 1000]);
        backoff.connected();
        backoff.failed(now);
        assert_eq!(backoff.due.unwrap() - now, FIRST);
    }
}
