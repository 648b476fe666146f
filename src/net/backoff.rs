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

/// How long a connection must have stayed up for its drop to start the
/// delays afresh: one closed at once (a peer that bans this one, or has
/// no room for it, takes the handshake and hangs up) is a failed dial, or
/// the node would dial it ten times a second.
pub const STEADY: Duration = MAX;

#[derive(Clone, Copy, Debug)]
pub struct Backoff {
    delay: Duration,
    due: Option<Instant>,
    /// When the connection now up was made, if one is.
    up_since: Option<Instant>,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            delay: FIRST,
            due: None,
            up_since: None,
        }
    }
}

impl Backoff {
    /// A dial failed or the connection dropped at `now`: the next dial is
    /// due after the current delay, which then doubles up to [`MAX`]. A
    /// connection that was up for [`STEADY`] starts from the shortest
    /// delay again.
    pub fn failed(&mut self, now: Instant) {
        if self
            .up_since
            .take()
            .is_some_and(|since| now.duration_since(since) >= STEADY)
        {
            self.delay = FIRST;
        }
        self.due = Some(now + self.delay);
        self.delay = (self.delay * 2).min(MAX);
    }

    /// A dial failed at `now`: a failure as [`Backoff::failed`] says,
    /// unless a connection is up (the peer's own dial won the race):
    /// then nothing is due, and the connection's drop still counts from
    /// when it was made.
    pub fn dial_failed(&mut self, now: Instant) {
        if self.up_since.is_none() {
            self.failed(now);
        }
    }

    /// Connected at `now`: no dial is due while the connection lasts.
    pub fn connected(&mut self, now: Instant) {
        self.due = None;
        self.up_since.get_or_insert(now);
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
    fn backoff_doubles_up_to_its_cap_and_starts_afresh_after_a_steady_connection() {
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
        backoff.connected(now);
        let later = now + STEADY;
        backoff.failed(later);
        assert_eq!(backoff.due.unwrap() - later, FIRST);
    }

    /// A dial of this node's that fails while the peer's own connection
    /// is up schedules nothing, and leaves that connection's start: its
    /// drop, a second later, starts the delays afresh.
    #[test]
    fn a_dial_failing_while_connected_leaves_the_connection_counted() {
        let mut backoff = Backoff::default();
        let now = Instant::now();
        for _ in 0..4 {
            backoff.failed(now);
        }
        backoff.connected(now);
        backoff.dial_failed(now);
        assert_eq!(backoff.due, None);
        let later = now + STEADY;
        backoff.failed(later);
        assert_eq!(backoff.due.unwrap() - later, FIRST);
    }

    /// A peer that takes each connection and hangs up at once is dialled
    /// as one that cannot be reached: less and less often, not ten times
    /// a second.
    #[test]
    fn a_connection_dropped_at_once_counts_as_a_failed_dial() {
        let mut backoff = Backoff::default();
        let mut now = Instant::now();
        let mut delays = Vec::new();
        for _ in 0..6 {
            backoff.connected(now);
            now += Duration::from_millis(10);
            backoff.failed(now);
            let due = backoff.due.unwrap();
            delays.push((due - now).as_millis());
            assert!(backoff.take_due(due));
            now = due;
        }
        assert_eq!(delays, [100, 200, 400, 800, 1000, 1000]);
    }
}
